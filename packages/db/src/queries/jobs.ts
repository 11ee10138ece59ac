/**
 * Every job state change, each with its outbox event in the same transaction (CONTRACT §3 "Job").
 *
 * Locking order, to stay deadlock-free: an automation row before any of its job rows. Claims take
 * the automation row `FOR NO KEY UPDATE`, which serialises the claims of one automation (so the
 * running count they check cannot race) without blocking job inserts, whose foreign key only
 * needs `FOR KEY SHARE` on it.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { CancelReason, RequeueReason } from "@hub/shared";
import type { DbOrTx, Tx } from "../client";
import { automations, events, jobs, workers, type Job } from "../schema";
import { recordEvent, recordEvents, type NewEvent } from "./events";

/** What the dispatch layer needs to know about a job to offer it to its automation's worker. */
export interface JobRef {
  id: string;
  automationId: string;
  createdAt: Date;
}

export const toJobRef = (job: Pick<Job, "id" | "automationId" | "createdAt">): JobRef => ({
  id: job.id,
  automationId: job.automationId,
  createdAt: job.createdAt,
});

export type ClaimOutcome =
  | { kind: "claimed"; job: Job; staleIds: string[] }
  /** Nothing claimable among the candidates; `staleIds` are no longer queued and can leave the ready set. */
  | { kind: "none"; staleIds: string[] }
  /** The automation may not run more jobs now (limit reached, development mode, inactive). */
  | { kind: "blocked" };

/**
 * Claims the oldest still-queued job among `candidateIds` (ids offered by the dispatch layer) for
 * `workerId`, if the automation is active, not in development mode and below its concurrency limit.
 */
export async function claimJob(
  tx: Tx,
  input: { automationId: string; workerId: string; candidateIds: string[]; leaseSeconds: number },
): Promise<ClaimOutcome> {
  const automationRows = await tx.execute<{ max_concurrent_jobs: number; is_active: boolean; is_development: boolean }>(sql`
    select max_concurrent_jobs, is_active, is_development from ${automations}
    where id = ${input.automationId} for no key update`);
  const automation = automationRows.rows[0];
  if (!automation || !automation.is_active || automation.is_development) return { kind: "blocked" };

  // Everything else in one statement, whose snapshot is taken now that the automation row is
  // locked: every claim of this automation is serialised behind that lock, so the running count
  // read here cannot be raced (a completion committed meanwhile only makes it conservative), and
  // unregistering a worker takes the same lock, so a worker unregistered while its claim waited
  // is seen here and gets nothing.
  const rows = await tx.execute<Record<string, unknown>>(sql`
    with gate as (
      select (select count(*) from ${jobs} where automation_id = ${input.automationId} and status = 'running')
               < ${automation.max_concurrent_jobs}
         and exists (select 1 from ${workers} where id = ${input.workerId} and unregistered_at is null) as open
    ), queued as (
      select id from ${jobs}
      where id = any(${sql.param(input.candidateIds)}::uuid[]) and status = 'queued' and automation_id = ${input.automationId}
    ), picked as (
      update ${jobs} set status = 'running', attempts = attempts + 1, worker_id = ${input.workerId},
        started_at = now(), lease_expires_at = now() + make_interval(secs => ${input.leaseSeconds})
      where ${jobs.id} = (
        select id from ${jobs} where id in (select id from queued) and status = 'queued' and (select open from gate)
        order by created_at, id limit 1 for update skip locked)
      returning ${jobs}.*
    ), event as (
      insert into ${events} (aggregate_id, event_type, actor_id, payload)
      select id, 'job.started', null, jsonb_build_object('automation_id', automation_id, 'worker_id', worker_id, 'attempt', attempts)
      from picked
    )
    select (select open from gate) as gate_open, (select coalesce(array_agg(id), '{}') from queued) as queued_ids, picked.*
    from (select 1) as one left join picked on true`);
  const row = rows.rows[0]!;
  if (!row.gate_open) return { kind: "blocked" };
  const queuedIds = new Set(parseUuidArray(row.queued_ids));
  const staleIds = input.candidateIds.filter((id) => !queuedIds.has(id));
  if (!row.id) return { kind: "none", staleIds };
  return { kind: "claimed", job: jobFromRow(row), staleIds };
}

