/**
 * POST /jobs/claim and POST /jobs/claim-batch, and the claim of POST /jobs/{job_id}/complete-and-claim:
 * the long-poll (./long-poll.ts, which holds the rule that no due job waits while a claim is open)
 * wired to this process's Redis and PostgreSQL, with its metrics.
 */
import { type Job, jobs } from "@hub/db";
import { settleWithin } from "@hub/shared";
import { activeTracing } from "@hub/tracing";
import type { AppContext } from "../context";
import type { AuthenticatedWorker } from "../http/auth";
import { wakeClaims, withdrawClaimed, withdrawOffers } from "../dispatch/signals";
import { longPoll, type LongPollPort, type PendingCompletion } from "./long-poll";

export type { PendingCompletion } from "./long-poll";

/** Longest wait for Redis to list the ready jobs: while Redis is away a claim finds nothing and still answers in time. */
const READY_READ_TIMEOUT_MS = 1000;

export interface ClaimRequest {
  maxJobs: number;
  waitSeconds: number;
  /** A result to record first (complete-and-claim): see LongPollRequest.completing. */
  completing?: PendingCompletion;
}

/** The long-poll's port on this process's Redis and PostgreSQL, one per worker (its fence). */
function portOf(ctx: AppContext, worker: AuthenticatedWorker, completing: PendingCompletion | undefined): LongPollPort {
  const pool = ctx.database.pool;
  const leaseSeconds = ctx.env.HUB_JOB_LEASE_SECONDS;
  const fence = { id: worker.id, automationId: worker.automationId, attempt: completing?.attempt };
  // A tracing API hands every claimed job out with its trace context (./claimed-job.ts): the claim's statement reads it.
  const withTraceContext = activeTracing() !== undefined;
  return {
    wakes: ctx.dispatch.wakes,
    async readyCandidates(automationId, count) {
      try {
        return await settleWithin(ctx.dispatch.ready.candidates(automationId, count), READY_READ_TIMEOUT_MS);
      } catch (error) {
        ctx.logger.warn({ err: error, automationId }, "could not read ready jobs from Redis");
        return [];
      }
    },
    claim: (request) => jobs.claim(pool, { workerId: worker.id, leaseSeconds, withTraceContext, ...request }),
    completeAndClaim: async (pending, request) => {
      const both = await jobs.completeAndClaim(pool, pending.jobId, fence, pending.result, { leaseSeconds, withTraceContext, ...request });
      return both.claimed ? { completed: both.completed, claimed: both.claimed } : { completed: both.completed };
    },
    complete: (pending) => jobs.complete(pool, pending.jobId, fence, pending.result),
    wakeClaims: (automationId) => wakeClaims(ctx, automationId),
    withdrawClaimed: (automationId, claimed) => withdrawClaimed(ctx, automationId, claimed),
    withdrawOffers: (automationId, stale) => withdrawOffers(ctx, automationId, stale),
    countStatement: (kind) => ctx.metrics.jobs.claimStatements.inc({ outcome: kind }),
  };
}

/**
 * Claims up to `maxJobs` available jobs of the worker's automation in claim order, waiting up to
 * `waitSeconds` for at least one. Returns [] when none became available in time, when `signal`
 * aborts (the client went away) or when the process is shutting down.
 */
export async function claimNextJobs(ctx: AppContext, worker: AuthenticatedWorker, request: ClaimRequest, signal: AbortSignal): Promise<Job[]> {
  const { metrics } = ctx;
  const stopTimer = metrics.jobs.claimDuration.startTimer();
  metrics.jobs.claimsWaiting.inc();
  try {
    const { completing } = request;
    const port = portOf(ctx, worker, completing);
    const deadline = Date.now() + request.waitSeconds * 1000;
    const claimed = await longPoll(port, { automationId: worker.automationId, maxJobs: request.maxJobs, deadline, completing }, signal);
    // A refused result started no claim.
    if (completing?.outcome?.ok === false) return claimed;
    const outcome = claimed.length > 0 ? "claimed" : "empty";
    metrics.jobs.claims.inc({ outcome });
    stopTimer({ outcome });
    // Measured from available_at (CONTRACT §6.3): a job set to run next week did not wait a week.
    for (const job of claimed) if (job.startedAt) metrics.jobs.queueWait.observe(Math.max(0, job.startedAt.getTime() - job.availableAt.getTime()) / 1000);
    return claimed;
  } finally {
    metrics.jobs.claimsWaiting.dec();
  }
}

/** The single-job form (POST /jobs/claim, and the claim of POST /jobs/{job_id}/complete-and-claim). */
export async function claimNextJob(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  waitSeconds: number,
  signal: AbortSignal,
  options: Pick<ClaimRequest, "completing"> = {},
): Promise<Job | null> {
  const [job] = await claimNextJobs(ctx, worker, { maxJobs: 1, waitSeconds, ...options }, signal);
  return job ?? null;
}
