/** GET /openapi.json and GET /docs (Swagger UI served from the swagger-ui-dist package, no CDN). */
import type { Router } from "express";
import { createRequire } from "node:module";
import path from "node:path";
import { RequestValidationError } from "../http/http-errors";
import type { AnyRoute } from "../http/route";
import { pageSecurityHeaders, sameOriginContentSecurityPolicy } from "../http/security-headers";
import { buildOpenApiDocument } from "./document";

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/**
 * The swagger-ui-dist files /docs loads, and nothing else of the package (CONTRACT §6.21): its
 * stock index.html, the standalone preset and the OAuth2 redirect page are not served.
 */
const DOCS_ASSETS = ["swagger-ui.css", "swagger-ui-bundle.js"] as const;

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Automation Hub — API</title>
<link rel="stylesheet" href="/docs/assets/${DOCS_ASSETS[0]}"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/${DOCS_ASSETS[1]}"></script>
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
  router.get("/openapi.json", (req, res) => {
    // It takes no query parameter: an unknown one is refused as on every other endpoint.
    const unknown = Object.keys(req.query);
    if (unknown.length > 0)
      throw new RequestValidationError(unknown.map((name) => ({ loc: ["query", name], msg: "Extra inputs are not permitted", type: "extra_forbidden" })));
    res.json(document);
  });
  router.use("/docs", pageSecurityHeaders(DOCS_CONTENT_SECURITY_POLICY));
  router.get("/docs", (_req, res) => {
    res.type("html").send(DOCS_PAGE);
  });
  router.get("/docs/init.js", (_req, res) => {
    res.type("application/javascript").send(DOCS_INIT);
  });
  for (const asset of DOCS_ASSETS) {
    router.get(`/docs/assets/${asset}`, (_req, res, next) => {
      // The bundle names a source map it does not ship with here: no browser asks for it unless its developer tools are open.
      // dotfiles: the package sits under node_modules/.pnpm.
      res.sendFile(path.join(swaggerUiDir, asset), { maxAge: "1h", dotfiles: "allow" }, (error) => error && next(error));
    });
  }
}