/** A uuid[] from raw SQL: node-postgres parses it to an array, or leaves the `{a,b}` text. */
function parseUuidArray(value: unknown): string[] {
  if (Array.isArray(value)) return value as string[];
  if (typeof value !== "string" || value === "{}") return [];
  return value.slice(1, -1).split(",");
}

/** Who is calling about a job: the worker, its automation, and optionally the attempt it holds. */
export interface LeaseHolder {
  id: string;
  automationId: string;
  /** The job's `attempts` when this worker claimed it; when set, other attempts are refused. */
  attempt?: number | undefined;
}

/** True when the job row is `running` under this holder's unexpired lease (and its attempt, if named). */
function leasedBy(worker: LeaseHolder) {
  return sql<boolean>`(${jobs.status} = 'running' and ${jobs.workerId} = ${worker.id} and ${jobs.leaseExpiresAt} > now()
    and (${worker.attempt ?? null}::int is null or ${jobs.attempts} = ${worker.attempt ?? null}::int))`;
}

/** Why a worker's call about a job was refused. */
export type LeaseRefusal = "not_found" | "not_leased";

type LeasedJobResult = { ok: true; job: Job } | { ok: false; refusal: LeaseRefusal };

/**
 * The fence every worker result passes: the job must belong to the worker's automation (else
 * not_found), be `running` under this worker, in the attempt the worker names (if it names one),
 * and its lease must not have lapsed (else not_leased). Locks the job row for the rest of the
 * transaction.
 */
async function lockLeasedJob(tx: Tx, jobId: string, worker: LeaseHolder): Promise<LeasedJobResult> {
  // The row and the verdict in one statement: the fence is on every worker call's path.
  const [row] = await tx
    .select({
      job: jobs,
      leased: leasedBy(worker),
    })
    .from(jobs)
    .where(eq(jobs.id, jobId))
    .for("update");
  if (!row || row.job.automationId !== worker.automationId) return { ok: false, refusal: "not_found" };
  if (!row.leased) return { ok: false, refusal: "not_leased" };
  return { ok: true, job: row.job };
}

