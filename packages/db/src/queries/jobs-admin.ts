/**
 * Job changes that people make (cancel, deactivating an automation, unregistering a worker), each
 * with its outbox events in the caller's transaction. Not on the per-job hot path, so drizzle
 * builds them.
 *
 * Locking order, to stay deadlock-free: an automation row before any of its job rows, and several
 * job rows in id order (as the worker batch statements lock them, jobs-lease-batch.ts).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { CANCELLABLE_JOB_STATUSES, canTransition, isJobStatus, type CancelReason, type RequeueReason } from "@hub/shared";
import type { DbOrTx, Tx } from "../client";
import { jobs, type Job } from "../schema";
import { recordEvent, recordEvents, type NewEvent } from "./events";
import { jobFilterConditions, type JobFilter } from "./jobs-read";
import { signalWorkers } from "./worker-signals";

/** `available_at` as every job.requeued carries it (CONTRACT §4); unchanged here: these re-queues keep their place. */
function requeuedEvent(job: Job, reason: RequeueReason): NewEvent {
  return {
    eventType: "job.requeued",
    aggregateId: job.id,
    actorId: null,
    payload: { automation_id: job.automationId, reason, attempts: job.attempts, available_at: job.availableAt.toISOString() },
  };
}

function cancelledEvent(job: Pick<Job, "id" | "automationId">, reason: CancelReason, actorId: string | null): NewEvent {
  return { eventType: "job.cancelled", aggregateId: job.id, actorId, payload: { automation_id: job.automationId, reason } };
}

/**
 * Cancels a queued or running job. A running job's worker gets a cancel signal at the commit
 * (worker-signals.ts) and 409 on its next call.
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
  if (!isJobStatus(status) || !canTransition(status, "cancelled")) return { ok: false, refusal: "finished" };
  const [job] = await tx
    .update(jobs)
    .set({ status: "cancelled", finishedAt: sql`now()`, leaseExpiresAt: null })
    .where(eq(jobs.id, jobId))
    .returning();
  await recordEvent(tx, cancelledEvent(job!, "cancelled_by_user", actorId));
  if (status === "running") await signalWorkers(tx, "cancelled_by_user", [job!]);
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

/**
 * Unregistering a worker: its running jobs go back to `queued`, each with a signal to the worker.
 * Offer the returned jobs again. Call with the automation row locked; the job rows are locked in id
 * order first. Call it before marking the worker unregistered: the signals are then notified before
 * the credential change, and a signals stream, which ends on that change, sends them first.
 */
export async function requeueRunningJobsOfWorker(tx: Tx, workerId: string): Promise<Job[]> {
  const running = await tx.execute<{ id: string }>(
    sql`select id from ${jobs} where worker_id = ${workerId} and status = 'running' order by id for update`,
  );
  const ids = running.rows.map((row) => row.id);
  if (ids.length === 0) return [];
  const requeued = await tx
    .update(jobs)
    .set({ status: "queued", workerId: null, leaseExpiresAt: null, startedAt: null, progress: null })
    .where(and(inArray(jobs.id, ids), eq(jobs.status, "running")))
    .returning();
  await signalWorkers(
    tx,
    "worker_unregistered",
    requeued.map((job) => ({ id: job.id, workerId, attempts: job.attempts })),
  );
  await recordEvents(
    tx,
    requeued.map((job) => requeuedEvent(job, "worker_unregistered")),
  );
  return requeued;
}

/**
 * Most job ids one bulk statement (and its transaction) handles (CONTRACT §6.5): a 10,000-job bulk
 * action is twenty short transactions, so it never holds many row locks for long.
 */
export const BULK_ACTION_BATCH_SIZE = 500;

/**
 * The ids of at most `limit` jobs matching `filter` that a bulk action (CONTRACT §6.5) applies to,
 * oldest first by (created_at, id). A plain read: each batch re-checks the status when it acts.
 * `filter` must name at least one condition, or this matches the whole table (up to `limit`).
 */
export async function findJobIdsForBulkAction(db: DbOrTx, filter: JobFilter, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(...jobFilterConditions(filter)))
    .orderBy(jobs.createdAt, jobs.id)
    .limit(limit);
  return rows.map((row) => row.id);
}

/** A job {@link cancelJobs} cancelled; `wasRunning` tells the caller a concurrency slot was freed. */
export interface CancelledJob {
  id: string;
  automationId: string;
  /** Creation order: with the id, what names the job's offer in its ready set. */
  seq: number;
  wasRunning: boolean;
}

/**
 * Bulk cancel (CONTRACT §6.5): the jobs among `jobIds` that are still queued or running become
 * `cancelled`, each with its `job.cancelled` event (`cancelled_by_user`, as a single cancel). Rows
 * are locked in id order (the house order, see above); jobs that finished meanwhile are skipped.
 * Keep `jobIds` to {@link BULK_ACTION_BATCH_SIZE} so the transaction stays short.
 */
export async function cancelJobs(tx: Tx, jobIds: readonly string[], actorId: string): Promise<CancelledJob[]> {
  if (jobIds.length === 0) return [];
  const locked = await tx
    .select({ id: jobs.id, status: jobs.status })
    .from(jobs)
    .where(and(inArray(jobs.id, [...jobIds]), inArray(jobs.status, CANCELLABLE_JOB_STATUSES)))
    .orderBy(jobs.id)
    .for("update");
  if (locked.length === 0) return [];
  const wasRunning = new Set(locked.filter((row) => row.status === "running").map((row) => row.id));
  const cancelled = await tx
    .update(jobs)
    .set({ status: "cancelled", finishedAt: sql`now()`, leaseExpiresAt: null })
    .where(
      and(
        inArray(
          jobs.id,
          locked.map((row) => row.id),
        ),
        inArray(jobs.status, CANCELLABLE_JOB_STATUSES),
      ),
    )
    .returning({ id: jobs.id, automationId: jobs.automationId, seq: jobs.seq, workerId: jobs.workerId, attempts: jobs.attempts });
  await signalWorkers(
    tx,
    "cancelled_by_user",
    cancelled.filter((job) => wasRunning.has(job.id)),
  );
  await recordEvents(
    tx,
    cancelled.map((job) => cancelledEvent(job, "cancelled_by_user", actorId)),
  );
  return cancelled.map(({ id, automationId, seq }) => ({ id, automationId, seq, wasRunning: wasRunning.has(id) }));
}
