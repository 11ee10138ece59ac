/**
 * Approvals (CONTRACT §6.17): a job whose approval is still pending at its `expires_at` becomes
 * `cancelled` with `reason: "approval_expired"`, within 5 s, exactly once however many dispatchers
 * run — one conditional UPDATE over jobs_approval_expiry_idx with `FOR UPDATE SKIP LOCKED`
 * (@hub/db `jobs.expireDue`), every {@link APPROVAL_EXPIRY_INTERVAL_MS}. With no approval
 * pending it is one probe of an empty index; jobs that need no approval are never read.
 */
import { jobs } from "@hub/db";
import type { DispatcherContext } from "../config";
import { inSweepSpan, sweepStart } from "../job-tracing";

/** How often every dispatcher looks: an expiry lands at most this (plus one statement) late. */
export const APPROVAL_EXPIRY_INTERVAL_MS = 2000;

const APPROVAL_EXPIRY_BATCH = 200;

export function createApprovalExpiry({ database, logger, metrics, outbox, ready }: DispatcherContext) {
  /** Counts, logs and offers what one pass ended. */
  async function handleExpired(expired: readonly jobs.ExpiredApproval[]): Promise<void> {
    metrics.approvalsExpired.inc(expired.length);
    logger.info({ expired: expired.length }, "approval requests expired");
    // Jobs waiting for the expired ones that run anyway (on_dependency_failure "run") may be due now (jobs/hold.ts).
    const withDependents = jobs.hold.withDependents(expired);
    if (withDependents.length > 0) {
      const released = await jobs.hold.queuedDependentsOf(database.pool, withDependents);
      await ready.offerAgain(released);
      metrics.jobsOffered.inc({ path: "requeue" }, released.length);
    }
  }

  return async function expireApprovals(): Promise<void> {
    for (;;) {
      const startedAt = sweepStart();
      const expired = await jobs.expireDue(database.pool, APPROVAL_EXPIRY_BATCH);
      if (expired.length === 0) return;
      // A held job was never offered to Redis: nothing to withdraw; its events go out now.
      outbox.nudge();
      // With tracing on, the hand-off is a span of the jobs' traces, from the statement on (../job-tracing.ts).
      await inSweepSpan("approval_expired", { cancelled: expired }, startedAt, () => handleExpired(expired));
      if (expired.length < APPROVAL_EXPIRY_BATCH) return;
    }
  };
}