export async function extendLease(
  tx: Tx,
  jobId: string,
  worker: LeaseHolder,
  leaseSeconds: number,
): Promise<{ ok: true; leaseExpiresAt: Date } | { ok: false; refusal: LeaseRefusal }> {
  const fenced = await lockLeasedJob(tx, jobId, worker);
  if (!fenced.ok) return fenced;
  const [updated] = await tx
    .update(jobs)
    .set({ leaseExpiresAt: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where(eq(jobs.id, jobId))
    .returning({ leaseExpiresAt: jobs.leaseExpiresAt });
  return { ok: true, leaseExpiresAt: updated!.leaseExpiresAt! };
}

/** Raw SQL through drizzle returns timestamps as text. */
function toDate(value: unknown): Date | null {
  return value == null ? null : new Date(value as string);
}

/** A job row as PostgreSQL returns it from raw SQL (snake_case) → the drizzle `Job` shape. */
function jobFromRow(row: Record<string, unknown>): Job {
  return {
    id: row.id as string,
    automationId: row.automation_id as string,
    status: row.status as Job["status"],
    context: row.context as Job["context"],
    result: row.result as Job["result"],
    error: row.error as string | null,
    attempts: row.attempts as number,
    createdBy: row.created_by as string | null,
    workerId: row.worker_id as string | null,
    createdAt: toDate(row.created_at)!,
    startedAt: toDate(row.started_at),
    finishedAt: toDate(row.finished_at),
    leaseExpiresAt: toDate(row.lease_expires_at),
  };
}

/**
 * The fence, the update and the `job.completed` event in one statement — one round trip, no
 * explicit transaction. The `fence` CTE locks the row first (FOR UPDATE re-reads a row changed
 * while it waited), so the verdict is taken on the latest version and a concurrent cancel or
 * sweep either happened before (409) or waits for this statement.
 */
export async function completeJob(
  db: DbOrTx,
  jobId: string,
  worker: LeaseHolder,
  result: Record<string, unknown>,
): Promise<LeasedJobResult> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    with fence as (
      select id, automation_id, ${leasedBy(worker)} as leased
      from ${jobs} where id = ${jobId} for update
    ), completed as (
      update ${jobs} set status = 'completed', result = ${JSON.stringify(result)}::jsonb, finished_at = now(), lease_expires_at = null
      from fence where ${jobs.id} = fence.id and fence.leased and fence.automation_id = ${worker.automationId}
      returning ${jobs}.*
    ), event as (
      insert into ${events} (aggregate_id, event_type, actor_id, payload)
      select id, 'job.completed', null, jsonb_build_object('automation_id', automation_id, 'worker_id', ${worker.id}::uuid, 'result', result)
      from completed
    )
    select fence.automation_id as fence_automation_id, fence.leased as fence_leased, completed.*
    from fence left join completed on true`);
  const row = rows.rows[0];
  if (!row || row.fence_automation_id !== worker.automationId) return { ok: false, refusal: "not_found" };
  if (!row.fence_leased || !row.id) return { ok: false, refusal: "not_leased" };
  return { ok: true, job: jobFromRow(row) };
}

/**
 * A worker reports failure. Retryable failures go back to `queued` while attempts remain;
 * everything else ends `failed`. `requeued` tells the caller to offer the job again.
 */
export async function failJob(
  tx: Tx,
  jobId: string,
  worker: LeaseHolder,
  failure: { error: string; retryable: boolean; maxAttempts: number },
): Promise<{ ok: true; job: Job; requeued: boolean } | { ok: false; refusal: LeaseRefusal }> {
  const fenced = await lockLeasedJob(tx, jobId, worker);
  if (!fenced.ok) return fenced;
  const requeue = failure.retryable && fenced.job.attempts < failure.maxAttempts;
  const [job] = requeue
    ? await tx
        .update(jobs)
        .set({ status: "queued", error: failure.error, workerId: null, leaseExpiresAt: null, startedAt: null })
        .where(eq(jobs.id, jobId))
        .returning()
    : await tx
        .update(jobs)
        .set({ status: "failed", error: failure.error, finishedAt: sql`now()`, leaseExpiresAt: null })
        .where(eq(jobs.id, jobId))
        .returning();
  await recordEvent(
    tx,
    requeue
      ? requeuedEvent(job!, "retryable_failure")
      : { eventType: "job.failed", aggregateId: jobId, actorId: null, payload: { automation_id: job!.automationId, error: failure.error, attempts: job!.attempts } },
  );
  return { ok: true, job: job!, requeued: requeue };
}

function requeuedEvent(job: Job, reason: RequeueReason): NewEvent {
  return { eventType: "job.requeued", aggregateId: job.id, actorId: null, payload: { automation_id: job.automationId, reason, attempts: job.attempts } };
}

function cancelledEvent(job: Job, reason: CancelReason, actorId: string | null): NewEvent {
  return { eventType: "job.cancelled", aggregateId: job.id, actorId, payload: { automation_id: job.automationId, reason } };
}

/**
 * Cancels a queued or running job. A running job's worker will get 409 on its next call.
 * `wasRunning` tells the caller a concurrency slot was freed.
 */
export async function cancelJob(
  tx: Tx,
  jobId: string,
  actorId: string,
): Promise<{ ok: true; job: Job; wasRunning: boolean } | { ok: false; refusal: "not_found" | "finished" }> {
  const rows = await tx.execute<{ status: string }>(sql`select status from ${jobs} where id = ${jobId} for update`);
  const status = rows.rows[0]?.status;
  if (!status) return { ok: false, refusal: "not_found" };
  if (status !== "queued" && status !== "running") return { ok: false, refusal: "finished" };
  const [job] = await tx
    .update(jobs)
    .set({ status: "cancelled", finishedAt: sql`now()`, leaseExpiresAt: null })
    .where(eq(jobs.id, jobId))
    .returning();
  await recordEvent(tx, cancelledEvent(job!, "cancelled_by_user", actorId));
  return { ok: true, job: job!, wasRunning: status === "running" };
}

/** Deactivation: every queued job of the automation becomes `cancelled`. Call with its row locked. */
export async function cancelQueuedJobsOfAutomation(tx: Tx, automationId: string, actorId: string | null): Promise<Job[]> {
  const cancelled = await tx
    .update(jobs)
    .set({ status: "cancelled", finishedAt: sql`now()` })
    .where(and(eq(jobs.automationId, automationId), eq(jobs.status, "queued")))
    .returning();
  await recordEvents(
    tx,
    cancelled.map((job) => cancelledEvent(job, "automation_deactivated", actorId)),
  );
  return cancelled;
}

/** Unregistering a worker: its running jobs go back to `queued`. Offer the returned jobs again. */
export async function requeueRunningJobsOfWorker(tx: Tx, workerId: string): Promise<Job[]> {
  const requeued = await tx
    .update(jobs)
    .set({ status: "queued", workerId: null, leaseExpiresAt: null, startedAt: null })
    .where(and(eq(jobs.workerId, workerId), eq(jobs.status, "running")))
    .returning();
  await recordEvents(
    tx,
    requeued.map((job) => requeuedEvent(job, "worker_unregistered")),
  );
  return requeued;
}

/**
 * Lease sweeper: running jobs whose lease lapsed go back to `queued`, or to `failed` once they have
 * used `maxAttempts`. Safe with many dispatchers (SKIP LOCKED); handles at most `batchSize` per call.
 */
export async function expireLapsedLeases(
  tx: Tx,
  input: { maxAttempts: number; batchSize: number },
): Promise<{ requeued: Job[]; failed: Job[] }> {
  const lapsed = await tx.execute<{ id: string }>(sql`
    select id from ${jobs} where status = 'running' and lease_expires_at <= now()
    order by lease_expires_at limit ${input.batchSize} for update skip locked`);
  const ids = lapsed.rows.map((row) => row.id);
  if (ids.length === 0) return { requeued: [], failed: [] };
  const requeued = await tx
    .update(jobs)
    .set({ status: "queued", workerId: null, leaseExpiresAt: null, startedAt: null })
    .where(and(inArray(jobs.id, ids), sql`${jobs.attempts} < ${input.maxAttempts}`))
    .returning();
  const failed = await tx
    .update(jobs)
    .set({ status: "failed", error: "lease expired", finishedAt: sql`now()`, leaseExpiresAt: null })
    .where(and(inArray(jobs.id, ids), sql`${jobs.attempts} >= ${input.maxAttempts}`))
    .returning();
  await recordEvents(tx, [
    ...requeued.map((job) => requeuedEvent(job, "lease_expired")),
    ...failed.map((job) => ({
      eventType: "job.failed" as const,
      aggregateId: job.id,
      actorId: null,
      payload: { automation_id: job.automationId, error: "lease expired", attempts: job.attempts },
    })),
  ]);
  return { requeued, failed };
}

/** Reconciliation: one page of queued jobs, oldest first, after `after` (keyset pagination). */
export async function listQueuedJobRefs(
  db: DbOrTx,
  after: { createdAt: Date; id: string } | null,
  limit: number,
): Promise<JobRef[]> {
  const rows = await db.execute<{ id: string; automation_id: string; created_at: Date }>(sql`
    select id, automation_id, created_at from ${jobs}
    where status = 'queued' ${after ? sql`and (created_at, id) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)` : sql``}
    order by created_at, id limit ${limit}`);
  return rows.rows.map((row) => ({ id: row.id, automationId: row.automation_id, createdAt: new Date(row.created_at) }));
}
