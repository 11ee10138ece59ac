/**
 * Dependencies reach the worker (CONTRACT §6.16): the SDK's handler gets `job.dependencies` with
 * every result whole, and hub-worker hands them to its command in the file HUB_JOB_DEPENDENCIES_FILE
 * names — read here by a Python script — against the real API, PostgreSQL and Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorker, type WorkerJob } from "../src/index";
import { keyFile, startCli } from "./cli-process";
import { capturingLogger, newAutomation, readJob, startHubWithDispatcher, waitFor, type DispatchingHub } from "./support";

let hub: DispatchingHub;

beforeAll(async () => {
  hub = await startHubWithDispatcher();
});

afterAll(async () => {
  await hub?.stop();
});

/** Creates an export job per result and a job of `consolidate` depending on all of them; completes the exports as given. */
async function exportsThen(consolidateAutomationId: string, results: Array<Record<string, unknown>>): Promise<{ exportIds: string[]; consolidateId: string }> {
  const exporter = await newAutomation(hub, { max_concurrent_jobs: results.length });
  const created = await hub.client.post<{ ids: string[] }>(
    "/jobs/batch",
    {
      jobs: [
        ...results.map((_, index) => ({ automation_id: exporter.automationId, context: { part: String(index) } })),
        { automation_id: consolidateAutomationId, context: { month: "2026-11" }, depends_on: results.map((_, index) => index) },
      ],
    },
    { token: hub.adminToken },
  );
  expect(created.status).toBe(201);
  const exportIds = created.body.ids.slice(0, results.length);
  for (const _ of results) {
    const claimed = await hub.client.post<{ id: string; context: { part: string } }>("/jobs/claim", { wait_seconds: 5 }, { workerKey: exporter.workerKey });
    const result = results[Number(claimed.body.context.part)]!;
    await hub.client.post(`/jobs/${claimed.body.id}/complete`, { result }, { workerKey: exporter.workerKey });
  }
  return { exportIds, consolidateId: created.body.ids.at(-1)! };
}

describe("dependencies in the worker", () => {
  it("when a job has dependencies whose results pass the claim's cap, then the handler still gets every result whole, in depends_on order", async () => {
    const consolidate = await newAutomation(hub);
    // Five results of 230 KiB (a result is at most 256 KiB): the fifth passes the 1 MiB a claim carries.
    const big = (letter: string) => ({ text: letter.repeat(230 * 1024) });
    const letters = ["a", "b", "c", "d", "e"];
    const { exportIds, consolidateId } = await exportsThen(consolidate.automationId, letters.map(big));
    const seen: WorkerJob[] = [];
    const worker = createWorker({
      url: hub.api.url,
      apiKey: consolidate.workerKey,
      logger: capturingLogger().logger,
      handleSignals: false,
      waitSeconds: 1,
      handler: async (job) => {
        seen.push(job);
        return { parts: job.dependencies.length };
      },
    });
    const running = worker.run();
    await waitFor(async () => (await readJob(hub, consolidateId)).status === "completed", { timeoutMs: 15_000 });
    await worker.stop();
    await running;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.dependencies.map((dependency) => [dependency.id, dependency.status, dependency.result, dependency.result_omitted])).toEqual(
      letters.map((letter, index) => [exportIds[index], "completed", big(letter), undefined]),
    );
  });

  it("when hub-worker runs a Python command for a job with dependencies, then the command reads them from HUB_JOB_DEPENDENCIES_FILE", async () => {
    const consolidate = await newAutomation(hub);
    const script = [
      "import json, os, sys",
      "context = json.load(sys.stdin)",
      "dependencies = json.load(open(os.environ['HUB_JOB_DEPENDENCIES_FILE']))",
      "rows = sum(d['result']['rows'] for d in dependencies if d['status'] == 'completed')",
      "print(json.dumps({'month': context['month'], 'rows': rows, 'ids': [d['id'] for d in dependencies]}))",
    ].join("\n");
    const key = keyFile(consolidate.workerKey);
    const cli = startCli(["--url", hub.api.url, "--api-key-file", key.path, "--wait", "1", "--", "python3", "-c", script]);
    try {
      await cli.waitForLog("worker started");
      const { exportIds, consolidateId } = await exportsThen(consolidate.automationId, [{ rows: 3 }, { rows: 4 }]);
      await waitFor(async () => ["completed", "failed"].includes((await readJob(hub, consolidateId)).status), { timeoutMs: 30_000 });
      expect(await readJob(hub, consolidateId)).toMatchObject({ status: "completed", result: { month: "2026-11", rows: 7, ids: exportIds } });
    } finally {
      cli.kill();
      key.remove();
    }
  });
});
