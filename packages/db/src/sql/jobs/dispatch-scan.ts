/**
 * What dispatch needs to know about jobs (JobRef, the dispatcher's scans). The other job statements
 * live beside this file, one verb each: insert.ts (POST /jobs, batches, Idempotency-Key), retry.ts,
 * read.ts (GET /jobs, bulk selections), waiting.ts (waiting reasons), claim.ts (claims), lease.ts and
 * lease-batch.ts (a worker's heartbeat, complete, fail; the lease sweeper), cancel.ts (cancel,
 * deactivation), requeue.ts (unregistering), reschedule.ts (POST /jobs/{id}/reschedule), seed.ts
 * (bench and test seeding); row.ts maps rows and holds the lease fence.
 *
 * Locking order, to stay deadlock-free: an automation row before any of its job rows. Claims take
 * the automation row `FOR NO KEY UPDATE`, which serialises the claims of one automation without
 * blocking job inserts, whose foreign key only needs `FOR KEY SHARE` on it.
 */
import { sql, type SQL } from "drizzle-orm";
import type { DispatchableJob } from "@hub/shared/dispatch";
import { jobs, type Job } from "../../schema";
import { queryBuilder, type Executor } from "../../executor";

/** What the dispatch layer needs to know about a job to offer it to its automation's worker, in claim order. */
export type JobRef = DispatchableJob;

export const toJobRef = (job: Pick<Job, "id" | "automationId" | "seq" | "priority" | "availableAt">): JobRef => ({
  id: job.id,
  automationId: job.automationId,
  seq: job.seq,
  priority: job.priority,
  availableAt: job.availableAt,
});

/**
 * PostgreSQL's clock (`now()`: in a transaction, its start). The dispatcher bounds its scans with
 * it and every schedule time is reckoned on it, never on a process's own clock (CONTRACT §6.8).
 */
export async function databaseNow(executor: Executor): Promise<Date> {
  const db = queryBuilder(executor);
  const result = await db.execute<{ now: Date | string }>(sql`select now() as now`);
  return new Date(result.rows[0]!.now);
}

/** A range of `available_at`: after `from` (exclusive; null = from the start) up to `until` (inclusive). */
export interface AvailableWindow {
  from: Date | null;
  until: Date;
}

/** Where a scan of queued jobs by `(available_at, id)` continues. */
export type QueuedJobCursor = Pick<JobRef, "availableAt" | "id">;

/**
 * One page of the queued jobs whose `available_at` lies in `window`, by `(available_at, id)`
 * after `cursor` (keyset pagination over `jobs_queued_available_idx`): the dispatcher's reconciler
 * (jobs due by now) and its horizon pass (jobs coming due within the next minute). Reads only the
 * window, so 100,000 jobs due next week cost these scans nothing until they near.
 */
export async function listQueuedRefs(executor: Executor, window: AvailableWindow, cursor: QueuedJobCursor | null, limit: number): Promise<JobRef[]> {
  const db = queryBuilder(executor);
  const rows = await db.execute<{ id: string; automation_id: string; seq: string | number; priority: number; available_at: string }>(
    queuedRefsQuery(window, cursor, limit),
  );
  return rows.rows.map((row) => ({
    id: row.id,
    automationId: row.automation_id,
    seq: Number(row.seq),
    priority: row.priority,
    availableAt: new Date(row.available_at),
  }));
}

/** The statement behind {@link listQueuedRefs} (exported for EXPLAIN in tests). */
export function queuedRefsQuery(window: AvailableWindow, cursor: QueuedJobCursor | null, limit: number): SQL {
  return sql`
    select id, automation_id, seq, priority, available_at from ${jobs}
    where status = 'queued' and available_at <= ${window.until.toISOString()}::timestamptz
      ${window.from ? sql`and available_at > ${window.from.toISOString()}::timestamptz` : sql``}
      ${cursor ? sql`and (available_at, id) > (${cursor.availableAt.toISOString()}::timestamptz, ${cursor.id}::uuid)` : sql``}
    order by available_at, id limit ${limit}`;
}
