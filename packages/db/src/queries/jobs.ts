/**
 * What dispatch needs to know about jobs (JobRef, the reconciler's scan). The other job queries
 * live beside this file, by concern: jobs-create.ts (POST /jobs, batches, Idempotency-Key),
 * jobs-read.ts (GET /jobs), jobs-claim.ts (claims), jobs-lease.ts and jobs-lease-batch.ts (a worker's heartbeat, complete,
 * fail; the lease sweeper), jobs-admin.ts (cancel, deactivation, unregistering); jobs-row.ts maps
 * rows and runs named statements.
 *
 * Locking order, to stay deadlock-free: an automation row before any of its job rows. Claims take
 * the automation row `FOR NO KEY UPDATE`, which serialises the claims of one automation without
 * blocking job inserts, whose foreign key only needs `FOR KEY SHARE` on it.
 */
import { sql } from "drizzle-orm";
import type { DbOrTx } from "../client";
import { jobs, type Job } from "../schema";

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
