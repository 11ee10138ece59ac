/** GET /openapi.json and GET /docs (Swagger UI served from the swagger-ui-dist package, no CDN). */
import express, { type Router } from "express";
import { createRequire } from "node:module";
import path from "node:path";
import type { AnyRoute } from "../http/route";
import { pageSecurityHeaders, sameOriginContentSecurityPolicy } from "../http/security-headers";
import { buildOpenApiDocument } from "./document";

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Automation Hub — API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

// No persistAuthorization: Swagger UI would keep what Authorize was given (the password of the
// OAuth2 form included) in localStorage, where any script of this origin, and anyone at the
// browser later, reads it. Without it, the token lives in the page's memory only.
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", persistAuthorization: false });`;

/** Swagger UI's bundle styles some elements inline and draws icons from data: URIs; nothing else. */
const DOCS_CONTENT_SECURITY_POLICY = sameOriginContentSecurityPolicy({ "style-src": ["'unsafe-inline'"], "img-src": ["data:"] });

export function mountDocs(router: Router, routes: AnyRoute[]): void {
  const document = buildOpenApiDocument(routes);
  router.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  router.use("/docs", pageSecurityHeaders(DOCS_CONTENT_SECURITY_POLICY));
  router.get("/docs", (_req, res) => {
    res.type("html").send(DOCS_PAGE);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.type("application/javascript").send(DOCS_INIT);
  });
  router.use("/docs/assets", express.static(swaggerUiDir, { index: false }));
}
