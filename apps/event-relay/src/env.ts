import { z } from "zod";
import { commonEnvShape, envHelpers, parseEnv, webhookEnvShape } from "@hub/shared";
import { defaultRelayConfig } from "./config";

const { intFromEnv } = envHelpers;

export const relayEnvSchema = z.object({
  ...commonEnvShape,
  /** Port of the relay's /metrics and /healthz; 0 disables the server. */
  HUB_RELAY_METRICS_PORT: intFromEnv(9465, 0, 65_535),
  /** Approximate length the events stream is trimmed to (`XADD … MAXLEN ~`): its retention. */
  HUB_EVENTS_STREAM_MAXLEN: intFromEnv(defaultRelayConfig.streamMaxLen, 1, 1_000_000_000),
  /** Most events read, published and stamped together. */
  HUB_RELAY_BATCH_SIZE: intFromEnv(defaultRelayConfig.batchSize, 1, 10_000),
  /** Pause between outbox probes while there is nothing to publish, in the second after an event. */
  HUB_RELAY_IDLE_POLL_MS: intFromEnv(defaultRelayConfig.idlePollMs, 1, 10_000),
  /** Pause between outbox probes once no event was seen for a second (cheaper when quiet). */
  HUB_RELAY_QUIET_POLL_MS: intFromEnv(defaultRelayConfig.quietPollMs, 1, 10_000),
  /** How often a relay counts the live relays and takes or gives back partitions. */
  HUB_RELAY_REBALANCE_MS: intFromEnv(defaultRelayConfig.rebalanceMs, 50, 60_000),
  /** Longest wait for Redis to accept one batch before it counts as failed (and is retried). */
  HUB_RELAY_PUBLISH_TIMEOUT_MS: intFromEnv(defaultRelayConfig.publishTimeoutMs, 100, 120_000),
  /** Cap of the retry back-off while Redis or PostgreSQL is unavailable (low, so relaying resumes within seconds). */
  HUB_RELAY_MAX_BACKOFF_MS: intFromEnv(defaultRelayConfig.maxBackoffMs, 100, 300_000),
  ...webhookEnvShape,
  /** Webhook attempts one relay has in flight at once. */
  HUB_WEBHOOK_CONCURRENCY: intFromEnv(64, 1, 1000),
  /** Webhook attempts in flight per subscription (across relays, approximately): a slow endpoint takes no more. */
  HUB_WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION: intFromEnv(8, 1, 1000),
  /**
   * Development and tests only: multiplies the webhook retry schedule (5 s … 10 h) and the 24 h
   * after which a failing subscription is disabled; 0.001 turns 5 s into 5 ms.
   */
  HUB_WEBHOOK_TIME_SCALE: z.preprocess(
    (v) => (v === undefined || v === "" ? 1 : Number(v)),
    z.number("expected a number between 0.00001 and 1").min(0.00001, "must be ≥ 0.00001").max(1, "must be ≤ 1"),
  ),
});

export type RelayEnv = z.output<typeof relayEnvSchema>;

/** The relay's configuration, parsed once at start-up; the only reader of `process.env` here. */
export function loadRelayEnv(source: Record<string, string | undefined> = process.env): RelayEnv {
  return parseEnv(relayEnvSchema, source);
}
