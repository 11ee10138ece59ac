/**
 * A worker's calls about a job it holds, and the lease sweeper, against the real database: the
 * lease fence refuses anyone but the holder and changes nothing then; each change writes its
 * event with the catalogue's payload in the same statement.
 */
import { EVERYWHERE } from "../../reach";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { jobs, schema } from "../../index";
import { catalogueCheckedEvents, stageAutomation, useTestDatabase, type StagedAutomation } from "../../test-kit";

const hub = useTestDatabase();
const LEASE_SECONDS = 60;

/** A job of `subject`, created and claimed by its worker: running under a lease, attempt 1. */
async function runningJob(subject: StagedAutomation): Promise<string> {
  const created = await jobs.insert(hub().pool, EVERYWHERE, subject.userId, { automationId: subject.automationId, context: {} });
  if (created.kind !== "created") throw new Error(`job not created: ${created.kind}`);
  const claim = await jobs.claim(hub().pool, {
    automationId: subject.automationId,
    workerId: subject.worker.id,
    maxJobs: 1,
    leaseSeconds: LEASE_SECONDS,
    candidateIds: [],
  });
  if (claim.kind !== "claimed") throw new Error(`job not claimed: ${claim.kind}`);
  return claim.jobs[0]!.id;
}

const eventTypesOf = async (jobId: string) => (await catalogueCheckedEvents(hub(), jobId)).map((event) => event.eventType);

describe("jobs.complete", () => {
  it("when the lease holder completes, then the result is recorded once with job.completed; a second complete is refused and changes nothing", async () => {
    const subject = await stageAutomation(hub());
    const jobId = await runningJob(subject);

    const first = await jobs.complete(hub().pool, jobId, subject.worker, { rows: 42 });
    const second = await jobs.complete(hub().pool, jobId, subject.worker, { rows: 0 });

    expect(first).toMatchObject({ ok: true, job: { id: jobId, status: "completed", result: { rows: 42 }, leaseExpiresAt: null } });
    expect(second).toEqual({ ok: false, refusal: "not_leased" });
    expect(await jobs.find(hub().pool, EVERYWHERE, jobId)).toMatchObject({ status: "completed", result: { rows: 42 } });
    const events = await catalogueCheckedEvents(hub(), jobId);
    expect(events.map((event) => event.eventType)).toEqual(["job.created", "job.started", "job.completed"]);
    expect(events[2]!.payload).toEqual({ automation_id: subject.automationId, worker_id: subject.worker.id, result: { rows: 42 } });
  });

  it("when another automation's worker or a stale attempt completes, then it is refused (not_found, not_leased) and the job keeps running", async () => {
    const subject = await stageAutomation(hub());
    const stranger = await stageAutomation(hub());
    const jobId = await runningJob(subject);

    const byStranger = await jobs.complete(hub().pool, jobId, stranger.worker, {});
    const staleAttempt = await jobs.complete(hub().pool, jobId, { ...subject.worker, attempt: 2 }, {});

    expect(byStranger).toEqual({ ok: false, refusal: "not_found" });
    expect(staleAttempt).toEqual({ ok: false, refusal: "not_leased" });
    expect(await jobs.find(hub().pool, EVERYWHERE, jobId)).toMatchObject({ status: "running", result: null });
    expect(await eventTypesOf(jobId)).toEqual(["job.created", "job.started"]);
  });
});

describe("extendLease", () => {
  it("when the holder heartbeats, then the lease runs leaseSeconds from now, later than before", async () => {
    const subject = await stageAutomation(hub());
    const jobId = await runningJob(subject);
    const before = (await jobs.find(hub().pool, EVERYWHERE, jobId))!.leaseExpiresAt!;

    const extended = await jobs.extendLease(hub().pool, jobId, subject.worker, LEASE_SECONDS * 2);

    expect(extended.ok).toBe(true);
    const after = (await jobs.find(hub().pool, EVERYWHERE, jobId))!.leaseExpiresAt!;
    expect(after.getTime()).toBeGreaterThan(before.getTime());
  });
});

describe("jobs.fail", () => {
  it("when a retryable failure has attempts left, then the job is queued again after its back-off with job.requeued; the last attempt ends failed with job.failed", async () => {
    const subject = await stageAutomation(hub(), { maxAttempts: 2, retryBackoffSeconds: 0 });
    const jobId = await runningJob(subject);

    const firstFailure = await jobs.fail(hub().pool, jobId, subject.worker, { error: "upstream down", retryable: true, maxAttempts: 3 });
    await jobs.claim(hub().pool, {
      automationId: subject.automationId,
      workerId: subject.worker.id,
      maxJobs: 1,
      leaseSeconds: LEASE_SECONDS,
      candidateIds: [],
    });
    const lastFailure = await jobs.fail(hub().pool, jobId, subject.worker, { error: "still down", retryable: true, maxAttempts: 3 });

    expect(firstFailure).toMatchObject({ ok: true, requeued: true, job: { status: "queued", attempts: 1, error: "upstream down", workerId: null } });
    expect(lastFailure).toMatchObject({ ok: true, requeued: false, job: { status: "failed", attempts: 2, error: "still down" } });
    const events = await catalogueCheckedEvents(hub(), jobId);
    expect(events.map((event) => event.eventType)).toEqual(["job.created", "job.started", "job.requeued", "job.started", "job.failed"]);
    expect(events[2]!.payload).toMatchObject({ automation_id: subject.automationId, reason: "retryable_failure", attempts: 1 });
    expect(events[4]!.payload).toEqual({ automation_id: subject.automationId, error: "still down", attempts: 2 });
  });

  it("when the failure is not retryable, then the job fails at once, whatever attempts remain", async () => {
    const subject = await stageAutomation(hub(), { maxAttempts: 5 });
    const jobId = await runningJob(subject);

    const failed = await jobs.fail(hub().pool, jobId, subject.worker, { error: "bad input", retryable: false, maxAttempts: 3 });

    expect(failed).toMatchObject({ ok: true, requeued: false, job: { status: "failed", attempts: 1 } });
  });
});

