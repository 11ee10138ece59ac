/**
 * System tests of claims against real processes (API + dispatcher as child processes, real
 * PostgreSQL and Redis): the concurrency limit under many concurrent claims, the fence on late
 * results, and the development-mode pause.
 */
import { describe, expect, it } from "vitest";
import { LeaseLostError } from "@hub/worker";
import { createRedis } from "@hub/shared";
import { auditJobs, CompletionLedger, ConcurrencySampler, eventually } from "@hub/testing";
import { DRAIN_TIMEOUT_MS, SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { startWorker, useSystemHub } from "./system-hub";

const system = useSystemHub({ dispatchers: 1 });

describe("claims across processes", () => {
  it(
    "when two automations with a limit of 3 get 200 jobs and 10 claim loops each, then never more than 3 run at once and all complete",
    async () => {
      const hub = system();
      const automations = await Promise.all([1, 2].map(() => hub.createAutomationWithWorker({ maxConcurrentJobs: 3 })));
      const automationIds = automations.map((automation) => automation.automationId);
      const ledger = new CompletionLedger();
      const sampler = new ConcurrencySampler(hub.database).start();
      // Half the jobs wait before the claim loops start (so they contend for the 3 slots from the
      // first moment); the other half arrive while they run.
      await Promise.all(automations.map((automation) => hub.createJobs(automation.automationId, 50, { parallel: 4 })));
      const workers = automations.map((automation) => startWorker(automation, { concurrency: 10, workMs: [5, 40], ledger }));
      await Promise.all(automations.map((automation) => hub.createJobs(automation.automationId, 50, { parallel: 4 })));
      await eventually(
        "all 200 jobs to complete",
        () => hub.statusCounts(automationIds),
        (counts) => counts.completed === 200,
        DRAIN_TIMEOUT_MS,
      );
      await Promise.all(workers.map((worker) => worker.stop()));
      await sampler.stop();

      const report = await auditJobs(hub.database, { automationIds, ledger, sampler });
      expect(report.violations).toEqual([]);
      expect(report.byStatus).toEqual({ completed: 200 });
      expect(ledger.acceptedCount).toBe(200);
      // The limit was reached (so the test exercised it) and never exceeded.
      for (const automationId of automationIds) expect(report.peakRunningByEvents[automationId]).toBe(3);
      expect(Math.max(...Object.values(report.peakRunningSampled))).toBeLessThanOrEqual(3);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when a late result arrives after a cancel or after the completion, then it is refused with 409 and the recorded outcome stands",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 2 });
      const ledger = new CompletionLedger();
      const [cancelledId, completedId] = await hub.createJobs(automation.automationId, 2, { parallel: 1 });

      // Cancelled while running: the worker's heartbeat and result are refused.
      expect((await automation.worker.claim(10))?.id).toBe(cancelledId);
      const cancel = await hub.client.post(`/jobs/${cancelledId}/cancel`, undefined, { token: hub.adminToken });
      expect(cancel.status).toBe(200);
      await expect(automation.worker.heartbeat(cancelledId!)).rejects.toMatchObject({ status: 409 });
      await expect(automation.worker.complete(cancelledId!, { too: "late" })).rejects.toBeInstanceOf(LeaseLostError);
      await expect(automation.worker.fail(cancelledId!, { error: "too late" })).rejects.toMatchObject({ status: 409 });

      // Completed: of ten concurrent results exactly one is accepted; later ones are refused.
      expect((await automation.worker.claim(10))?.id).toBe(completedId);
      const racing = await Promise.allSettled(Array.from({ length: 10 }, (_, attempt) => automation.worker.complete(completedId!, { attempt })));
      racing.forEach((outcome, attempt) => {
        if (outcome.status === "fulfilled") ledger.accept(completedId!, { attempt });
        else expect(outcome.reason).toBeInstanceOf(LeaseLostError);
      });
      await expect(automation.worker.complete(completedId!, { attempt: "after" })).rejects.toBeInstanceOf(LeaseLostError);
      await expect(automation.worker.fail(completedId!, { error: "after", retryable: true })).rejects.toMatchObject({ status: 409 });

      expect(ledger.accepted.get(completedId!)).toHaveLength(1);
      expect(await hub.readJob(cancelledId!)).toMatchObject({ status: "cancelled", result: null });
      expect(await hub.readJob(completedId!)).toMatchObject({ status: "completed", result: ledger.accepted.get(completedId!)![0] });
      const report = await auditJobs(hub.database, { automationIds: [automation.automationId], ledger });
      expect(report.violations).toEqual([]);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when an automation is in development mode, then claims get 204 while its jobs wait, and leaving it releases them in creation order",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 5 });
      const ledger = new CompletionLedger();
      const asAdmin = { token: hub.adminToken };
      expect((await hub.client.post(`/automations/${automation.automationId}/development-mode`, undefined, asAdmin)).status).toBe(204);
      const jobIds = await hub.createJobs(automation.automationId, 5, { parallel: 1 });
      // The dispatcher offered them (they are claimable as far as Redis knows); PostgreSQL says no.
      const redis = createRedis(hub.processes.env.REDIS_URL!, "system-test-probe");
      try {
        await eventually(
          "the dispatcher to offer the 5 jobs",
          () => redis.zcard(hub.keys.readyJobs(automation.automationId)),
          (count) => count === 5,
        );
      } finally {
        redis.disconnect();
      }

      // null is the client's reading of 204 (any other answer throws).
      const whilePaused = await automation.worker.claim(1);
      const waiting = automation.worker.claim(20);
      expect(whilePaused).toBeNull();
      expect(await hub.statusCounts([automation.automationId])).toEqual({ queued: 5 });
      expect((await hub.client.delete(`/automations/${automation.automationId}/development-mode`, asAdmin)).status).toBe(204);

      const released = [await waiting];
      for (let claimed = 1; claimed < jobIds.length; claimed += 1) released.push(await automation.worker.claim(5));
      expect(released.map((job) => job?.id)).toEqual(jobIds);
      for (const job of released) {
        const result = { order: job!.context.index };
        await automation.worker.complete(job!.id, result);
        ledger.accept(job!.id, result);
      }

      const report = await auditJobs(hub.database, { automationIds: [automation.automationId], ledger });
      expect(report.violations).toEqual([]);
      expect(report.byStatus).toEqual({ completed: 5 });
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
