/** Releasing an approved job (CONTRACT §6.17): held → queued once nothing else holds it (packages/db/src/sql/jobs/hold.ts). */
import { jobs, type Executor, type Job } from "@hub/db";

/**
 * In the deciding transaction, after the approval was recorded: the job becomes queued, due at the
 * later of its own `available_at` and now, unless a dependency still holds it (§6.16: it waits for
 * both). Returns what was released, to offer after the commit.
 */
export async function releaseApproved(tx: Executor, job: Job): Promise<jobs.JobRef[]> {
  return jobs.hold.release(tx, [job.id]);
}
