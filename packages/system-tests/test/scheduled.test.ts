/**
 * System test of scheduled and prioritised jobs (CONTRACT §6.8) against real processes: the API and
 * two dispatchers as child processes, real PostgreSQL and Redis. Claim order across processes
 * (priority, then available_at, then creation), a job with `run_at` jumping the queue once due,
 * and a waiting worker served within a second of `run_at`.
 */
import { describe, expect, it } from "vitest";
import { sleep } from "@hub/testing";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub, type SystemAutomation, type SystemHub } from "./system-hub";

const system = useSystemHub({ dispatchers: 2 });

async function createJob(hub: SystemHub, automation: SystemAutomation, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/jobs", { automation_id: automation.automationId, ...fields }, { token: hub.adminToken });
  if (created.status !== 201) throw new Error(`POST /jobs: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** Claims (long-polling) and completes one job; returns its id. */
async function claimAndComplete(automation: SystemAutomation): Promise<string | undefined> {
  const job = await automation.worker.claim(5);
  if (job) await automation.worker.complete(job.id, { done: true });
  return job?.id;
}

describe("scheduled and prioritised jobs across processes", () => {
  it(
    "when jobs differ in priority and one waits for its run_at, then claims follow priority, then time, then creation",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 1 });
      const normal = await hub.createJobs(automation.automationId, 5, { parallel: 1 });
      const urgent = await createJob(hub, automation, { priority: 10 });
      const runAt = new Date(Date.now() + 4000);
      const scheduled = await createJob(hub, automation, { run_at: runAt.toISOString(), priority: 50 });

      const beforeItsTime = [await claimAndComplete(automation), await claimAndComplete(automation)];
      // Its time has come while four normal jobs still wait: it goes before them.
      await sleep(Math.max(0, runAt.getTime() + 500 - Date.now()));
      const afterItsTime: Array<string | undefined> = [];
      for (let index = 0; index < 5; index += 1) afterItsTime.push(await claimAndComplete(automation));

      expect(beforeItsTime).toEqual([urgent, normal[0]]);
      expect(afterItsTime).toEqual([scheduled, ...normal.slice(1)]);
      expect(await automation.worker.claim(0)).toBeNull();
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when a worker long-polls for a job whose run_at is 2 s ahead, then it gets it after run_at and within a second of it",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker();
      const runAt = new Date(Date.now() + 2000).toISOString();
      const id = await createJob(hub, automation, { run_at: runAt });

      const early = await automation.worker.claim(0);
      const job = await automation.worker.claim(10);

      expect(early).toBeNull();
      expect(job?.id).toBe(id);
      // PostgreSQL's clock on both sides.
      const lateness = new Date(job!.started_at!).getTime() - new Date(runAt).getTime();
      expect(lateness).toBeGreaterThanOrEqual(0);
      expect(lateness).toBeLessThan(1000);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
