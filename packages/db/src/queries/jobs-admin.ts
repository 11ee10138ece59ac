/**
 * Job changes that people make (cancel, deactivating an automation, unregistering a worker), each
 * with its outbox events in the caller's transaction. Not on the per-job hot path, so drizzle
 * builds them.
 *
 * Locking order, to stay deadlock-free: an automation row before any of its job rows, and several
 * job rows in id order (as the worker batch statements lock them, jobs-lease-batch.ts).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { CancelReason, RequeueReason } from "@hub/shared";
import type { Tx } from "../client";
import { jobs, type Job } from "../schema";
import { recordEvent, recordEvents, type NewEvent } from "./events";

/** `available_at` as every job.requeued carries it (CONTRACT §4); unchanged here: these re-queues keep their place. */
function requeuedEvent(job: Job, reason: RequeueReason): NewEvent {
  return {
    eventType: "job.requeued",
    aggregateId: job.id,
    actorId: null,
    payload: { automation_id: job.automationId, reason, attempts: job.attempts, available_at: job.availableAt.toISOString() },
  };
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

/**
 * Unregistering a worker: its running jobs go back to `queued`. Offer the returned jobs again.
 * Call with the automation row locked; the job rows are locked in id order first.
 */
export async function requeueRunningJobsOfWorker(tx: Tx, workerId: string): Promise<Job[]> {
  const running = await tx.execute<{ id: string }>(
    sql`select id from ${jobs} where worker_id = ${workerId} and status = 'running' order by id for update`,
  );
  const ids = running.rows.map((row) => row.id);
  if (ids.length === 0) return [];
  const requeued = await tx
    .update(jobs)
    .set({ status: "queued", workerId: null, leaseExpiresAt: null, startedAt: null })
    .where(and(inArray(jobs.id, ids), eq(jobs.status, "running")))
    .returning();
  await recordEvents(
    tx,
    requeued.map((job) => requeuedEvent(job, "worker_unregistered")),
  );
  return requeued;
}
