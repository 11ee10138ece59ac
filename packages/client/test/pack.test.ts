/**
 * The package as users install it: `pnpm pack`ed, installed into a project outside the workspace,
 * type-checked there as a user's TypeScript would, and used against a live hub.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestHub, type TestHub } from "@hub/api/testing";
import { packAndInstall, type InstalledPackage } from "@hub/testing";

const run = promisify(execFile);
const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");
/** A user's project: ESM for Node, fetch's types from the DOM library (no @types/node installed). */
const TSC_OPTIONS = ["--module", "nodenext", "--target", "es2022", "--lib", "es2022,dom"];
let hub: TestHub;
let installed: InstalledPackage;

beforeAll(async () => {
  [hub, installed] = await Promise.all([startTestHub(), packAndInstall(PACKAGE_DIR, "@hub/client")]);
}, 180_000);

afterAll(async () => {
  installed?.remove();
  await hub?.stop();
});

const SCRIPT = `import { logIn, type Sector } from "@hub/client";

declare const process: { env: Record<string, string | undefined>; stdout: { write(text: string): void } };

const hub = await logIn(process.env.HUB_URL!, { email: process.env.HUB_EMAIL!, password: process.env.HUB_PASSWORD! });
const created = await hub.POST("/sectors", { body: { name: "Packed " + Date.now(), color: "#336699" } });
if (!created.data) throw new Error("sector not created: " + created.response.status);
const { data } = await hub.GET("/sectors/{sector_id}", { params: { path: { sector_id: created.data.id } } });
const sector: Sector | undefined = data;
process.stdout.write(JSON.stringify(sector));
`;

describe("@hub/client packed and installed outside the workspace", () => {
  it("when a user's TypeScript imports it, then it type-checks with the package's declarations, and run against a live hub it logs in, creates and reads", async () => {
    writeFileSync(path.join(installed.projectDir, "use-client.ts"), SCRIPT);
    // Type-checked strictly against the installed declarations, and compiled to JavaScript for Node 20.
    await run(process.execPath, [TSC, "--strict", ...TSC_OPTIONS, "use-client.ts"], { cwd: installed.projectDir }).catch((error: { stdout?: string }) => {
      throw new Error(`the installed package does not type-check: ${error.stdout}`);
    });

    const { stdout } = await run(process.execPath, ["use-client.js"], {
      cwd: installed.projectDir,
      env: { ...process.env, HUB_URL: hub.api.url, HUB_EMAIL: ADMIN_EMAIL, HUB_PASSWORD: ADMIN_PASSWORD },
    });

    expect(JSON.parse(stdout)).toMatchObject({ name: expect.stringMatching(/^Packed /), color: "#336699" });
    const manifest = JSON.parse(readFileSync(path.join(installed.packageDir, "package.json"), "utf8"));
    expect(JSON.stringify(manifest.dependencies)).not.toMatch(/workspace:|catalog:/);
  });
});
