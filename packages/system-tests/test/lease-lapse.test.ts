/**
 * System test of leases against real processes: a worker that claims a job and goes silent
 * loses it when its lease lapses (the dispatcher's sweeper re-queues it), and its late result
 * is refused; the re-queued job waits out its back-off and is handed out only after it; a job
 * running past its automation's timeout is ended by the dispatcher and its slot reused. Leases
 * last 1 s here.
 */
import { describe, expect, it } from "vitest";
import { LeaseLostError } from "@hub/worker";
import { auditJobs, CompletionLedger, eventually } from "@hub/testing";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub } from "./system-hub";

const system = useSystemHub({ env: { HUB_JOB_LEASE_SECONDS: "1" } });

describe("leases across processes", () => {
  it(
    "when a worker claims a job and goes silent, then the job is re-queued (lease_expired) and claimed again after its back-off, and the silent claim's late result is refused",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 1, settings: { retry_backoff_seconds: 1 } });
      const ledger = new CompletionLedger();
      const [jobId] = await hub.createJobs(automation.automationId, 1);

      const silent = await automation.worker.claim(10);
      expect(silent).toMatchObject({ id: jobId, status: "running", attempts: 1 });
      // No heartbeat follows: the lease lapses and the sweeper puts the job back.
      await eventually(
        "the lapsed job to be queued again",
        () => hub.readJob(jobId!),
        (job) => job.status === "queued",
      );
      const requeued = await hub.client.get(`/events?aggregate_id=${jobId}&event_type=job.requeued`, { token: hub.adminToken });
      expect(requeued.body).toHaveLength(1);
      expect(requeued.body[0].payload).toMatchObject({ automation_id: automation.automationId, reason: "lease_expired", attempts: 1 });
      const availableAt = new Date(requeued.body[0].payload.available_at as string).getTime();
      await expect(automation.worker.complete(jobId!, { from: "the silent claim" })).rejects.toBeInstanceOf(LeaseLostError);

      const second = await automation.worker.claim(10);
      expect(second).toMatchObject({ id: jobId, status: "running", attempts: 2 });
      expect(new Date(second!.started_at!).getTime()).toBeGreaterThanOrEqual(availableAt);
      const result = { from: "the second claim" };
      await automation.worker.complete(jobId!, result);
      ledger.accept(jobId!, result);
      await expect(automation.worker.complete(jobId!, { from: "the silent claim" })).rejects.toBeInstanceOf(LeaseLostError);

      expect(await hub.readJob(jobId!)).toMatchObject({ status: "completed", attempts: 2, result });
      const report = await auditJobs(hub.database, { automationIds: [automation.automationId], ledger });
      expect(report.violations).toEqual([]);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );

  it(
    "when a job runs past its automation's timeout while heartbeating, then the dispatcher ends it (timeout), the next job gets the slot, and the late result is refused",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({
        maxConcurrentJobs: 1,
        settings: { timeout_seconds: 2, retry_backoff_seconds: 3600 },
      });
      const [stuck, next] = await hub.createJobs(automation.automationId, 2, { parallel: 1 });
      const claimed = await automation.worker.claim(10);
      expect(claimed).toMatchObject({ id: stuck });

      // Heartbeats keep the lease but not the job: the timeout ends it all the same.
      const heartbeats = setInterval(() => void automation.worker.heartbeat(stuck!).catch(() => undefined), 300);
      try {
        const second = await automation.worker.claim(20);
        expect(second).toMatchObject({ id: next, status: "running" });
      } finally {
        clearInterval(heartbeats);
      }

      expect(await hub.readJob(stuck!)).toMatchObject({ status: "queued", error: "timeout", attempts: 1 });
      await expect(automation.worker.complete(stuck!, { late: true })).rejects.toBeInstanceOf(LeaseLostError);
      const requeued = await hub.client.get(`/events?aggregate_id=${stuck}&event_type=job.requeued`, { token: hub.adminToken });
      expect(requeued.body[0].payload).toMatchObject({ reason: "timeout", attempts: 1 });
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
