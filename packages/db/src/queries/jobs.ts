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
  /** When it may be claimed (PostgreSQL's clock); absent = now. Dispatch holds back jobs not due yet. */
  availableAt?: Date | undefined;
}

export const toJobRef = (job: Pick<Job, "id" | "automationId" | "createdAt" | "availableAt">): JobRef => ({
  id: job.id,
  automationId: job.automationId,
  createdAt: job.createdAt,
  availableAt: job.availableAt,
});

/**
 * Reconciliation: one page of queued jobs, oldest first, after `after` (keyset pagination), that
 * come due within `horizonSeconds` (PostgreSQL's clock). Later ones are left for a later pass: an
 * offer made long ahead would only sit in Redis. `availableAt` comes back in the page's clock
 * frame: this process's clock plus what PostgreSQL says is left, so a skew between the clocks does
 * not move when dispatch hands a job out.
 */
export async function listQueuedJobRefs(
  db: DbOrTx,
  after: { createdAt: Date; id: string } | null,
  limit: number,
  horizonSeconds = 60,
): Promise<JobRef[]> {
  const rows = await db.execute<{ id: string; automation_id: string; created_at: Date; due_in_ms: number | string }>(sql`
    select id, automation_id, created_at, greatest(extract(epoch from available_at - now()) * 1000, 0) as due_in_ms from ${jobs}
    where status = 'queued' and available_at <= now() + make_interval(secs => ${horizonSeconds})
      ${after ? sql`and (created_at, id) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)` : sql``}
    order by created_at, id limit ${limit}`);
  const now = Date.now();
  return rows.rows.map((row) => ({
    id: row.id,
    automationId: row.automation_id,
    createdAt: new Date(row.created_at),
    availableAt: new Date(now + Number(row.due_in_ms)),
  }));
}
