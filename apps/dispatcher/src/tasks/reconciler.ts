/**
 * Reconciliation: every queued job in PostgreSQL that is due is (re-)offered, repairing any lost
 * signal — on an interval, and at once, with a full horizon pass, when the epoch key shows that
 * Redis lost its data (restart without persistence, FLUSHDB).
 */
import { jobs } from "@hub/db";
import type { DispatcherContext } from "../config";
import type { Horizon } from "./horizon";
import { forEachQueuedPage } from "./queued-jobs";

export function createReconciler(context: DispatcherContext, horizon: Horizon) {
  const { database, redis, keys, logger, settings, metrics, ready, shards } = context;

  /**
   * Offers every queued job that is due (PostgreSQL's clock), even if claimed before (it was queued
   * again since); with `trigger` "redis_lost" also rebuilds the delayed set with a full horizon pass.
   */
  async function reconcileAll(trigger: "interval" | "redis_lost"): Promise<void> {
    const now = await jobs.databaseNow(database.pool);
    const offered = await forEachQueuedPage(database, { from: null, until: now }, (page) => ready.offerDue(page));
    if (trigger === "redis_lost") await horizon.bringJobsNearingDue("full");
    metrics.reconciliations.inc({ trigger });
    metrics.jobsOffered.inc({ path: "reconcile" }, offered);
    if (trigger === "redis_lost" || offered > 0) logger.debug({ trigger, offered }, "reconciled queued jobs into Redis");
  }

  return {
    reconcileAll,
    /**
     * Each shard has its own epoch key, in its own slot: on a cluster one master may come back empty
     * while the others kept their data, and only the lost shards' keys are then missing.
     */
    async checkEpoch(): Promise<void> {
      const present = await Promise.all(shards.map((shard) => redis.exists(keys.dispatchEpoch(shard))));
      const lost = shards.filter((shard) => present[shard] !== 1);
      if (lost.length === 0) return;
      logger.warn(
        { shards: lost.length === keys.shards ? "all" : lost },
        "Redis holds no dispatch state (restarted, flushed, or a cluster master came back empty): re-offering every queued job",
      );
      await reconcileAll("redis_lost");
      const epoch = new Date().toISOString();
      await Promise.all(lost.map((shard) => redis.set(keys.dispatchEpoch(shard), epoch)));
    },
    /** Full passes are spread over replicas: whoever takes the short lock does the interval's pass. */
    async reconcileOnInterval(): Promise<void> {
      const interval = settings.reconcileIntervalMs;
      const taken = await redis.set(keys.lock("reconcile"), String(process.pid), "PX", Math.max(interval - 100, 100), "NX");
      if (taken === "OK") await reconcileAll("interval");
    },
  };
}
