/** The dispatcher's settings: what its caller passes, their defaults, and what the tasks share. */
import type { Database } from "@hub/db";
import type { Logger, OutboxNudger, RedisConnection, RedisKeys } from "@hub/shared";
import type { ReadyJobs } from "@hub/shared/dispatch";
import type { DispatcherMetrics } from "./metrics";

export interface DispatcherConfig {
  /** HUB_JOB_MAX_ATTEMPTS: where an automation sets no max_attempts, a lapsed lease or timeout after this many attempts fails the job. */
  maxAttempts: number;
  /** HUB_WORKER_TTL_SECONDS. */
  workerTtlSeconds: number;
  /** Dispatch messages offered in parallel by this process (HUB_DISPATCHER_CONCURRENCY). Defaults: {@link DISPATCHER_DEFAULTS}. */
  offerConcurrency?: number;
  /** How often lapsed leases and timed-out jobs are looked for. */
  leaseSweepIntervalMs?: number;
  /**
   * Longest the delayed timer sleeps without looking (it sleeps until the earliest delayed job is
   * due, and is woken when an earlier one arrives): bounds the lateness of a job whose wake-up was
   * lost, which only a process older than this one (a rolling upgrade) or a clock step can cause.
   */
  delayedPromoteMaxSleepMs?: number;
  /** How often silent workers are marked stopped. Default: a tenth of HUB_WORKER_TTL_SECONDS, from 1 s to 5 s. */
  workerSweepIntervalMs?: number;
  /** Reconciliation interval (every due queued job re-offered). */
  reconcileIntervalMs?: number;
  /** How often the horizon pass brings jobs coming due from PostgreSQL into the delayed set. Default HORIZON_PASS_INTERVAL_MS. */
  horizonPassIntervalMs?: number;
  /** How often the epoch key is checked to notice a Redis that lost its data. */
  epochCheckIntervalMs?: number;
  /** HUB_RETENTION_DAYS: finished jobs and other history older than this many days are removed; 0 keeps everything. */
  retentionDays?: number;
  /** HUB_RETENTION_INTERVAL_MS: pause between retention sweeps. */
  retentionIntervalMs?: number;
  /** HUB_RETENTION_BATCH_SIZE: most jobs, events or deliveries one retention transaction picks. */
  retentionBatchSize?: number;
  /** HUB_ALERTS_EVALUATION_INTERVAL_MS: how often alert rules are evaluated, across all dispatchers (CONTRACT §6.19: at least every 10 s). */
  alertEvaluationIntervalMs?: number;
}

/** The defaults of the optional {@link DispatcherConfig} settings (env.ts defaults its variables to them). */
export const DISPATCHER_DEFAULTS = {
  offerConcurrency: 1,
  leaseSweepIntervalMs: 1000,
  delayedPromoteMaxSleepMs: 5000,
  reconcileIntervalMs: 5000,
  epochCheckIntervalMs: 1000,
  horizonPassIntervalMs: 10_000,
  retentionDays: 30,
  retentionIntervalMs: 60_000,
  retentionBatchSize: 1000,
  alertEvaluationIntervalMs: 5000,
} satisfies Required<Omit<DispatcherConfig, "maxAttempts" | "workerTtlSeconds" | "workerSweepIntervalMs">>;

/**
 * How often the horizon pass runs: well inside DELAYED_HORIZON_MS, so a job enters the delayed set
 * 50–60 s before it is due, and a pass or two that fail (PostgreSQL away) are caught up by the next,
 * which continues from where the last successful one stopped.
 */
export const HORIZON_PASS_INTERVAL_MS = DISPATCHER_DEFAULTS.horizonPassIntervalMs;

/** Every setting of {@link DispatcherConfig}, the defaults filled in. */
export type DispatcherSettings = Required<DispatcherConfig>;

export function resolveSettings(config: DispatcherConfig): DispatcherSettings {
  return {
    maxAttempts: config.maxAttempts,
    workerTtlSeconds: config.workerTtlSeconds,
    offerConcurrency: config.offerConcurrency ?? DISPATCHER_DEFAULTS.offerConcurrency,
    leaseSweepIntervalMs: config.leaseSweepIntervalMs ?? DISPATCHER_DEFAULTS.leaseSweepIntervalMs,
    delayedPromoteMaxSleepMs: config.delayedPromoteMaxSleepMs ?? DISPATCHER_DEFAULTS.delayedPromoteMaxSleepMs,
    workerSweepIntervalMs: config.workerSweepIntervalMs ?? Math.min(Math.max(config.workerTtlSeconds * 100, 1000), 5000),
    reconcileIntervalMs: config.reconcileIntervalMs ?? DISPATCHER_DEFAULTS.reconcileIntervalMs,
    epochCheckIntervalMs: config.epochCheckIntervalMs ?? DISPATCHER_DEFAULTS.epochCheckIntervalMs,
    horizonPassIntervalMs: config.horizonPassIntervalMs ?? DISPATCHER_DEFAULTS.horizonPassIntervalMs,
    retentionDays: config.retentionDays ?? DISPATCHER_DEFAULTS.retentionDays,
    retentionIntervalMs: config.retentionIntervalMs ?? DISPATCHER_DEFAULTS.retentionIntervalMs,
    retentionBatchSize: config.retentionBatchSize ?? DISPATCHER_DEFAULTS.retentionBatchSize,
    alertEvaluationIntervalMs: config.alertEvaluationIntervalMs ?? DISPATCHER_DEFAULTS.alertEvaluationIntervalMs,
  };
}

/** What every task of one dispatcher shares. */
export interface DispatcherContext {
  database: Database;
  /** A connection with `maxRetriesPerRequest: null`; BullMQ duplicates it for blocking reads. */
  redis: RedisConnection;
  keys: RedisKeys;
  logger: Logger;
  settings: DispatcherSettings;
  metrics: DispatcherMetrics;
  ready: ReadyJobs;
  /** The sweeps and the schedule timer write events (re-queues, timeouts, stopped workers, fires): they nudge the relays. */
  outbox: OutboxNudger;
  /** Every shard's indices (each dispatcher serves every shard). */
  shards: number[];
}
