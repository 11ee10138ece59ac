/**
 * Unregistering a worker, or a worker key that stops working, puts its running jobs back in the
 * queue, with their `job.requeued` events, in the caller's transaction (drizzle builds it: not on the per-job hot path).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { RequeueReason } from "@hub/shared";
import { jobs, type Job } from "../../schema";
import * as events from "../events/crud";
import * as workerSignals from "../workers/signals";
import { queryBuilder, type Executor } from "../../executor";

/** `available_at` as every job.requeued carries it (CONTRACT §4); unchanged here: these re-queues keep their place. */
function requeuedEvent(job: Job, reason: RequeueReason): events.NewEvent {
  return {
    eventType: "job.requeued",
    aggregateId: job.id,
    actorId: null,
    payload: { automation_id: job.automationId, reason, attempts: job.attempts, available_at: job.availableAt.toISOString() },
  };
}

/**
 * Unregistering a worker, or a worker key that stopped working (CONTRACT §3, §6.21): the worker's
 * running jobs — all of them, or those of `onlyIds` — go back to `queued`, each with a signal to
 * the worker and a `job.requeued` event of `reason`. Offer the returned jobs again. Call with the
 * automation row locked; the job rows are locked in id order first. Call it before the credential
 * change (marking the worker unregistered, replacing its key): the signals are then notified
 * before it, and a signals stream, which ends on that change, sends them first.
 */
export async function requeueRunningOfWorker(
  executor: Executor,
  workerId: string,
  reason: Extract<RequeueReason, "worker_unregistered" | "worker_key_rotated"> = "worker_unregistered",
  onlyIds?: readonly string[],
): Promise<Job[]> {
  const tx = queryBuilder(executor);
  if (onlyIds?.length === 0) return [];
  const only = onlyIds === undefined ? sql`` : sql` and id in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(onlyIds)}::jsonb))`;
  const running = await tx.execute<{ id: string }>(
    sql`select id from ${jobs} where worker_id = ${workerId} and status = 'running'${only} order by id for update`,
  );
  const ids = running.rows.map((row) => row.id);
  if (ids.length === 0) return [];
  const requeued = await tx
    .update(jobs)
    .set({ status: "queued", workerId: null, leaseExpiresAt: null, startedAt: null, progress: null })
    .where(and(inArray(jobs.id, ids), eq(jobs.status, "running")))
    .returning();
  await workerSignals.signal(
    executor,
    reason,
    requeued.map((job) => ({ id: job.id, workerId, attempts: job.attempts })),
  );
  await events.recordMany(
    executor,
    requeued.map((job) => requeuedEvent(job, reason)),
  );
  return requeued;
}
