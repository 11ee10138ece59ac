/** Releasing an approved job (CONTRACT §6.17): held → queued once nothing else holds it. */
import type { Executor, Job, jobs } from "@hub/db";

/**
 * The jobs an approval released, to offer to dispatch after the commit. Until jobs can be held
 * (stored `held`), no job awaiting approval is created, so nothing is released.
 */
export async function releaseApproved(_tx: Executor, _job: Job): Promise<jobs.JobRef[]> {
  return [];
}
