/**
 * System tests of clean shutdown: SIGTERM ends a long-polling claim at once (204) and the API
 * exits 0; a dispatcher stopped with SIGTERM exits 0 and strands nothing. The periodic
 * reconciliation is off here, so a job whose offer a stopping dispatcher dropped would stay
 * queued forever and fail the test.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { auditJobs, CompletionLedger, ConcurrencySampler, eventually, ManagedProcess, nodeEntryPoint, readMetric } from "@hub/testing";
import { DRAIN_TIMEOUT_MS, SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { startWorker, useSystemHub } from "./system-hub";

const system = useSystemHub({ dispatchers: 2, dispatcherEnv: { HUB_RECONCILE_INTERVAL_MS: "3600000" } });

describe("clean shutdown", () => {
  it(
    "when the API gets SIGTERM while a claim long-polls, then the claim answers 204 before its wait ends and the API exits 0",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker();
      const apiMetrics = hub.processes.metricsUrl(hub.processes.api)!;
      const startedAt = Date.now();

      const claim = automation.worker.claim(30);
      await eventually(
        "the claim to be long-polling",
        () => readMetric(apiMetrics, "hub_job_claims_waiting"),
        (waiting) => waiting === 1,
      );
      const exit = await hub.processes.api.kill("SIGTERM");

      // null is the client's reading of 204; a dropped connection would throw instead.
      expect(await claim).toBeNull();
      expect(exit).toEqual({ code: 0, signal: null });
      // Answered at shutdown, not when its own 30 s wait ran out.
      expect(Date.now() - startedAt).toBeLessThan(20_000);
      await hub.processes.api.restart();
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when a dispatcher gets SIGTERM while jobs flow, then it exits 0 and every job still completes exactly once",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 4 });
      const automationIds = [automation.automationId];
      const ledger = new CompletionLedger();
      const sampler = new ConcurrencySampler(hub.database).start();
      const worker = startWorker(automation, { concurrency: 4, workMs: [5, 30], ledger });

      const creating = hub.createJobs(automation.automationId, 200, { parallel: 4 });
      await eventually(
        "40 jobs to complete",
        () => hub.statusCounts(automationIds),
        (counts) => (counts.completed ?? 0) >= 40,
      );
      expect(await hub.processes.dispatchers[0]!.kill("SIGTERM")).toEqual({ code: 0, signal: null });
      await creating;
      await eventually(
        "all 200 jobs to complete",
        () => hub.statusCounts(automationIds),
        (counts) => counts.completed === 200,
        DRAIN_TIMEOUT_MS,
      );
      await worker.stop();
      await sampler.stop();

      const report = await auditJobs(hub.database, { automationIds, ledger, sampler });
      expect(report.violations).toEqual([]);
      expect(report.byStatus).toEqual({ completed: 200 });
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});

describe("the reference worker", () => {
  it(
    "when the reference worker gets SIGTERM with jobs in hand, then it finishes and reports them, claims no more, and exits 0",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 3 });
      const automationIds = [automation.automationId];
      const jobIds = await hub.createJobs(automation.automationId, 3);
      const worker = new ManagedProcess({
        name: "reference-worker",
        ...nodeEntryPoint("examples/reference-worker/src/main.ts"),
        env: {
          HUB_URL: hub.processes.apiUrl,
          HUB_WORKER_API_KEY: automation.workerKey,
          // One slot more than there are jobs: it is long-polling when SIGTERM arrives.
          HUB_WORKER_CONCURRENCY: "4",
          HUB_WORKER_WAIT_SECONDS: "5",
          HUB_WORKER_WORK_MS: "2000",
        },
        logFile: path.join(hub.processes.logDir, "reference-worker.log"),
        readiness: { kind: "log", pattern: /"msg":"worker started"/ },
      });
      await worker.start();
      try {
        // In hand = the worker read the claim's answer (its log says so), not merely claimed in
        // PostgreSQL: a claim answered just as the worker aborts it is lost until its lease lapses.
        const claimedInLog = () =>
          worker
            .output()
            .split("\n")
            .filter((line) => line.includes('"msg":"job claimed"')).length;
        await eventually(
          "the worker to hold all 3 jobs",
          async () => claimedInLog(),
          (claimed) => claimed === 3,
        );
        await worker.signal("SIGTERM");
        await eventually(
          "the worker to begin stopping",
          async () => worker.output(),
          (output) => output.includes('"msg":"stopping: finishing the jobs in hand"'),
        );
        // A job that turns up while the jobs in hand are finishing is left for another worker.
        await hub.createJobs(automation.automationId, 1);
        const exit = await worker.waitForExit();

        expect(exit).toEqual({ code: 0, signal: null });
        expect(await hub.statusCounts(automationIds)).toEqual({ completed: 3, queued: 1 });
        const completedInLog = worker
          .output()
          .split("\n")
          .filter((line) => line.includes('"msg":"job completed"'))
          .map((line) => JSON.parse(line).job_id);
        expect(completedInLog.sort()).toEqual([...jobIds].sort());
        expect(worker.output()).not.toContain(automation.workerKey);
        const report = await auditJobs(hub.database, { automationIds });
        expect(report.violations).toEqual([]);
      } finally {
        await worker.stop();
      }
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
