/**
 * System test of leases against real processes: a worker that claims a job and goes silent
 * loses it when its lease lapses (the dispatcher's sweeper re-queues it), and its late result
 * is refused. Leases last 1 s here.
 */
import { describe, expect, it } from "vitest";
import { LeaseLostError } from "@hub/reference-worker";
import { auditJobs, CompletionLedger } from "./audit";
import { eventually, SYSTEM_TEST_TIMEOUT_MS, useSystemHub } from "./system-hub";

const system = useSystemHub({ env: { HUB_JOB_LEASE_SECONDS: "1" } });

describe("leases across processes", () => {
  it("when a worker claims a job and goes silent, then the job is re-queued (lease_expired) and claimed again, and the silent claim's late result is refused", async () => {
    const hub = system();
    const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 1 });
    const ledger = new CompletionLedger();
    const [jobId] = await hub.createJobs(automation.automationId, 1);

    const silent = await automation.worker.claim(10);
    expect(silent).toMatchObject({ id: jobId, status: "running", attempts: 1 });
    // No heartbeat follows: the lease lapses and the sweeper puts the job back.
    await eventually("the lapsed job to be queued again", () => hub.readJob(jobId!), (job) => job.status === "queued");
    const requeued = await hub.client.get(`/events?aggregate_id=${jobId}&event_type=job.requeued`, { token: hub.adminToken });
    expect(requeued.body).toHaveLength(1);
    expect(requeued.body[0].payload).toMatchObject({ automation_id: automation.automationId, reason: "lease_expired", attempts: 1 });
    await expect(automation.worker.complete(jobId!, { from: "the silent claim" })).rejects.toBeInstanceOf(LeaseLostError);

    const second = await automation.worker.claim(10);
    expect(second).toMatchObject({ id: jobId, status: "running", attempts: 2 });
    const result = { from: "the second claim" };
    await automation.worker.complete(jobId!, result);
    ledger.accept(jobId!, result);
    await expect(automation.worker.complete(jobId!, { from: "the silent claim" })).rejects.toBeInstanceOf(LeaseLostError);

    expect(await hub.readJob(jobId!)).toMatchObject({ status: "completed", attempts: 2, result });
    const report = await auditJobs(hub.database, { automationIds: [automation.automationId], ledger });
    expect(report.violations).toEqual([]);
  }, SYSTEM_TEST_TIMEOUT_MS);
});
