/**
 * The dispatcher: any number of replicas may run, with no leader. Everything it does is idempotent
 * or guarded in PostgreSQL (SKIP LOCKED), so two replicas doing the same work at once are harmless
 * and a replica killed mid-task loses nothing: its BullMQ jobs stall and are re-delivered, its
 * transactions roll back, and the reconciler re-offers whatever Redis does not hold.
 *
 * One module per task in ./tasks, each saying what it does and why:
 * - offer.ts: the BullMQ `dispatch` queues → ready sets;
 * - lease-sweeper.ts: lapsed leases and timed-out jobs;
 * - approval-expiry.ts: approval requests whose time is up end their jobs (`approval_expired`);
 * - delayed-timer.ts: delayed jobs that came due → ready sets;
 * - horizon.ts: queued jobs coming due → the delayed set;
 * - reconciler.ts: every due queued job re-offered, and at once when Redis lost its data;
 * - worker-sweeper.ts: silent workers marked stopped;
 * - schedules.ts: a timer that sleeps until the next fire and makes each fire's job;
 * - maintenance.ts: maintenance windows' started/ended events, their occurrences kept 8 days ahead;
 * - idempotency-keys.ts: expired idempotency keys forgotten;
 * - alerts.ts: alert rules evaluated, one round per interval across every dispatcher;
 * - retention.ts: finished jobs, their events and other history older than HUB_RETENTION_DAYS
 *   removed in short batches, one dispatcher at a time.
 * This file resolves the settings, builds the tasks on one shared context and runs each as a
 * {@link periodic} task.
 */
import { OutboxNudger, type Logger, type RedisConnection, type RedisKeys } from "@hub/shared";
import type { Database } from "@hub/db";
import { ReadyJobs } from "@hub/shared/dispatch";
import { resolveSettings, type DispatcherConfig, type DispatcherContext } from "./config";
import type { DispatcherMetrics } from "./metrics";
import { createDispatcherMetrics } from "./metrics";
import { periodic } from "./periodic";
import { alertLookIntervalMs, createAlertEvaluator } from "./tasks/alerts";
import { createDelayedTimer, PROMOTE_RETRY_MS } from "./tasks/delayed-timer";
import { createHorizon } from "./tasks/horizon";
import { createIdempotencyKeySweeper, FORGET_IDEMPOTENCY_KEYS_INTERVAL_MS } from "./tasks/idempotency-keys";
import { createLeaseSweeper } from "./tasks/lease-sweeper";
import { APPROVAL_EXPIRY_INTERVAL_MS, createApprovalExpiry } from "./tasks/approval-expiry";
import { createOfferWorkers } from "./tasks/offer";
import { createReconciler } from "./tasks/reconciler";
import { createRetentionSweeper } from "./tasks/retention";
import { createScheduleFirer, SCHEDULE_PROBE_MAX_MS } from "./tasks/schedules";
import { createMaintenanceTask, MAINTENANCE_PROBE_MAX_MS } from "./tasks/maintenance";
import { createWorkerSweeper } from "./tasks/worker-sweeper";

export { DISPATCHER_DEFAULTS, HORIZON_PASS_INTERVAL_MS, type DispatcherConfig } from "./config";

export interface DispatcherDeps {
  database: Database;
  /** A connection with `maxRetriesPerRequest: null` (connectRedis: one server or a cluster); BullMQ duplicates it for blocking reads. */
  redis: RedisConnection;
  keys: RedisKeys;
  logger: Logger;
  config: DispatcherConfig;
  metrics?: DispatcherMetrics;
}

