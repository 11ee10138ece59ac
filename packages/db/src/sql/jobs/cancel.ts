/**
 * Cancelling jobs (one, the queued jobs of an automation being deactivated, a bulk batch), each
 * with its outbox events in the caller's transaction. Not on the per-job hot path, so drizzle
 * builds them.
 *
 * Locking order, to stay deadlock-free: an automation row before any of its job rows, and several
 * job rows in id order (as the worker batch statements lock them, lease-batch.ts).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { CANCELLABLE_STORED_JOB_STATUSES, HELD_JOB_STATUS, type CancelReason } from "@hub/shared";
import { jobs, type Job } from "../../schema";
import * as events from "../events/crud";
import * as workerSignals from "../workers/signals";
import { queryBuilder, type Executor } from "../../executor";
import { actorSetting } from "./hold";

const cancellable = (status: string | undefined) => (CANCELLABLE_STORED_JOB_STATUSES as readonly string[]).includes(status ?? "");

/** A cancel of a job whose approval is pending withdraws it (CONTRACT §6.17); any other approval stays as it is. */
const withdrawPendingApproval = sql`case when ${jobs.approvalStatus} = 'pending' then 'withdrawn' else ${jobs.approvalStatus} end`;

function cancelledEvent(job: Pick<Job, "id" | "automationId">, reason: CancelReason, actorId: string | null): events.NewEvent {
  return { eventType: "job.cancelled", aggregateId: job.id, actorId, payload: { automation_id: job.automationId, reason } };
}

/**
 * Cancels a queued (or held) or running job. A running job's worker gets a cancel signal at the commit
 * (../workers/signals.ts) and 409 on its next call. The lock's statement also names the actor for
 * the dependents the cancel cascades to (./hold.ts).
 * `wasRunning` tells the caller a concurrency slot was freed.
 */
export async function cancel(
  executor: Executor,
  jobId: string,
  actorId: string,
): Promise<{ ok: true; job: Job; wasRunning: boolean } | { ok: false; refusal: "not_found" | "finished" }> {
  const tx = queryBuilder(executor);
  const rows = await tx.execute<{ status: string }>(sql`select status, ${actorSetting(actorId)} from ${jobs} where id = ${jobId} for update`);
  const status = rows.rows[0]?.status;
  if (!status) return { ok: false, refusal: "not_found" };
  if (!cancellable(status)) return { ok: false, refusal: "finished" };
  const [job] = await tx
    .update(jobs)
    .set({ status: "cancelled", finishedAt: sql`now()`, leaseExpiresAt: null, approvalStatus: withdrawPendingApproval })
    .where(eq(jobs.id, jobId))
    .returning();
  await events.record(executor, cancelledEvent(job!, "cancelled_by_user", actorId));
  if (status === "running") await workerSignals.signal(executor, "cancelled_by_user", [job!]);
  return { ok: true, job: job!, wasRunning: status === "running" };
}

/** Deactivation: every queued (or held) job of the automation becomes `cancelled`. Call with its row locked. */
export async function cancelQueuedOfAutomation(executor: Executor, automationId: string, actorId: string | null): Promise<Job[]> {
  const tx = queryBuilder(executor);
  // The actor of the dependents the cancel cascades to (./hold.ts); deactivation is rare, so a statement of its own.
  await tx.execute(sql`select ${actorSetting(actorId)}`);
  const cancelled = await tx
    .update(jobs)
    .set({ status: "cancelled", finishedAt: sql`now()`, approvalStatus: withdrawPendingApproval })
    .where(and(eq(jobs.automationId, automationId), inArray(jobs.status, ["queued", HELD_JOB_STATUS])))
    .returning();
  await events.recordMany(
    executor,
    cancelled.map((job) => cancelledEvent(job, "automation_deactivated", actorId)),
  );
  return cancelled;
}

/** A job {@link cancelMany} cancelled; `wasRunning` tells the caller a concurrency slot was freed. */
export interface CancelledJob {
  id: string;
  automationId: string;
  /** Creation order: with the id, what names the job's offer in its ready set. */
  seq: number;
  wasRunning: boolean;
  /** Jobs wait for it: its cancel may have released some (offer them after the commit, ./hold.ts). */
  hasDependents: boolean;
}

/**
 * Bulk cancel (CONTRACT §6.5): the jobs among `jobIds` that are still queued (held ones too) or running become
 * `cancelled`, each with its `job.cancelled` event (`cancelled_by_user`, as a single cancel). Rows
 * are locked in id order (the house order, see above); jobs that finished meanwhile are skipped.
 * Keep `jobIds` to {@link BULK_ACTION_BATCH_SIZE} so the transaction stays short.
 */
export async function cancelMany(executor: Executor, jobIds: readonly string[], actorId: string): Promise<CancelledJob[]> {
  const tx = queryBuilder(executor);
  if (jobIds.length === 0) return [];
  const locked = await tx
    // The actor is set with the lock, for the dependents the cancel cascades to (./hold.ts).
    .select({ id: jobs.id, status: jobs.status, actor: actorSetting(actorId) })
    .from(jobs)
    .where(and(inArray(jobs.id, [...jobIds]), inArray(jobs.status, CANCELLABLE_STORED_JOB_STATUSES)))
    .orderBy(jobs.id)
    .for("update");
  if (locked.length === 0) return [];
  const wasRunning = new Set(locked.filter((row) => row.status === "running").map((row) => row.id));
  const cancelled = await tx
    .update(jobs)
    .set({ status: "cancelled", finishedAt: sql`now()`, leaseExpiresAt: null, approvalStatus: withdrawPendingApproval })
    .where(
      and(
        inArray(
          jobs.id,
          locked.map((row) => row.id),
        ),
        inArray(jobs.status, CANCELLABLE_STORED_JOB_STATUSES),
      ),
    )
    .returning({
      id: jobs.id,
      automationId: jobs.automationId,
      seq: jobs.seq,
      workerId: jobs.workerId,
      attempts: jobs.attempts,
      hasDependents: jobs.hasDependents,
    });
  await workerSignals.signal(
    executor,
    "cancelled_by_user",
    cancelled.filter((job) => wasRunning.has(job.id)),
  );
  await events.recordMany(
    executor,
    cancelled.map((job) => cancelledEvent(job, "cancelled_by_user", actorId)),
  );
  return cancelled.map(({ id, automationId, seq, hasDependents }) => ({
    id,
    automationId,
    seq,
    wasRunning: wasRunning.has(id),
    hasDependents: hasDependents === true,
  }));
}
