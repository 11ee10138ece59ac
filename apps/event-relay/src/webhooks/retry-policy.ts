/**
 * When a failed webhook attempt is tried again (CONTRACT §6.7): after about 5 s, 5 min, 30 min,
 * 2 h, 5 h and 10 h, each ±20 % (so subscriptions failing together do not retry in step); after
 * the seventh attempt the delivery is `failed`. A subscription whose deliveries have failed for
 * 24 h is disabled.
 *
 * `scale` multiplies every one of these durations (HUB_WEBHOOK_TIME_SCALE): 1 in production; tests
 * and demos use e.g. 0.001, which turns 5 s into 5 ms and 24 h into 86.4 s.
 */

/** The waits after the 1st, 2nd, … failed attempt; one more failure after the last ends it. */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000];

/** A subscription failing (no attempt delivered) for this long is disabled. */
export const WEBHOOK_DISABLE_AFTER_MS = 24 * 3_600_000;

/** Jitter: each wait is drawn from [80 %, 120 %] of its nominal value. */
const JITTER = 0.2;

/**
 * The wait before the next attempt after `failedAttempts` attempts of this round failed (1 after
 * the first), or null when that was the last attempt.
 */
export function webhookRetryDelayMs(failedAttempts: number, scale: number, random: () => number = Math.random): number | null {
  const nominal = WEBHOOK_RETRY_DELAYS_MS[failedAttempts - 1];
  if (nominal === undefined) return null;
  return Math.round(nominal * scale * (1 - JITTER + 2 * JITTER * random()));
}

/** How long a subscription may fail before it is disabled, at `scale`. */
export function webhookDisableAfterMs(scale: number): number {
  return Math.round(WEBHOOK_DISABLE_AFTER_MS * scale);
}
