/**
 * Offering released jobs after the commit (packages/db/src/sql/jobs/hold.ts): a held job becomes
 * `queued` in the transaction that removes its last hold, and the process that committed it then
 * hands it to dispatch as POST /jobs hands a created job. Nothing here may fail or stall the request
 * whose change is already committed: if an offer is lost (or the process dies first), the
 * dispatcher's reconciler offers the job from PostgreSQL, as it does every due queued job.
 */
import { jobs } from "@hub/db";
import type { AppContext } from "../context";
import { enqueueForDispatch } from "../dispatch/signals";

type OfferContext = Pick<AppContext, "database" | "dispatch" | "logger" | "metrics">;

/** Jobs a release (approval, …) made queued in a transaction that has committed: offer them. */
export function offerReleased(ctx: OfferContext, released: jobs.JobRef[]): void {
  if (released.length > 0) enqueueForDispatch(ctx, released);
}

/**
 * `finished` were just finished in a committed transaction (complete, fail, cancel, …): the jobs
 * waiting for those that have dependents may have been released by it (the dependency trigger,
 * packages/db/functions/hub_finish_dependency_v1.sql). One read of their queued dependents, only
 * when one of them has dependents — a finish of a job no job waits for costs nothing here.
 */
export async function offerReleasedDependents(ctx: OfferContext, finished: ReadonlyArray<{ id: string; hasDependents?: boolean | null }>): Promise<void> {
  const ids = jobs.hold.withDependents(finished);
  if (ids.length === 0) return;
  try {
    offerReleased(ctx, await jobs.hold.queuedDependentsOf(ctx.database.pool, ids));
  } catch (error) {
    ctx.logger.warn({ err: error, jobs: ids.length }, "could not read the dependents a finish released; the dispatcher's reconciler will offer them");
  }
}
