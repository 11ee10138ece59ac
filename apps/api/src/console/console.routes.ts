/**
 * The operator console (apps/console), served at /console from its build output on the API's own
 * origin, so it calls the API with no CORS and no second server to run.
 *
 * - `/console/assets/*`: Vite's content-hashed files, cached for a year (`immutable`); a missing
 *   one is a 404, never the page.
 * - Any other GET under /console: a file of the build's root (favicon), else `index.html`, the
 *   single-page app, which routes on the client (`/console/jobs/<id>` loads the page, then the
 *   job). Both `no-cache`: a new build is picked up on the next load.
 * - A Content-Security-Policy that allows only this origin (scripts, styles, images, fetch), no
 *   framing, no plugins.
 * - Not built (`pnpm build` builds it): 503 saying so, rather than a blank page or a crash.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Express } from "express";
import { pageSecurityHeaders, sameOriginContentSecurityPolicy } from "../http/security-headers";

export const CONSOLE_PATH = "/console";

const securityHeaders = pageSecurityHeaders(sameOriginContentSecurityPolicy());

/**
 * Where the built console is: `HUB_CONSOLE_DIR`, else the copy the API's build puts beside its
 * bundle (`dist/console`, tooling/build-app.mjs; what the image serves), else the console's own
 * build in the repository (`apps/console/dist`). The API does
 * not depend on the @hub/console package: turbo.json builds the console before the API instead,
 * since the console's tests depend on packages whose tests depend on the API.
 */
export function resolveConsoleDir(configured: string | undefined): string {
  if (configured) return path.resolve(configured);
  const here = path.dirname(fileURLToPath(import.meta.url));
  // From the bundle (apps/api/dist/main.js): its copy, else the repository's build; from the sources (src/console/).
  const candidates = [path.join(here, "console"), path.resolve(here, "../../console/dist"), path.resolve(here, "../../../console/dist")];
  return candidates.find((dir) => existsSync(path.join(dir, "index.html"))) ?? path.resolve(here, "../../../console/dist");
}

const NOT_BUILT_DETAIL = "The console is not built: run `pnpm build` (or `pnpm --filter @hub/console build`), or set HUB_CONSOLE_DIR to a built console";

/** Mounts /console on `app` (before the API's routes and the 404 handler). */
export function mountConsole(app: Express, consoleDir: string | undefined): void {
  const router = express.Router();
  router.use(securityHeaders);
  if (consoleDir) {
    router.use("/assets", express.static(path.join(consoleDir, "assets"), { index: false, immutable: true, maxAge: "365d", redirect: false }));
    router.use("/assets", (_req, res) => {
      res.status(404).json({ detail: "Not Found" });
    });
    router.use(
      express.static(consoleDir, {
        index: false,
        redirect: false,
        setHeaders: (res) => res.set("Cache-Control", "no-cache"),
      }),
    );
  }
  router.use((req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      next();
      return;
    }
    const indexFile = consoleDir ? path.join(consoleDir, "index.html") : undefined;
    if (!indexFile || !existsSync(indexFile)) {
      res.status(503).set("Cache-Control", "no-store").json({ detail: NOT_BUILT_DETAIL });
      return;
    }
    res.sendFile(indexFile, { headers: { "Cache-Control": "no-cache" } });
  });
  app.use(CONSOLE_PATH, router);
  // Whoever opens the hub's address in a browser lands on the console (a program reads /docs).
  app.get("/", (_req, res) => {
    res.redirect(302, CONSOLE_PATH);
  });
}
