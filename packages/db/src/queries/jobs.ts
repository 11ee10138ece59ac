/**
 * Creating and reading jobs. The other job queries live beside this file, by concern:
 * jobs-claim.ts (claims), jobs-lease.ts and jobs-lease-batch.ts (a worker's heartbeat, complete,
 * fail; the lease sweeper), jobs-admin.ts (cancel, deactivation, unregistering); jobs-row.ts maps
 * rows and runs named statements.
 *
 * Locking order, to stay deadlock-free: an automation row before any of its job rows. Claims take
 * the automation row `FOR NO KEY UPDATE`, which serialises the claims of one automation without
 * blocking job inserts, whose foreign key only needs `FOR KEY SHARE` on it.
 */
import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../client";
import { automations, events, jobs, type Job } from "../schema";
import { jobFromRow } from "./jobs-row";

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

/**
 * Inserts a job and its `job.created` event in one statement, only while its automation is active;
 * undefined when it is not (or does not exist). The automation row is read FOR KEY SHARE — what
 * the job's foreign key takes anyway — so a deactivation (FOR UPDATE) either waits for this
 * statement and then cancels the job with the other queued ones, or committed first and is seen
 * here (FOR KEY SHARE re-reads a row changed while it waited). Claims and edits (FOR NO KEY
 * UPDATE) do not conflict, so creating jobs never queues behind them.
 */
export async function insertJobIfActive(
  db: DbOrTx,
  input: { automationId: string; context: Record<string, unknown>; createdBy: string },
): Promise<Job | undefined> {
  const rows = await db.execute<Record<string, unknown>>(sql`
    with automation as (
      select id from ${automations} where id = ${input.automationId} and is_active for key share
    ), created as (
      insert into ${jobs} (automation_id, context, created_by)
      select id, ${JSON.stringify(input.context)}::jsonb, ${input.createdBy}::uuid from automation
      returning ${jobs}.*
    ), event as (
      insert into ${events} (aggregate_id, event_type, actor_id, payload)
      select id, 'job.created', created_by, jsonb_build_object('automation_id', automation_id, 'context', context)
      from created
    )
    select * from created`);
  const row = rows.rows[0];
  return row ? jobFromRow(row) : undefined;
}

export async function findJob(db: DbOrTx, id: string): Promise<Job | undefined> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, id));
  return job;
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