export function createDispatcher(deps: DispatcherDeps) {
  const { database, redis, keys, logger } = deps;
  const settings = resolveSettings(deps.config);
  const metrics = deps.metrics ?? createDispatcherMetrics();
  const context: DispatcherContext = {
    database,
    redis,
    keys,
    logger,
    settings,
    metrics,
    ready: new ReadyJobs(redis, keys),
    outbox: new OutboxNudger(redis, keys),
    shards: Array.from({ length: keys.shards }, (_, shard) => shard),
  };

  const offerWorkers = createOfferWorkers(context);
  const delayed = createDelayedTimer(context);
  const horizon = createHorizon(context);
  const reconciler = createReconciler(context, horizon);
  const retention = createRetentionSweeper({
    database,
    logger,
    metrics,
    settings: { retentionDays: settings.retentionDays, batchSize: settings.retentionBatchSize },
  });
  const sweepRetention = async () => {
    await retention.sweep();
  };
  const scheduleFirer = createScheduleFirer({ database, ready: context.ready, logger, metrics, onEventsWritten: () => context.outbox.nudge() });

  const evaluateAlerts = createAlertEvaluator({
    database,
    logger,
    metrics,
    intervalMs: settings.alertEvaluationIntervalMs,
    onEventsWritten: () => context.outbox.nudge(),
  });
  const maintenanceTask = createMaintenanceTask({ database, ready: context.ready, logger, onEventsWritten: () => context.outbox.nudge() });

  const onError = (task: string) => () => metrics.taskErrors.inc({ task });
  const delayedTask = periodic("delayed", PROMOTE_RETRY_MS, delayed.promoteDueJobs, logger, onError("delayed"));
  const tasks = [
    periodic("leases", settings.leaseSweepIntervalMs, createLeaseSweeper(context), logger, onError("leases")),
    delayedTask,
    periodic("approvals", APPROVAL_EXPIRY_INTERVAL_MS, createApprovalExpiry(context), logger, onError("approvals")),
    periodic("workers", settings.workerSweepIntervalMs, createWorkerSweeper(context), logger, onError("workers")),
    periodic("epoch", settings.epochCheckIntervalMs, reconciler.checkEpoch, logger, onError("epoch")),
    periodic("reconcile", settings.reconcileIntervalMs, reconciler.reconcileOnInterval, logger, onError("reconcile")),
    periodic("horizon", settings.horizonPassIntervalMs, horizon.passOnInterval, logger, onError("horizon")),
    periodic("schedules", SCHEDULE_PROBE_MAX_MS, scheduleFirer.tick, logger, onError("schedules")),
    periodic("alerts", alertLookIntervalMs(settings.alertEvaluationIntervalMs), evaluateAlerts, logger, onError("alerts")),
    periodic("maintenance", MAINTENANCE_PROBE_MAX_MS, maintenanceTask.tick, logger, onError("maintenance")),
    periodic("idempotency-keys", FORGET_IDEMPOTENCY_KEYS_INTERVAL_MS, createIdempotencyKeySweeper(context), logger, onError("idempotency-keys")),
    ...(settings.retentionDays > 0 ? [periodic("retention", settings.retentionIntervalMs, sweepRetention, logger, onError("retention"))] : []),
  ];

  return {
    metrics,
    /** Runs a horizon pass now, continuing from where the last one stopped (tests). */
    horizonPassNow: () => horizon.bringJobsNearingDue("continue"),
    /** Runs an alert evaluation round now if one is due and no other dispatcher runs one (tests). */
    evaluateAlertsNow: evaluateAlerts,
    /** Runs a retention sweep now (tests, benchmarks); with HUB_RETENTION_DAYS=0 it removes nothing. */
    sweepRetentionNow: () => retention.sweep(),
    /** Offers every due queued job and runs a full horizon pass now (tests, operators). */
    reconcileNow: async () => {
      await reconciler.reconcileAll("interval");
      await horizon.bringJobsNearingDue("full");
    },
    async start(): Promise<void> {
      offerWorkers.start();
      // Subscribed before the timer first reads the delayed sets, so no earlier job slips between.
      await delayed.listenForEarlierJobs(() => delayedTask.poke());
      for (const task of tasks) task.start();
      logger.info({ retentionDays: settings.retentionDays, dispatchShards: keys.shards }, "dispatcher started");
    },
    async stop(): Promise<void> {
      retention.stop();
      await Promise.all(tasks.map((task) => task.stop()));
      delayed.stopListening();
      await offerWorkers.stop();
      logger.info("dispatcher stopped");
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
export { createDispatcherMetrics } from "./metrics";
