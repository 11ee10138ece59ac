/**
 * The horizon: one pass every HORIZON_PASS_INTERVAL_MS (by whichever replica takes its lock) brings
 * the queued jobs that come due within DELAYED_HORIZON_MS from PostgreSQL into the delayed set,
 * continuing from where the last pass stopped (the `delayedHorizon` key), so each job is read
 * about once as it nears and a job due next week costs nothing before then.
 */
import { jobs } from "@hub/db";
import { DELAYED_HORIZON_MS } from "@hub/shared/dispatch";
import type { DispatcherContext } from "../config";
import { forEachQueuedPage } from "./queued-jobs";

export function createHorizon({ database, redis, keys, settings, metrics, ready }: DispatcherContext) {
  /**
   * The horizon pass: puts the queued jobs due within DELAYED_HORIZON_MS in the delayed set. It
   * continues after the time the last pass reached (kept in Redis, so replicas share it); "full",
   * and when that time is unknown (first pass, Redis lost its data), it starts from now. Jobs that
   * enter the window otherwise — created, re-queued or rescheduled — are placed by whoever made
   * the change (ReadyJobs.offer holds jobs due within DELAYED_HOLD_MS).
   */
  async function bringJobsNearingDue(scope: "continue" | "full"): Promise<void> {
    const now = await jobs.databaseNow(database.pool);
    const until = new Date(now.getTime() + DELAYED_HORIZON_MS);
    const reached = scope === "full" ? null : await redis.get(keys.delayedHorizon);
    const from = reached === null ? now : new Date(Math.max(Number(reached), now.getTime()));
    const held = await forEachQueuedPage(database, { from, until }, (page) => ready.holdUntilDue(page));
    await redis.set(keys.delayedHorizon, String(until.getTime()));
    metrics.jobsOffered.inc({ path: "horizon" }, held);
  }

  return {
    bringJobsNearingDue,
    /** Horizon passes are spread over replicas like reconciliation: whoever takes the short lock runs the interval's pass. */
    async passOnInterval(): Promise<void> {
      const interval = settings.horizonPassIntervalMs;
      const taken = await redis.set(keys.lock("horizon"), String(process.pid), "PX", Math.max(interval - 100, 100), "NX");
      if (taken === "OK") await bringJobsNearingDue("continue");
    },
  };
}

export type Horizon = ReturnType<typeof createHorizon>;
