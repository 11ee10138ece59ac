import type { WebhookTargetPolicy } from "@hub/shared/webhooks";

/** The delivery loop's tunables, with their defaults (the app sets them from `env.ts`). */
export interface WebhookDeliveryConfig {
  /** SSRF policy: `http://` and private addresses (development and tests only). Default: both refused. */
  policy: WebhookTargetPolicy;
  /** The whole attempt, connection included (CONTRACT §6.7: 10 s). */
  requestTimeoutMs: number;
  /**
   * How long a claimed delivery belongs to this relay. A relay that dies mid-attempt holds its
   * deliveries this long; another relay then sends them again. Above the request timeout, so a
   * live relay always records its outcome first. Default 30 s.
   */
  leaseMs: number;
  /** Attempts this relay has in flight at once. Default 64. */
  maxInFlight: number;
  /** Attempts in flight per subscription (across relays, approximately): a slow endpoint takes no more slots. Default 8. */
  maxInFlightPerWebhook: number;
  /**
   * Pause between looks for due deliveries while nothing wakes the loop (retries come due this
   * way). Default 250 ms; while passes find nothing it doubles, up to four times this.
   */
  pollMs: number;
  /**
   * How long a finished attempt waits for others before the loop records them and claims again:
   * one pass (two statements) then serves several outcomes rather than one each. Default 2 ms.
   */
  outcomeCoalesceMs: number;
  /** Multiplies the retry schedule and the 24 h disable window (HUB_WEBHOOK_TIME_SCALE; 1 in production). */
  timeScale: number;
  /** The most bytes of an answer read. Default 64 KiB. */
  maxResponseBytes: number;
  /** On stop, how long attempts in flight may finish before they are aborted and given back. Default 3000 ms. */
  stopGraceMs: number;
  /** Cap of the back-off while PostgreSQL is unavailable. Default 2000 ms. */
  maxBackoffMs: number;
}

export const defaultWebhookDeliveryConfig: WebhookDeliveryConfig = {
  policy: { allowInsecure: false, allowPrivate: false },
  requestTimeoutMs: 10_000,
  leaseMs: 30_000,
  maxInFlight: 64,
  maxInFlightPerWebhook: 8,
  pollMs: 250,
  outcomeCoalesceMs: 2,
  timeScale: 1,
  maxResponseBytes: 64 * 1024,
  stopGraceMs: 3000,
  maxBackoffMs: 2000,
};
