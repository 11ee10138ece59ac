/**
 * POST /jobs/{job_id}/reschedule (CONTRACT §6.8): a queued job gets a new `run_at` (and with it
 * `available_at`) and/or a new `priority`, with its `job.rescheduled` event, in the caller's
 * transaction. People do this now and then, so drizzle builds it.
 */
import { and, eq, sql } from "drizzle-orm";
import { HELD_JOB_STATUS, shownJobStatus, type JobStatus } from "@hub/shared";
import { jobs, type Job } from "../../schema";
import * as events from "../events/crud";
import { queryBuilder, type Executor } from "../../executor";
import { automationIdReached, type Reach } from "../../reach";

/** What to change; an absent field stays as it is. */
export interface JobRescheduling {
  /** A time to run the job at, or null for now; `available_at` becomes the later of it and now (PostgreSQL's clock). */
  runAt?: Date | null | undefined;
  priority?: number | undefined;
}

/** Who reschedules: admins may touch any job, employees only the jobs they created. */
export interface Rescheduler {
  userId: string;
  mayRescheduleAnyJob: boolean;
}

export type RescheduleOutcome =
  /** `previous` is the job as it was, so dispatch can find the offer it had. */
  { ok: true; job: Job; previous: Job } | { ok: false; refusal: "not_found" | "not_creator" | "not_queued"; status?: JobStatus };

/** ISO 8601 in UTC with milliseconds, as the API writes times; null stays null. */
const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/**
 * Reschedules a queued job. The row is locked first, so a claim or a cancel either committed
 * before (→ `not_queued`) or waits for this change. Refusals, in this order: unknown job, an
 * employee's reschedule of another user's job, a job that is not queued.
 */
export async function reschedule(executor: Executor, reach: Reach, jobId: string, change: JobRescheduling, by: Rescheduler): Promise<RescheduleOutcome> {
  const tx = queryBuilder(executor);
  const [previous] = await tx
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, jobId), automationIdReached(reach, jobs.automationId)))
    .for("update");
  if (!previous) return { ok: false, refusal: "not_found" };
  if (!by.mayRescheduleAnyJob && previous.createdBy !== by.userId) return { ok: false, refusal: "not_creator" };
  // A held job is queued as shown (@hub/shared HELD_JOB_STATUS): its new time counts from its release.
  if (previous.status !== "queued" && previous.status !== HELD_JOB_STATUS) return { ok: false, refusal: "not_queued", status: shownJobStatus(previous.status) };
  const runAt = change.runAt === undefined ? {} : { runAt: change.runAt, availableAt: sql`greatest(${isoOrNull(change.runAt)}::timestamptz, now())` };
  const priority = change.priority === undefined ? {} : { priority: change.priority };
  const [job] = await tx
    .update(jobs)
    .set({ ...runAt, ...priority })
    .where(eq(jobs.id, jobId))
    .returning();
  // An earlier place in claim order moves its key value's head there while the value never started (the head is a
  // lower bound the keyed claim reads values in: functions/hub_claim_jobs_v4.sql).
  await tx.execute(sql`
    update job_key_states ks set head_priority = j.priority, head_available_at = j.available_at, head_seq = j.seq
    from jobs j
    where j.id = ${jobId} and j.key_value is not null and ks.automation_id = j.automation_id and ks.key_value = j.key_value
      and ks.waiting and ks.last_start is null and ks.head_seq is not null
      and hub_claim_order_precedes(j.priority, j.available_at, j.seq, ks.head_priority, ks.head_available_at, ks.head_seq)`);
  await events.record(executor, {
    eventType: "job.rescheduled",
    aggregateId: jobId,
    actorId: by.userId,
    payload: {
      automation_id: job!.automationId,
      run_at: isoOrNull(job!.runAt),
      priority: job!.priority,
      available_at: job!.availableAt.toISOString(),
    },
  });
  return { ok: true, job: job!, previous };
}
