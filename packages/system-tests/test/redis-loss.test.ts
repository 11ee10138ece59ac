/**
 * System test of Redis losing its data: the hub runs on a redis-server of its own, which is
 * flushed while jobs flow. Redis holds nothing PostgreSQL cannot rebuild: the dispatcher notices
 * the loss, re-offers every queued job, and every job completes exactly once.
 */
import { describe, expect, it } from "vitest";
import { createRedis } from "@hub/shared";
import { auditJobs, CompletionLedger, ConcurrencySampler, eventually, readMetric } from "@hub/testing";
import { DRAIN_TIMEOUT_MS, SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { startWorker, useSystemHub } from "./system-hub";

const system = useSystemHub({ privateRedis: true });

describe("Redis data loss", () => {
  it(
    "when Redis is flushed mid-run, then every queued job is offered again and completes exactly once",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 2 });
      const automationIds = [automation.automationId];
      const ledger = new CompletionLedger();
      const sampler = new ConcurrencySampler(hub.database).start();
      const redis = createRedis(hub.privateRedis!.url, "system-test-flush");
      const dispatcherMetrics = hub.processes.metricsUrl(hub.processes.dispatchers[0]!)!;
      const redisLost = () => readMetric(dispatcherMetrics, "hub_dispatcher_reconciliations_total", { trigger: "redis_lost" });
      try {
        await hub.createJobs(automation.automationId, 120);
        await eventually(
          "the 120 jobs to be offered",
          () => redis.zcard(hub.keys.readyJobs(automation.automationId)),
          (count) => count === 120,
        );
        const worker = startWorker(automation, { concurrency: 4, workMs: [10, 30], ledger });
        await eventually(
          "30 jobs to complete",
          () => hub.statusCounts(automationIds),
          (counts) => (counts.completed ?? 0) >= 30,
        );

        const lossesBefore = await redisLost();
        await redis.flushdb();
        await eventually("the dispatcher to notice the loss", redisLost, (losses) => losses > lossesBefore);
        // Jobs created after the loss travel through a BullMQ queue that was wiped under it.
        await hub.createJobs(automation.automationId, 30);
        await eventually(
          "all 150 jobs to complete",
          () => hub.statusCounts(automationIds),
          (counts) => counts.completed === 150,
          DRAIN_TIMEOUT_MS,
        );
        await worker.stop();
      } finally {
        redis.disconnect();
        await sampler.stop();
      }

      const report = await auditJobs(hub.database, { automationIds, ledger, sampler });
      expect(report.violations).toEqual([]);
      expect(report.byStatus).toEqual({ completed: 150 });
      expect(ledger.acceptedCount).toBe(150);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when Redis is flushed while a job waits out its back-off, then the reconciler puts it back and it is handed out once due, not before",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ settings: { retry_backoff_seconds: 3 } });
      const redis = createRedis(hub.privateRedis!.url, "system-test-flush-delayed");
      try {
        const [jobId] = await hub.createJobs(automation.automationId, 1);
        expect(await automation.worker.claim(10)).toMatchObject({ id: jobId });
        await automation.worker.fail(jobId!, { error: "flaky", retryable: true });
        const { rows } = await hub.database.pool.query<{ available_at: Date }>("select available_at from jobs where id = $1", [jobId]);
        const availableAt = rows[0]!.available_at.getTime();
        await eventually(
          "the job to wait in the delayed set",
          () => redis.zcard(hub.keys.delayedJobs(0)),
          (count) => count === 1,
        );

        await redis.flushdb();
        await eventually(
          "the reconciler to hold it back again",
          () => redis.zcard(hub.keys.delayedJobs(0)),
          (count) => count === 1,
        );
        expect(await redis.zcard(hub.keys.readyJobs(automation.automationId))).toBe(0);
        const reclaimed = await automation.worker.claim(10);

        expect(reclaimed).toMatchObject({ id: jobId, attempts: 2 });
        expect(new Date(reclaimed!.started_at!).getTime()).toBeGreaterThanOrEqual(availableAt);
      } finally {
        redis.disconnect();
      }
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
