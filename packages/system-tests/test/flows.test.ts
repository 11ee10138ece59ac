/**
 * System test of CONTRACT §6.16 against real processes: two API processes, two dispatchers and a
 * relay; flows of three exports and a consolidation waiting for them, reference workers on every
 * API. One API and one dispatcher are SIGKILLed while dependencies finish and replaced by new ones;
 * the killed API's jobs come back when their leases lapse, and a release it committed without
 * offering is offered by the dispatchers' reconciler. Afterwards every job completed once
 * (auditJobs), and every consolidation started after each of its exports finished.
 */
import { describe, expect, it } from "vitest";
import { auditJobs, CompletionLedger, eventually, sleep } from "@hub/testing";
import { DRAIN_TIMEOUT_MS, SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { startWorker, useSystemHub, type RunningWorker, type SystemAutomation } from "./system-hub";

const system = useSystemHub({ apis: 2, dispatchers: 2, relays: 1, env: { HUB_JOB_LEASE_SECONDS: "3" } });
const FLOWS = 30;
const RETRIES = { max_attempts: 5, retry_backoff_seconds: 0 };

describe("flows across processes", () => {
  it(
    "when an API process and a dispatcher are SIGKILLed while dependencies finish, then every consolidation runs once, after its exports, and nothing is lost or doubled",
    async () => {
      const hub = system();
      const exports = await hub.createAutomationWithWorker({ maxConcurrentJobs: 6, settings: RETRIES });
      const consolidate = await hub.createAutomationWithWorker({ maxConcurrentJobs: 3, settings: RETRIES });
      const automationIds = [exports.automationId, consolidate.automationId];
      const ledger = new CompletionLedger();
      const flows: Array<{ exports: string[]; consolidation: string }> = [];
      for (let flow = 0; flow < FLOWS; flow += 1) {
        const created = await hub.client.post<{ ids: string[] }>(
          "/jobs/batch",
          {
            jobs: [
              ...["fr", "de", "it"].map((country) => ({ automation_id: exports.automationId, context: { country, flow: String(flow) } })),
              { automation_id: consolidate.automationId, context: { flow: String(flow) }, depends_on: [0, 1, 2] },
            ],
          },
          { token: hub.adminToken },
        );
        expect(created.status).toBe(201);
        flows.push({ exports: created.body.ids.slice(0, 3), consolidation: created.body.ids[3]! });
      }

      const workersOn = (url: string): RunningWorker[] =>
        [exports, consolidate].map((automation: SystemAutomation) =>
          startWorker(automation, { concurrency: 2, workMs: [10, 40], ledger, waitSeconds: 1, url }),
        );
      const workers = hub.processes.apiUrls.map(workersOn);

      await eventually(
        "a third of the consolidations to be released",
        () => hub.statusCounts([consolidate.automationId]),
        (counts) => (counts.running ?? 0) + (counts.completed ?? 0) >= FLOWS / 3,
      );
      expect(await hub.processes.apis[1]!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
      expect(await hub.processes.dispatchers[1]!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
      const orphans = workers[1]!;
      const replacement = await hub.processes.addApi();
      await hub.processes.addDispatcher();
      workers.push(workersOn(replacement.url));
      await Promise.race([Promise.all(orphans.map((worker) => worker.stop())), sleep(5000)]);

      await eventually(
        "every job to complete",
        () => hub.statusCounts(automationIds),
        (counts) => counts.completed === FLOWS * 4,
        DRAIN_TIMEOUT_MS,
      );
      await Promise.all(workers.filter((set) => set !== orphans).flatMap((set) => set.map((worker) => worker.stop())));

      const unanswered = new Set<string>();
      for (const worker of orphans) {
        const heardBack = new Set(
          worker.events.flatMap((event) => ("jobId" in event ? [event.jobId] : event.type !== "claimed" && "job" in event ? [event.job.id] : [])),
        );
        for (const event of worker.events) if (event.type === "claimed" && !heardBack.has(event.job.id)) unanswered.add(event.job.id);
      }
      const audit = await auditJobs(hub.database, { automationIds, ledger, unanswered });
      expect(audit.violations).toEqual([]);
      expect(audit.byStatus).toEqual({ completed: FLOWS * 4 });

      // Each consolidation's every start came after each of its exports' finish: by insertion position, which a
      // start takes after the claim saw the release, which committed with the finish.
      const { rows } = await hub.database.pool.query<{ id: string; early: number }>(
        `select c.id, count(*)::int as early
         from jobs c cross join lateral unnest(c.depends_on) as d(id)
         join events started on started.aggregate_id = c.id and started.event_type = 'job.started'
         join events done on done.aggregate_id = d.id and done.event_type = 'job.completed'
         where c.automation_id = $1 and started.position < done.position
         group by c.id`,
        [consolidate.automationId],
      );
      expect(rows).toEqual([]);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
