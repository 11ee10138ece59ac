/**
 * The Redis signals the API sends after a change has committed (jobs, automations, workers) ("PostgreSQL decides, Redis
 * delivers"). The change is already decided, so a signal that fails or hangs (Redis commands wait
 * for a reconnect) must never fail or stall the request: each is raced against a short timeout,
 * and a lost one costs only latency — the dispatcher's reconciler re-offers every queued job from
 * PostgreSQL, and long-polling claims re-check on their own every second.
 */
import type { JobRef } from "@hub/db";
import type { AppContext } from "../context";

/** How long a request waits for a Redis signal before answering anyway. */
export const SIGNAL_TIMEOUT_MS = 1000;

export type SignalOperation = "enqueue" | "offer" | "wake" | "remove" | "clear";

/** What sending a signal needs from the app context. */
export type SignalContext = Pick<AppContext, "dispatch" | "logger" | "metrics">;

/**
 * Settles like `work`, or rejects after `timeoutMs`. Redis commands wait for a reconnect rather
 * than fail, so every Redis call a request depends on is bounded this way.
 */
export async function withinTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  // The late outcome of a timed-out call has no one left to hear it.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves true when `send` settled within the timeout, false (logged, counted) otherwise. */
export async function sendSignal(
  ctx: SignalContext,
  operation: SignalOperation,
  automationId: string,
  send: () => Promise<void>,
): Promise<boolean> {
  try {
    await withinTimeout(send(), SIGNAL_TIMEOUT_MS);
    return true;
  } catch (error) {
    ctx.metrics.jobs.dispatchSignalFailures.inc({ operation });
    ctx.logger.warn({ err: error, operation, automationId }, "dispatch signal to Redis failed; the dispatcher's reconciler will repair it");
    return false;
  }
}

/** A new job is committed: hand it to the dispatcher (idempotent per job id). */
export const enqueueForDispatch = (ctx: SignalContext, job: JobRef) =>
  sendSignal(ctx, "enqueue", job.automationId, () => ctx.dispatch.queue.enqueue([job]));

/** Jobs of one automation are queued again: make them claimable at once, in their original place (oldest first). */
export const offerAgain = async (ctx: SignalContext, automationId: string, jobs: JobRef[]) =>
  jobs.length === 0 || sendSignal(ctx, "offer", automationId, () => ctx.dispatch.ready.offerAgain(jobs));

/**
 * `slots` slots were freed, or a limit raised or a pause ended: as many waiting claims of the
 * automation should look again (one wake-up each).
 */
export const wakeClaims = (ctx: SignalContext, automationId: string, slots = 1) =>
  sendSignal(ctx, "wake", automationId, () => ctx.dispatch.ready.wake(...Array<string>(slots).fill(automationId)));

/** These jobs are no longer queued: stop offering them. */
export const withdrawOffers = (ctx: SignalContext, automationId: string, jobIds: string[]) =>
  sendSignal(ctx, "remove", automationId, () => ctx.dispatch.ready.remove(automationId, jobIds));

/** These jobs were just claimed: stop offering them, and drop an offer of them that arrives late. */
export const withdrawClaimed = (ctx: SignalContext, automationId: string, jobIds: string[]) =>
  sendSignal(ctx, "remove", automationId, () => ctx.dispatch.ready.markClaimed(automationId, jobIds));

/** The automation was deactivated: forget every offer it had. */
export const clearOffers = (ctx: SignalContext, automationId: string) =>
  sendSignal(ctx, "clear", automationId, () => ctx.dispatch.ready.clear(automationId));