describe("expireLapsedLeases", () => {
  it("when a lease lapses, then the sweep re-queues the job with reason lease_expired; once its attempts are used, it fails", async () => {
    const subject = await stageAutomation(hub(), { maxAttempts: 2, retryBackoffSeconds: 0 });
    const jobId = await runningJob(subject);
    const lapse = () =>
      hub()
        .db.update(schema.jobs)
        .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(schema.jobs.id, jobId));

    await lapse();
    const firstSweep = await jobs.expireLapsedLeases(hub().pool, { maxAttempts: 3, batchSize: 100 });
    await jobs.claim(hub().pool, {
      automationId: subject.automationId,
      workerId: subject.worker.id,
      maxJobs: 1,
      leaseSeconds: LEASE_SECONDS,
      candidateIds: [],
    });
    await lapse();
    const secondSweep = await jobs.expireLapsedLeases(hub().pool, { maxAttempts: 3, batchSize: 100 });

    expect(firstSweep.requeued.map((job) => job.id)).toContain(jobId);
    expect(secondSweep.failed.map((job) => job.id)).toContain(jobId);
    expect(await jobs.find(hub().pool, EVERYWHERE, jobId)).toMatchObject({ status: "failed", attempts: 2 });
    const events = await catalogueCheckedEvents(hub(), jobId);
    expect(events.find((event) => event.eventType === "job.requeued")?.payload).toMatchObject({ reason: "lease_expired", attempts: 1 });
    expect(await jobs.complete(hub().pool, jobId, subject.worker, {})).toEqual({ ok: false, refusal: "not_leased" });
  });

  it("when a lease has not lapsed, then the sweep leaves the job running", async () => {
    const subject = await stageAutomation(hub());
    const jobId = await runningJob(subject);

    const swept = await jobs.expireLapsedLeases(hub().pool, { maxAttempts: 3, batchSize: 100 });

    expect([...swept.requeued, ...swept.failed].map((job) => job.id)).not.toContain(jobId);
    expect(await jobs.find(hub().pool, EVERYWHERE, jobId)).toMatchObject({ status: "running" });
  });
});

describe("expireOverdue", () => {
  it("when one job's lease lapsed and another ran past its timeout, then one statement ends both, each with its own reason, error and event", async () => {
    const subject = await stageAutomation(hub(), { maxAttempts: 3, retryBackoffSeconds: 0, maxConcurrentJobs: 3 });
    const lapsedId = await runningJob(subject);
    const timedOutId = await runningJob(subject);
    const runningId = await runningJob(subject);
    await hub().db.update(schema.automations).set({ timeoutSeconds: 60 }).where(eq(schema.automations.id, subject.automationId));
    await hub()
      .db.update(schema.jobs)
      .set({ leaseExpiresAt: sql`now() - interval '1 second'` })
      .where(eq(schema.jobs.id, lapsedId));
    await hub()
      .db.update(schema.jobs)
      .set({ startedAt: sql`now() - interval '2 minutes'` })
      .where(eq(schema.jobs.id, timedOutId));

    const swept = await jobs.expireOverdue(hub().pool, { maxAttempts: 3, batchSize: 100 });

    expect(swept.leases.requeued.map((job) => job.id)).toEqual([lapsedId]);
    expect(swept.timeouts.requeued.map((job) => job.id)).toEqual([timedOutId]);
    expect([...swept.leases.failed, ...swept.timeouts.failed]).toEqual([]);
    expect(await jobs.find(hub().pool, EVERYWHERE, timedOutId)).toMatchObject({ status: "queued", error: "timeout" });
    expect(await jobs.find(hub().pool, EVERYWHERE, runningId)).toMatchObject({ status: "running" });
    const reasonOf = async (jobId: string) => (await catalogueCheckedEvents(hub(), jobId)).find((event) => event.eventType === "job.requeued")?.payload;
    expect(await reasonOf(lapsedId)).toMatchObject({ reason: "lease_expired", attempts: 1 });
    expect(await reasonOf(timedOutId)).toMatchObject({ reason: "timeout", attempts: 1 });
  });

  it("when a job both lapsed and ran past its timeout, then it ends once, as a lapsed lease", async () => {
    const subject = await stageAutomation(hub(), { maxAttempts: 1 });
    const jobId = await runningJob(subject);
    await hub().db.update(schema.automations).set({ timeoutSeconds: 60 }).where(eq(schema.automations.id, subject.automationId));
    await hub()
      .db.update(schema.jobs)
      .set({ leaseExpiresAt: sql`now() - interval '1 second'`, startedAt: sql`now() - interval '2 minutes'` })
      .where(eq(schema.jobs.id, jobId));

    const swept = await jobs.expireOverdue(hub().pool, { maxAttempts: 3, batchSize: 100 });

    expect(swept.leases.failed.map((job) => job.id)).toEqual([jobId]);
    expect([...swept.timeouts.requeued, ...swept.timeouts.failed]).toEqual([]);
    expect(await jobs.find(hub().pool, EVERYWHERE, jobId)).toMatchObject({ status: "failed", error: "lease expired" });
    expect((await eventTypesOf(jobId)).filter((type) => type === "job.failed")).toHaveLength(1);
  });
});
