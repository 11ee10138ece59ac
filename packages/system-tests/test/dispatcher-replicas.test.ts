/**
 * System test of dispatcher replicas: three dispatchers share the work, one is SIGKILLed while
 * jobs flow, and nothing is lost or duplicated (its unfinished offers are re-delivered by BullMQ
 * or re-offered by a surviving replica's reconciler).
 */
import { describe, expect, it } from "vitest";
import { auditJobs, CompletionLedger, ConcurrencySampler, eventually, readMetric } from "@hub/testing";
import { DRAIN_TIMEOUT_MS, SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { startWorker, useSystemHub } from "./system-hub";

const system = useSystemHub({ dispatchers: 3 });

describe("dispatcher replicas", () => {
  it(
    "when one of three dispatchers is SIGKILLed while jobs flow, then every job completes exactly once",
    async () => {
      const hub = system();
      const automations = await Promise.all([1, 2].map(() => hub.createAutomationWithWorker({ maxConcurrentJobs: 4 })));
      const automationIds = automations.map((automation) => automation.automationId);
      const ledger = new CompletionLedger();
      const sampler = new ConcurrencySampler(hub.database).start();
      const workers = automations.map((automation) => startWorker(automation, { concurrency: 6, workMs: [5, 30], ledger }));

      const creating = Promise.all(automations.map((automation) => hub.createJobs(automation.automationId, 150, { parallel: 3 })));
      await eventually(
        "a third of the jobs to be created",
        () => hub.statusCounts(automationIds),
        (counts) => total(counts) >= 100,
      );
      const victim = hub.processes.dispatchers[1]!;
      // It takes its share of the work, so killing it matters.
      const victimOffers = () => readMetric(hub.processes.metricsUrl(victim)!, "hub_dispatcher_jobs_offered_total", { path: "queue" });
      await eventually("the victim to have offered jobs", victimOffers, (offered) => offered > 0);
      expect(await victim.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
      await creating;
      await eventually(
        "all 300 jobs to complete",
        () => hub.statusCounts(automationIds),
        (counts) => counts.completed === 300,
        DRAIN_TIMEOUT_MS,
      );
      await Promise.all(workers.map((worker) => worker.stop()));
      await sampler.stop();

      const report = await auditJobs(hub.database, { automationIds, ledger, sampler });
      expect(report.violations).toEqual([]);
      expect(report.byStatus).toEqual({ completed: 300 });
      expect(ledger.acceptedCount).toBe(300);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});

function total(counts: Partial<Record<string, number>>): number {
  return Object.values(counts).reduce<number>((sum, count) => sum + (count ?? 0), 0);
}
