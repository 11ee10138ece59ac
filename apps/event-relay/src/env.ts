import { z } from "zod";
import { commonEnvShape, envHelpers, parseEnv } from "@hub/shared";

const { intFromEnv } = envHelpers;

export const relayEnvSchema = z.object({
  ...commonEnvShape,
  /** Port of the relay's /metrics and /healthz; 0 disables the server. */
  HUB_RELAY_METRICS_PORT: intFromEnv(9465, 0, 65_535),
  /** Approximate length the events stream is trimmed to (`XADD … MAXLEN ~`): its retention. */
  HUB_EVENTS_STREAM_MAXLEN: intFromEnv(100_000, 1, 1_000_000_000),
  /** Most events read, published and stamped together. */
  HUB_RELAY_BATCH_SIZE: intFromEnv(500, 1, 10_000),
  /** Pause between outbox probes while there is nothing to publish, in the second after an event. */
  HUB_RELAY_IDLE_POLL_MS: intFromEnv(10, 1, 10_000),
  /** Pause between outbox probes once no event was seen for a second (cheaper when quiet). */
  HUB_RELAY_QUIET_POLL_MS: intFromEnv(25, 1, 10_000),
  /** How often a relay counts the live relays and takes or gives back partitions. */
  HUB_RELAY_REBALANCE_MS: intFromEnv(1000, 50, 60_000),
  /** Longest wait for Redis to accept one batch before it counts as failed (and is retried). */
  HUB_RELAY_PUBLISH_TIMEOUT_MS: intFromEnv(5000, 100, 120_000),
  /** Cap of the retry back-off while Redis or PostgreSQL is unavailable (low, so relaying resumes within seconds). */
  HUB_RELAY_MAX_BACKOFF_MS: intFromEnv(2000, 100, 300_000),
});

export type RelayEnv = z.output<typeof relayEnvSchema>;

/** The relay's configuration, parsed once at start-up; the only reader of `process.env` here. */
export function loadRelayEnv(source: Record<string, string | undefined> = process.env): RelayEnv {
  return parseEnv(relayEnvSchema, source);
}
