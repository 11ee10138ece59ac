/**
 * jobs.completeAndClaim against the real database: the completion is complete()'s (same fence, same row, same
 * event) and the claim is claim()'s for the slot it freed, committed together; a refused completion claims nothing.
 */
import { EVERYWHERE } from "../../reach";
import { describe, expect, it } from "vitest";
import { jobs } from "../../index";
import { catalogueCheckedEvents, stageAutomation, useTestDatabase, type StagedAutomation } from "../../test-kit";

const hub = useTestDatabase();
const LEASE_SECONDS = 60;
const next = (candidateIds: string[] = []) => ({ maxJobs: 1, leaseSeconds: LEASE_SECONDS, candidateIds });

async function queuedJob(subject: StagedAutomation, context: Record<string, unknown> = {}): Promise<string> {
  const created = await jobs.insert(hub().pool, EVERYWHERE, subject.userId, { automationId: subject.automationId, context });
  if (created.kind !== "created") throw new Error(`job not created: ${created.kind}`);
  return created.jobs[0]!.id;
}

async function claimOne(subject: StagedAutomation): Promise<string> {
  const claim = await jobs.claim(hub().pool, { automationId: subject.automationId, workerId: subject.worker.id, ...next() });
  if (claim.kind !== "claimed") throw new Error(`job not claimed: ${claim.kind}`);
  return claim.jobs[0]!.id;
}

const eventTypesOf = async (jobId: string) => (await catalogueCheckedEvents(hub(), jobId)).map((event) => event.eventType);

describe("jobs.completeAndClaim", () => {
  it("when the lease holder completes with another job queued, then the result is recorded as complete() records it and the freed slot starts the next job", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 1 });
    const firstId = await queuedJob(subject);
    const secondId = await queuedJob(subject);
    await claimOne(subject);

    const outcome = await jobs.completeAndClaim(hub().pool, firstId, subject.worker, { rows: 42 }, next([secondId]));

    expect(outcome.completed).toMatchObject({ ok: true, job: { id: firstId, status: "completed", result: { rows: 42 }, leaseExpiresAt: null } });
    expect(outcome.claimed).toMatchObject({ kind: "claimed", slotsLeft: 0, staleIds: [], jobs: [{ id: secondId, status: "running", attempts: 1 }] });
    // The row it answers is the row complete() would have answered: every column, as stored.
    const stored = await jobs.find(hub().pool, EVERYWHERE, firstId);
    expect(outcome.completed.ok && outcome.completed.job).toEqual(stored);
    const events = await catalogueCheckedEvents(hub(), firstId);
    expect(events.map((event) => event.eventType)).toEqual(["job.created", "job.started", "job.completed"]);
    expect(events[2]!.payload).toEqual({ automation_id: subject.automationId, worker_id: subject.worker.id, result: { rows: 42 } });
    expect(await eventTypesOf(secondId)).toEqual(["job.created", "job.started"]);
  });

  it("when a tracing process claims, then each job it starts comes with its stored trace context (claim and complete-and-claim alike); else without it", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 2 });
    const traces = [1, 2, 3, 4].map((n) => ({
      traceparent: `00-0af7651916cd43dd8448eb211c80319${n}-b7ad6b716920333${n}-0${n % 2}`,
      tracestate: n === 1 ? "vendor=1" : null,
    }));
    const ids: string[] = [];
    for (const trace of traces) {
      const created = await jobs.insert(hub().pool, EVERYWHERE, subject.userId, { automationId: subject.automationId, context: {} }, undefined, trace);
      if (created.kind !== "created") throw new Error(`job not created: ${created.kind}`);
      ids.push(created.jobs[0]!.id);
    }

    const claimed = await jobs.claim(hub().pool, {
      automationId: subject.automationId,
      workerId: subject.worker.id,
      ...next(),
      maxJobs: 2,
      withTraceContext: true,
    });
    expect(claimed).toMatchObject({
      kind: "claimed",
      jobs: [
        { id: ids[0], ...traces[0] },
        { id: ids[1], ...traces[1] },
      ],
    });
    const both = await jobs.completeAndClaim(hub().pool, ids[0]!, subject.worker, {}, { ...next([ids[2]!]), withTraceContext: true });
    expect(both.claimed).toMatchObject({ kind: "claimed", jobs: [{ id: ids[2], ...traces[2] }] });
    // A process that does not trace sends the function's own statement: the stored context is not read.
    const plain = await jobs.completeAndClaim(hub().pool, ids[1]!, subject.worker, {}, next([ids[3]!]));
    expect(plain.claimed).toMatchObject({ kind: "claimed", jobs: [{ id: ids[3], traceparent: null, tracestate: null }] });
  });

  it("when nothing else is queued, then the result is recorded and the claim says none, with the slot left free", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 2 });
    const jobId = await queuedJob(subject);
    await claimOne(subject);

    const outcome = await jobs.completeAndClaim(hub().pool, jobId, subject.worker, {}, next([jobId]));

    expect(outcome.completed).toMatchObject({ ok: true, job: { id: jobId, status: "completed" } });
    // The completed job was still offered: it is named stale, as a claim names a job no longer queued.
    expect(outcome.claimed).toEqual({ kind: "none", slotsLeft: 2, staleIds: [jobId] });
  });

  it("when another automation's worker or a stale attempt completes, then it is refused (not_found, not_leased), nothing is claimed and nothing changes", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 2 });
    const stranger = await stageAutomation(hub());
    const runningId = await queuedJob(subject);
    await claimOne(subject);
    const queuedId = await queuedJob(subject);

    const byStranger = await jobs.completeAndClaim(hub().pool, runningId, stranger.worker, {}, next());
    const staleAttempt = await jobs.completeAndClaim(hub().pool, runningId, { ...subject.worker, attempt: 2 }, {}, next([queuedId]));
    const unknown = await jobs.completeAndClaim(hub().pool, "00000000-0000-4000-8000-000000000000", subject.worker, {}, next([queuedId]));

    expect(byStranger).toEqual({ completed: { ok: false, refusal: "not_found" }, claimed: null });
    expect(staleAttempt).toEqual({ completed: { ok: false, refusal: "not_leased" }, claimed: null });
    expect(unknown).toEqual({ completed: { ok: false, refusal: "not_found" }, claimed: null });
    expect(await jobs.find(hub().pool, EVERYWHERE, runningId)).toMatchObject({ status: "running", result: null });
    expect(await jobs.find(hub().pool, EVERYWHERE, queuedId)).toMatchObject({ status: "queued" });
    expect(await eventTypesOf(queuedId)).toEqual(["job.created"]);
  });

  it("when the automation may not start more (development mode), then the result is still recorded and the claim is blocked", async () => {
    const subject = await stageAutomation(hub());
    const jobId = await queuedJob(subject);
    await claimOne(subject);
    const queuedId = await queuedJob(subject);
    await hub().pool.query("update automations set is_development = true where id = $1", [subject.automationId]);

    const outcome = await jobs.completeAndClaim(hub().pool, jobId, subject.worker, { ok: true }, next([queuedId]));

    expect(outcome.completed).toMatchObject({ ok: true, job: { id: jobId, status: "completed", result: { ok: true } } });
    expect(outcome.claimed).toEqual({ kind: "blocked" });
    expect(await jobs.find(hub().pool, EVERYWHERE, queuedId)).toMatchObject({ status: "queued" });
  });
});

