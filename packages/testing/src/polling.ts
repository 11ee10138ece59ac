/** Waiting in tests for what happens in the background: polls, never timed assertions. */

/** Resolves after `ms`, or at once when `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** How often {@link eventually} looks again, by default. */
const POLL_INTERVAL_MS = 50;

/**
 * Polls `probe` every `intervalMs` until `accept` holds and returns that value; throws, naming
 * what it waited for and the last value seen, after `timeoutMs` (generous: the machine may be
 * loaded).
 */
export async function eventually<T>(
  description: string,
  probe: () => Promise<T> | T,
  accept: (value: T) => boolean,
  timeoutMs = 30_000,
  intervalMs = POLL_INTERVAL_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${description}; last seen: ${JSON.stringify(value)}`);
    await sleep(intervalMs);
  }
}

/** {@link eventually} for a condition: resolves once `check` returns true. */
export async function waitUntil(
  description: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  intervalMs = POLL_INTERVAL_MS,
): Promise<void> {
  await eventually(description, check, (holds) => holds, timeoutMs, intervalMs);
}
