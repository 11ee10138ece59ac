/**
 * The operator console served at /console: the page for every client route, hashed assets cached
 * for good, a policy that allows only this origin, and a clear answer when it was never built. A
 * stand-in build (a directory with index.html and a hashed asset) keeps this independent of Vite;
 * the console itself is tested in a browser (apps/console/test).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app";
import { resolveConsoleDir } from "../src/console/console.routes";
import { startTestHub, type TestHub } from "./harness";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const INDEX_HTML =
  '<!doctype html><html lang="en"><head><script type="module" src="/console/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';

let hub: TestHub;
let built: string;
let notBuilt: { server: Server; url: string; dir: string };

beforeAll(async () => {
  built = mkdtempSync(path.join(tmpdir(), "hub-console-"));
  mkdirSync(path.join(built, "assets"));
  writeFileSync(path.join(built, "index.html"), INDEX_HTML);
  writeFileSync(path.join(built, "assets", "index-Ab12Cd34.js"), "console.log('console');");
  writeFileSync(path.join(built, "favicon.svg"), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  hub = await startTestHub({ HUB_CONSOLE_DIR: built });
  // The same API with a console directory that holds no build.
  const dir = mkdtempSync(path.join(tmpdir(), "hub-console-empty-"));
  const server = createApp({ ...hub.api.ctx, env: { ...hub.env, HUB_CONSOLE_DIR: dir } }).listen(0);
  await new Promise<void>((resolve) => server.once("listening", resolve));
  notBuilt = { server, dir, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});

afterAll(async () => {
  await new Promise<void>((resolve) => (notBuilt ? notBuilt.server.close(() => resolve()) : resolve()));
  await hub?.stop();
  rmSync(built, { recursive: true, force: true });
  if (notBuilt) rmSync(notBuilt.dir, { recursive: true, force: true });
});

const get = (url: string) => fetch(url, { redirect: "manual" });

describe("GET /console", () => {
  it("when /console and a client route are opened, then both answer the page, not cached, under a policy that allows only this origin", async () => {
    for (const route of ["/console", "/console/", "/console/automations/5b0c7a2e-1d3f-4e8a-b6c9-0a1b2c3d4e5f", "/console/jobs/x/y"]) {
      const response = await get(`${hub.api.url}${route}`);

      expect(response.status, route).toBe(200);
      expect(response.headers.get("content-type"), route).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control"), route).toBe("no-cache");
      expect(await response.text(), route).toBe(INDEX_HTML);
      const policy = response.headers.get("content-security-policy") ?? "";
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("connect-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain("unsafe");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("when a hashed asset is fetched, then it is served as JavaScript and cached for a year as immutable", async () => {
    const response = await get(`${hub.api.url}/console/assets/index-Ab12Cd34.js`);

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/javascript/);
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await response.text()).toBe("console.log('console');");
  });

  it("when a file of the build's root is fetched, then it is served and revalidated", async () => {
    const response = await get(`${hub.api.url}/console/favicon.svg`);

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(response.headers.get("cache-control")).toBe("no-cache");
  });

  it("when an asset does not exist, then 404 in the contract's shape, never the page", async () => {
    const response = await get(`${hub.api.url}/console/assets/index-missing.js`);

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "Not Found" });
  });

  it("when a path tries to leave the build directory, then it gets no file from outside", async () => {
    const response = await get(`${hub.api.url}/console/assets/..%2f..%2fpackage.json`);

    expect(response.status).toBe(404);
  });

  it("when the console was never built, then 503 says how to build it, and the API keeps serving", async () => {
    const response = await get(`${notBuilt.url}/console/automations`);
    const health = await get(`${notBuilt.url}/healthz`);

    expect(response.status).toBe(503);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/console is not built: run `pnpm build`/);
    expect(health.status).toBe(200);
  });

  it("when the API runs from its sources with no HUB_CONSOLE_DIR, then it looks for the console's build in apps/console/dist", () => {
    expect(resolveConsoleDir(undefined)).toBe(path.join(REPO_ROOT, "apps", "console", "dist"));
    expect(resolveConsoleDir("relative/dir")).toBe(path.resolve("relative/dir"));
  });

  it("when something other than GET is sent to /console, then 404 as for any unknown route", async () => {
    const response = await fetch(`${hub.api.url}/console`, { method: "POST" });

    expect(response.status).toBe(404);
  });

  it("when the hub's root is opened, then 302 to /console", async () => {
    const response = await fetch(`${hub.api.url}/`, { redirect: "manual" });

    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/console");
  });
});
