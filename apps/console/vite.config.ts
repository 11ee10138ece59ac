import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The console is served by the API at /console (apps/api/src/console/console.routes.ts), so every
 * URL it builds starts there. `pnpm --filter @hub/console dev` serves it with hot reload and
 * forwards the API's paths to a hub on :8000 (HUB_URL to change it).
 */
const hubUrl = process.env.HUB_URL ?? "http://127.0.0.1:8000";
const apiPaths = ["/identity", "/automations", "/jobs", "/events", "/sectors", "/schedules", "/webhooks", "/openapi.json"];

export default defineConfig({
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // No data: URLs: the API's Content-Security-Policy allows images and fonts from its own origin only.
    assetsInlineLimit: 0,
    sourcemap: true,
    target: "es2022",
  },
  server: {
    proxy: Object.fromEntries(apiPaths.map((path) => [path, { target: hubUrl, changeOrigin: false }])),
  },
});
