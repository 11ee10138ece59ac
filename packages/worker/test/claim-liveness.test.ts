/**
 * The SDK's overlapping long-polls (concurrency 2, waitSeconds 1) never wedge an automation: the
 * sequence that once left a due job unclaimed for good (development mode, jobs cancelled in bulk,
 * development mode ended, a new job) ends with the job done. The rule is the API's
 * (apps/api/src/worker-protocol/long-poll.ts); this is the same sequence through the SDK.
 */
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorker } from "../src/index";
import { createJob, newAutomation, sleep, startHubWithDispatcher, waitFor, type DispatchingHub } from "./support";

let hub: DispatchingHub;
beforeAll(async () => {
  hub = await startHubWithDispatcher();
});
afterAll(async () => {
  await hub?.stop();
});

describe("createWorker with overlapping short long-polls", () => {
  it("when development mode ends after its jobs were cancelled, then the next job is worked", async () => {
    const { automationId, workerKey } = await newAutomation(hub, { max_concurrent_jobs: 2 });
    const done: string[] = [];
    const worker = createWorker({
      url: hub.api.url,
      apiKey: workerKey,
      handleSignals: false,
      logger: pino({ level: "silent" }),
      waitSeconds: 1,
      concurrency: 2,
      handler: async () => ({}),
      onEvent: (event) => {
        if (event.type === "completed") done.push(event.job.id);
      },
    });
    const running = worker.run();
    try {
      await hub.client.post(`/automations/${automationId}/development-mode`, undefined, { token: hub.adminToken });
      for (let i = 0; i < 3; i++) await createJob(hub, automationId);
      await sleep(1200);
      expect((await hub.client.post("/jobs/bulk-cancel", { automation_id: automationId }, { token: hub.adminToken })).status).toBe(200);
      await hub.client.delete(`/automations/${automationId}/development-mode`, { token: hub.adminToken });
      await sleep(1200);

      const jobId = await createJob(hub, automationId);

      // A liveness bound (a wedged automation never works it), not a speed target.
      await waitFor(async () => done.includes(jobId), { timeoutMs: 4000, intervalMs: 20 });
      expect(done).toEqual([jobId]);
    } finally {
      await worker.stop();
      await running;
    }
  });
});