describe("the functions builds of before the dependency columns call (hub_claim_jobs_v3, hub_complete_and_claim_v1)", () => {
  it("when an older build claims and completes-and-claims, then it gets its own columns and the same rule as v4's", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 1 });
    const firstId = await queuedJob(subject);
    const secondId = await queuedJob(subject);
    const args = [subject.automationId, subject.worker.id, 1, LEASE_SECONDS];

    const claimed = await hub().pool.query("select * from hub_claim_jobs_v3($1, $2, $3, $4, '{}'::uuid[])", args);
    expect(claimed.rows).toMatchObject([{ outcome: "claimed", slots_left: 0, id: firstId, status: "running" }]);
    expect(claimed.fields.map((field) => field.name)).not.toContain("depends_on");
    // The limit of 1 holds through the wrapper too.
    const refused = await hub().pool.query("select * from hub_claim_jobs_v3($1, $2, $3, $4, '{}'::uuid[])", args);
    expect(refused.rows).toMatchObject([{ outcome: "blocked", id: null }]);

    const both = await hub().pool.query("select * from hub_complete_and_claim_v1($1, $2, $3, null, '{\"rows\": 1}'::jsonb, 1, $4, '{}'::uuid[])", [
      firstId,
      subject.automationId,
      subject.worker.id,
      LEASE_SECONDS,
    ]);
    expect(both.rows).toMatchObject([
      { row_kind: "completed", id: firstId, status: "completed", result: { rows: 1 } },
      { row_kind: "claim", outcome: "claimed", id: secondId, status: "running" },
    ]);
    expect(both.fields.map((field) => field.name)).not.toContain("has_dependents");
    expect(await eventTypesOf(firstId)).toEqual(["job.created", "job.started", "job.completed"]);
  });
});
