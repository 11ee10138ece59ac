import { z } from "zod";
import { commonEnvShape, envHelpers, parseEnv } from "@hub/shared";
import { DISPATCHER_DEFAULTS } from "./config";

const { intFromEnv } = envHelpers;

export const dispatcherEnvSchema = z.object({
  ...commonEnvShape,
  /** Port of the dispatcher's /metrics and /healthz; 0 disables the server. */
  HUB_DISPATCHER_METRICS_PORT: intFromEnv(9464, 0, 65_535),
  /**
   * Dispatch messages one process offers in parallel. Each message carries a batch of jobs and
   * its offer is one pipelined Redis call, so one at a time keeps up; each extra slot makes BullMQ
   * fetch on its own (moveToActive), where with one slot the finished message fetches the next,
   * so one slot costs the fewest Redis commands per message.
   */
  HUB_DISPATCHER_CONCURRENCY: intFromEnv(DISPATCHER_DEFAULTS.offerConcurrency, 1, 1000),
  /** How often lapsed leases are looked for. */
  HUB_LEASE_SWEEP_INTERVAL_MS: intFromEnv(DISPATCHER_DEFAULTS.leaseSweepIntervalMs, 50, 60_000),
  /** How often every queued job is re-offered from PostgreSQL (a lost Redis is noticed within 1 s regardless). */
  HUB_RECONCILE_INTERVAL_MS: intFromEnv(DISPATCHER_DEFAULTS.reconcileIntervalMs, 500, 3_600_000),
  /** Finished jobs with their events, and other history, are removed this many days after they ended; 0 keeps everything. */
  HUB_RETENTION_DAYS: intFromEnv(DISPATCHER_DEFAULTS.retentionDays, 0, 36_500),
  /** Pause between retention sweeps (each runs until nothing more is due). */
  HUB_RETENTION_INTERVAL_MS: intFromEnv(DISPATCHER_DEFAULTS.retentionIntervalMs, 1000, 86_400_000),
  /** Most jobs, events or deliveries one retention transaction picks. */
  HUB_RETENTION_BATCH_SIZE: intFromEnv(DISPATCHER_DEFAULTS.retentionBatchSize, 10, 100_000),
  /**
   * How often alert rules are evaluated, once across every dispatcher (CONTRACT §6.19). Each
   * dispatcher looks every half interval, so a round follows the last within 1.5 intervals even
   * when the one that ran it died: at most 6,600 ms keeps the contract's 10 s.
   */
  HUB_ALERTS_EVALUATION_INTERVAL_MS: intFromEnv(DISPATCHER_DEFAULTS.alertEvaluationIntervalMs, 200, 6600),
});

export type DispatcherEnv = z.output<typeof dispatcherEnvSchema>;

/** The dispatcher's configuration, parsed once at start-up; the only reader of `process.env` here. */
export function loadDispatcherEnv(source: Record<string, string | undefined> = process.env): DispatcherEnv {
  return parseEnv(dispatcherEnvSchema, source);
}
