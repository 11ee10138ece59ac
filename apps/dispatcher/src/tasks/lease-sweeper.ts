/**
 * Leases and timeouts: running jobs whose lease lapsed, or that ran longer than their automation's
 * `timeout_seconds`, go back to `queued` after their back-off, or to `failed` (one statement for
 * both, every HUB_LEASE_SWEEP_INTERVAL_MS).
 */
import { jobs } from "@hub/db";
import type { DispatcherContext } from "../config";

const LEASE_SWEEP_BATCH = 200;

export function createLeaseSweeper({ database, logger, settings, metrics, ready, outbox }: DispatcherContext) {
  /** Counts, logs and offers what one sweep ended. */
  async function handleSwept({ requeued, failed }: jobs.SweptJobs, counter: typeof metrics.leasesExpired, what: string): Promise<void> {
    if (requeued.length + failed.length === 0) return;
    counter.inc({ outcome: "requeued" }, requeued.length);
    counter.inc({ outcome: "failed" }, failed.length);
    logger.info({ requeued: requeued.length, failed: failed.length }, what);
    // Re-queued jobs in back-off go to the delayed set; their freed slots wake claims either way.
    await ready.offerAgain(requeued.map(jobs.toJobRef));
    metrics.jobsOffered.inc({ path: "requeue" }, requeued.length);
    await ready.wake(...failed.map((job) => job.automationId));
    // Jobs waiting for the failed ones that run anyway (on_dependency_failure "run") may be due now (jobs/hold.ts);
    // a read only when one of them has dependents.
    const withDependents = jobs.hold.withDependents(failed);
    if (withDependents.length > 0) {
      const released = await jobs.hold.queuedDependentsOf(database.pool, withDependents);
      await ready.offerAgain(released);
      metrics.jobsOffered.inc({ path: "requeue" }, released.length);
    }
  }

  /** Lapsed leases and timed-out jobs, in bounded batches until a batch finds less than a full one of each. */
  return async function sweepOverdue(): Promise<void> {
    for (;;) {
      // One statement for both: an idle sweep costs one round trip, no explicit transaction.
      const { leases, timeouts } = await jobs.expireOverdue(database.pool, { maxAttempts: settings.maxAttempts, batchSize: LEASE_SWEEP_BATCH });
      const ended = (swept: jobs.SweptJobs) => swept.requeued.length + swept.failed.length;
      if (ended(leases) + ended(timeouts) === 0) return;
      outbox.nudge();
      await handleSwept(leases, metrics.leasesExpired, "lapsed leases expired");
      await handleSwept(timeouts, metrics.jobsTimedOut, "jobs past their timeout ended");
      if (ended(leases) < LEASE_SWEEP_BATCH && ended(timeouts) < LEASE_SWEEP_BATCH) return;
    }
  };
}
