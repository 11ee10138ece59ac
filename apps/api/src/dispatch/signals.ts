/**
 * The Redis signals the API sends after a change has committed (jobs, automations, workers) ("PostgreSQL decides, Redis
 * delivers"). The change is already decided, so a signal that fails or hangs (Redis commands wait
 * for a reconnect) must never fail or stall the request: new jobs go to a background batcher the
 * request does not wait for, every other signal is raced against a short timeout,
 * and a lost one costs only latency — the dispatcher's reconciler re-offers every queued job from
 * PostgreSQL, and long-polling claims re-check on their own every second.
 */
import type { jobs } from "@hub/db";
import { settleWithin } from "@hub/shared";
import type { ReadyJobKey } from "@hub/shared/dispatch";
import type { AppContext } from "../context";

/** How long a request waits for a Redis signal before answering anyway. */
export const SIGNAL_TIMEOUT_MS = 1000;

export type SignalOperation = "enqueue" | "offer" | "wake" | "remove" | "clear" | "reschedule";

/** What sending a signal needs from the app context. */
export type SignalContext = Pick<AppContext, "dispatch" | "logger" | "metrics">;

/** Resolves true when `send` settled within the timeout, false (logged, counted) otherwise. */
export async function sendSignal(ctx: SignalContext, operation: SignalOperation, automationId: string, send: () => Promise<void>): Promise<boolean> {
  try {
    await settleWithin(send(), SIGNAL_TIMEOUT_MS);
    return true;
  } catch (error) {
    ctx.metrics.jobs.dispatchSignalFailures.inc({ operation });
    ctx.logger.warn({ err: error, operation, automationId }, "dispatch signal to Redis failed; the dispatcher's reconciler will repair it");
    return false;
  }
}

/**
 * New jobs are committed: hand them to the dispatcher. Returns at once — the process's batcher
 * sends them to Redis within a few milliseconds, together with other requests' jobs, and reports
 * a failed send or a full buffer through `reportLostEnqueues` (wired in ../app.ts).
 */
export const enqueueForDispatch = (ctx: SignalContext, jobs: jobs.JobRef[]): void => ctx.dispatch.queue.submit(jobs);

/**
 * Jobs the batcher could not hand to Redis (a failed or timed-out send, a full buffer): counted
 * and logged. They stay queued in PostgreSQL and the dispatcher's reconciler offers them.
 */
export function reportLostEnqueues(
  ctx: Pick<SignalContext, "logger" | "metrics">,
  count: number,
  reason: "send_failed" | "buffer_full",
  error?: unknown,
): void {
  ctx.metrics.jobs.dispatchSignalFailures.inc({ operation: "enqueue" }, count);
  ctx.logger.warn({ err: error, jobs: count, reason }, "handing committed jobs to the dispatch queue failed; the dispatcher's reconciler will offer them");
}

/** Jobs of one automation are queued again: make them claimable at once (or once due), in their place in claim order. */
export const offerAgain = async (ctx: SignalContext, automationId: string, jobs: jobs.JobRef[]) =>
  jobs.length === 0 || sendSignal(ctx, "offer", automationId, () => ctx.dispatch.ready.offerAgain(jobs));

/**
 * `slots` slots were freed, or a limit raised or a pause ended: as many waiting claims of the
 * automation should look again (one wake-up each).
 */
export const wakeClaims = (ctx: SignalContext, automationId: string, slots = 1) =>
  sendSignal(ctx, "wake", automationId, () => ctx.dispatch.ready.wake(...Array<string>(slots).fill(automationId)));

/** These jobs are no longer queued: stop offering them. */
export const withdrawOffers = (ctx: SignalContext, automationId: string, jobs: readonly ReadyJobKey[]) =>
  sendSignal(ctx, "remove", automationId, () => ctx.dispatch.ready.remove(automationId, jobs));

/** These jobs were just claimed: stop offering them, and drop an offer of them that arrives late. */
export const withdrawClaimed = (ctx: SignalContext, automationId: string, jobs: readonly ReadyJobKey[]) =>
  sendSignal(ctx, "remove", automationId, () => ctx.dispatch.ready.markClaimed(automationId, jobs));

/**
 * A queued job's priority or time changed: move its offer to its new place in claim order (or to
 * the delayed set, or out of Redis until its time nears). `previous` is the job before the change.
 */
export const moveOffer = (ctx: SignalContext, previous: jobs.JobRef, current: jobs.JobRef) =>
  sendSignal(ctx, "reschedule", current.automationId, () => ctx.dispatch.ready.reschedule(previous, current));

/** The automation was deactivated: forget every offer it had. */
export const clearOffers = (ctx: SignalContext, automationId: string) => sendSignal(ctx, "clear", automationId, () => ctx.dispatch.ready.clear(automationId));
