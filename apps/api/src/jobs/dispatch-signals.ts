/**
 * The Redis signals the API sends after a job change has committed ("PostgreSQL decides, Redis
 * delivers"). The change is already decided, so a signal that fails or hangs (Redis commands wait
 * for a reconnect) must never fail or stall the request: each is raced against a short timeout,
 * and a lost one costs only latency — the dispatcher's reconciler re-offers every queued job from
 * PostgreSQL, and long-polling claims re-check on their own every second.
 */
import type { JobRef } from "@hub/db";
import type { AppContext } from "../context";

/** How long a request waits for a Redis signal before answering anyway. */
export const SIGNAL_TIMEOUT_MS = 1000;

export type SignalOperation = "enqueue" | "offer" | "wake" | "remove";

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
  ctx: AppContext,
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
export const enqueueForDispatch = (ctx: AppContext, job: JobRef) =>
  sendSignal(ctx, "enqueue", job.automationId, () => ctx.dispatch.queue.enqueue([job]));

/** A job is queued again: make it claimable at once, in its original place (oldest first). */
export const offerAgain = (ctx: AppContext, job: JobRef) => sendSignal(ctx, "offer", job.automationId, () => ctx.dispatch.ready.offer([job]));

/** A slot was freed: waiting claims of the automation should look again. */
export const wakeClaims = (ctx: AppContext, automationId: string) =>
  sendSignal(ctx, "wake", automationId, () => ctx.dispatch.ready.wake(automationId));

/** These jobs are claimed or no longer queued: stop offering them. */
export const withdrawOffers = (ctx: AppContext, automationId: string, jobIds: string[]) =>
  sendSignal(ctx, "remove", automationId, () => ctx.dispatch.ready.remove(automationId, jobIds));
