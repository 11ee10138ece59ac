/** Waiting between calls: sleeps that a signal cuts short, and the back-off after a failed call. */
import { HubRequestError } from "./errors.js";

const MIN_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5_000;
/** The most a `Retry-After` may hold a worker back, so a mistaken header cannot park it for hours. */
const MAX_RETRY_AFTER_MS = 300_000;

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The wait before calling again after `error`: doubling from 200 ms to 5 s (with up to 20 %
 * jitter, so a fleet of workers does not retry in step), and never shorter than the hub's
 * `Retry-After` when it sent one (503 while PostgreSQL or Redis is down, 429).
 */
export function nextBackoff(previousMs: number, error: unknown): number {
  const doubled = Math.min(Math.max(previousMs * 2, MIN_BACKOFF_MS), MAX_BACKOFF_MS) * (1 + Math.random() * 0.2);
  const retryAfterMs = error instanceof HubRequestError ? error.retryAfterMs : undefined;
  return Math.round(retryAfterMs === undefined ? doubled : Math.max(doubled, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)));
}
