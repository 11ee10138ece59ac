/**
 * The package as users install it: built, `pnpm pack`ed and installed into a project outside the
 * workspace, then used from there against a live hub — the SDK from a script, `hub-worker` from
 * node_modules/.bin.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packAndInstall, type InstalledPackage } from "@hub/testing";
import { keyFile, PACKAGE_DIR, REPO_ROOT, startCli } from "./cli-process";
import { createJob, newAutomation, readJob, startHubWithDispatcher, waitFor, type DispatchingHub } from "./support";

const run = promisify(execFile);
let hub: DispatchingHub;
let installed: InstalledPackage;

beforeAll(async () => {
  [hub, installed] = await Promise.all([startHubWithDispatcher(), packAndInstall(PACKAGE_DIR, "@hub/worker")]);
}, 180_000);

afterAll(async () => {
  installed?.remove();
  await hub?.stop();
});

describe("@hub/worker packed and installed outside the workspace", () => {
  it("when installed, then it ships compiled JavaScript, declarations and README, and names real versions", () => {
    const manifest = JSON.parse(readFileSync(path.join(installed.packageDir, "package.json"), "utf8"));

    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", default: "./dist/index.js" });
    expect(manifest.bin).toEqual({ "hub-worker": "./dist/cli.js" });
    expect(JSON.stringify(manifest.dependencies)).not.toMatch(/workspace:|catalog:/);
    expect(readFileSync(path.join(installed.packageDir, "dist/index.d.ts"), "utf8")).toContain("createWorker");
    expect(readFileSync(path.join(installed.packageDir, "README.md"), "utf8")).toContain("# @hub/worker");
  });

  it("when a script imports createWorker from it, then the worker completes a job of a live hub", async () => {
    const { automationId, workerKey } = await newAutomation(hub);
    const jobId = await createJob(hub, automationId, hub.adminToken, { n: 21 });
    writeFileSync(
      path.join(installed.projectDir, "worker.mjs"),
      `import { createWorker } from "@hub/worker";
const worker = createWorker({
  url: process.env.HUB_URL,
  apiKey: process.env.HUB_WORKER_API_KEY,
  waitSeconds: 1,
  handler: async (job) => ({ answer: job.context.n * 2 }),
  onEvent: (event) => event.type === "completed" && worker.stop(),
});
await worker.run();
`,
    );

    await run(process.execPath, ["worker.mjs"], { cwd: installed.projectDir, env: { ...process.env, HUB_URL: hub.api.url, HUB_WORKER_API_KEY: workerKey } });

    expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", result: { answer: 42 } });
  });

  it("when hub-worker is run from node_modules/.bin, then it works a job with the Python example and stops on SIGTERM", async () => {
    const { automationId, workerKey } = await newAutomation(hub);
    const key = keyFile(workerKey);
    try {
      const bin = path.join(installed.projectDir, "node_modules/.bin/hub-worker");
      const script = path.join(REPO_ROOT, "examples/python-worker/worker.py");
      const cli = startCli(["--url", hub.api.url, "--api-key-file", key.path, "--wait", "1", "--", "python3", script], [bin], installed.projectDir);
      try {
        await cli.waitForLog("worker started");
        const jobId = await createJob(hub, automationId, hub.adminToken, { month: "2026-10" });
        await waitFor(async () => (await readJob(hub, jobId)).status === "completed");
        cli.child.kill("SIGTERM");

        expect(await cli.exited).toEqual({ code: 0, signal: null });
        expect(await readJob(hub, jobId)).toMatchObject({ result: { month: "2026-10", days: 31, job_id: jobId } });
      } finally {
        cli.kill();
      }
      const version = await run(bin, ["--version"]);
      expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8")).version);
    } finally {
      key.remove();
    }
  });
});
