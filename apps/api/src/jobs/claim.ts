/**
 * POST /jobs/claim: the worker's long-poll. Redis names the candidates (the automation's ready
 * set, oldest first) and PostgreSQL decides in one transaction (automation active and not in
 * development mode, below its concurrency limit, job still queued). A wake-up on the automation
 * (job offered, slot freed, pause ended) makes a waiting claim look again at once; without one it
 * re-checks every second, so a lost wake-up costs at most that.
 */
import { claimJob, type Job } from "@hub/db";
import type { AppContext } from "../context";
import type { AuthenticatedWorker } from "../http/auth";
import { withdrawOffers, withinTimeout } from "../dispatch/signals";

/** How many of the oldest ready ids one claim transaction considers. */
const CANDIDATES_PER_CLAIM = 20;
/** Fallback re-check while long-polling, in case a wake-up was lost. */
const RECHECK_INTERVAL_MS = 1000;

/**
 * Claims the oldest available job of the worker's automation, waiting up to `waitSeconds` for one.
 * Returns null when none became available in time, when `signal` aborts (the client went away) or
 * when the process is shutting down.
 */
export async function claimNextJob(ctx: AppContext, worker: AuthenticatedWorker, waitSeconds: number, signal: AbortSignal): Promise<Job | null> {
  const { metrics } = ctx;
  const stopTimer = metrics.jobs.claimDuration.startTimer();
  metrics.jobs.claimsWaiting.inc();
  try {
    const job = await pollForJob(ctx, worker, Date.now() + waitSeconds * 1000, signal);
    const outcome = job ? "claimed" : "empty";
    metrics.jobs.claims.inc({ outcome });
    stopTimer({ outcome });
    if (job?.startedAt) metrics.jobs.queueWait.observe((job.startedAt.getTime() - job.createdAt.getTime()) / 1000);
    return job;
  } finally {
    metrics.jobs.claimsWaiting.dec();
  }
}

async function pollForJob(ctx: AppContext, worker: AuthenticatedWorker, deadline: number, signal: AbortSignal): Promise<Job | null> {
  const { automationId } = worker;
  for (;;) {
    // A client that hung up gets nothing: a job claimed now would sit running until its lease lapsed.
    if (signal.aborted) return null;
    // Registered before looking, so a wake-up between the look and the wait is not lost.
    const waiter = ctx.dispatch.wakes.register(automationId);
    // A wake-up wakes one claim (see WakeListener.wakeOne): a claim that leaves without looking
    // again passes on the one that reached it, and one that claimed while more jobs were ready
    // wakes the next.
    let leaving = true;
    let moreReady = false;
    try {
      const candidateIds = await readyCandidates(ctx, automationId);
      if (candidateIds.length > 0) {
        const outcome = await ctx.db.transaction((tx) =>
          claimJob(tx, { automationId, workerId: worker.id, candidateIds, leaseSeconds: ctx.env.HUB_JOB_LEASE_SECONDS }),
        );
        switch (outcome.kind) {
          case "claimed":
            await withdrawOffers(ctx, automationId, [outcome.job.id, ...outcome.staleIds]);
            moreReady = candidateIds.length > 1 + outcome.staleIds.length;
            return outcome.job;
          case "none":
            // Stale ids hid what lies behind them: drop them and look again at once.
            if (outcome.staleIds.length > 0 && (await withdrawOffers(ctx, automationId, outcome.staleIds))) {
              leaving = false;
              continue;
            }
            break;
          case "blocked":
            break;
          default: {
            const exhaustive: never = outcome;
            throw new Error(`unknown claim outcome ${JSON.stringify(exhaustive)}`);
          }
        }
      }
      const remainingMs = deadline - Date.now();
      if (remainingMs <= 0 || ctx.dispatch.wakes.stopped || signal.aborted) return null;
      await waiter.wait(Math.min(remainingMs, RECHECK_INTERVAL_MS), signal);
      leaving = signal.aborted;
    } finally {
      waiter.cancel();
      if (leaving && (waiter.woken || moreReady)) ctx.dispatch.wakes.wakeOne(automationId);
    }
  }
}

/**
 * The oldest ids offered to the automation; bounded, so while Redis is away a claim finds nothing
 * and still answers 204 in time.
 */
async function readyCandidates(ctx: AppContext, automationId: string): Promise<string[]> {
  try {
    return await withinTimeout(ctx.dispatch.ready.candidates(automationId, CANDIDATES_PER_CLAIM), RECHECK_INTERVAL_MS);
  } catch (error) {
    ctx.logger.warn({ err: error, automationId }, "could not read ready jobs from Redis");
    return [];
  }
}
