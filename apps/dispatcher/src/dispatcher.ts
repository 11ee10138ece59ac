/**
 * The dispatcher: any number of replicas may run, with no leader. Everything it does is idempotent
 * or guarded in PostgreSQL (SKIP LOCKED), so two replicas doing the same work at once are harmless
 * and a replica killed mid-task loses nothing: its BullMQ jobs stall and are re-delivered, its
 * transactions roll back, and the reconciler re-offers whatever Redis does not hold.
 *
 * - offer: consumes the BullMQ `dispatch` queue (each message a batch of committed jobs) and puts
 *   each job in its automation's ready set.
 * - leases and timeouts: running jobs whose lease lapsed, or that ran longer than their
 *   automation's `timeout_seconds`, go back to `queued` after their back-off, or to `failed`.
 * - delayed: one timer moves jobs whose back-off has passed from the delayed set to ready sets.
 * - workers: workers silent for HUB_WORKER_TTL_SECONDS become `stopped`.
 * - reconcile: every queued job in PostgreSQL that is due within RECONCILE_HORIZON_SECONDS is (re-)offered — on an interval, and at once when
 *   the epoch key shows that Redis lost its data (restart without persistence, FLUSHDB).
 */
import { Worker as BullWorker } from "bullmq";
import type { Redis } from "ioredis";
import {
  expireLapsedLeases,
  expireTimedOutJobs,
  forgetExpiredIdempotencyKeys,
  listQueuedJobRefs,
  stopSilentWorkers,
  toJobRef,
  type Database,
} from "@hub/db";
import type { Logger, RedisKeys } from "@hub/shared";
import { jobsOfDispatchPayload, ReadyJobs, type DispatchPayload, type SingleJobDispatchPayload } from "@hub/shared/dispatch";
import type { DispatcherMetrics } from "./metrics";
import { createDispatcherMetrics } from "./metrics";
import { periodic } from "./periodic";

export interface DispatcherConfig {
  /** HUB_JOB_MAX_ATTEMPTS: where an automation sets no max_attempts, a lapsed lease or timeout after this many attempts fails the job. */
  maxAttempts: number;
  /** HUB_WORKER_TTL_SECONDS. */
  workerTtlSeconds: number;
  /** Dispatch messages offered in parallel by this process. Default 1 (HUB_DISPATCHER_CONCURRENCY). */
  offerConcurrency?: number;
  /** Default 250 ms. */
  leaseSweepIntervalMs?: number;
  /** How often delayed jobs that came due are moved to ready sets. Default 200 ms. */
  delayedPromoteIntervalMs?: number;
  /** Default 1000 ms. */
  workerSweepIntervalMs?: number;
  /** Full reconciliation interval. Default 5000 ms. */
  reconcileIntervalMs?: number;
  /** How often the epoch key is checked to notice a Redis that lost its data. Default 1000 ms. */
  epochCheckIntervalMs?: number;
}

export interface DispatcherDeps {
  database: Database;
  /** A connection with `maxRetriesPerRequest: null` (createRedis); BullMQ duplicates it for blocking reads. */
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
  config: DispatcherConfig;
  metrics?: DispatcherMetrics;
}

const LEASE_SWEEP_BATCH = 200;
const RECONCILE_PAGE = 1000;
/**
 * The reconciler offers queued jobs due within this many seconds (later ones go to the delayed set
 * only when a later pass finds them this close), so a job in a long back-off is not in Redis for
 * its whole wait, yet one pass more or less never delays it.
 */
const RECONCILE_HORIZON_SECONDS = 60;
const PROMOTE_BATCH = 1000;

export function createDispatcher(deps: DispatcherDeps) {
  const { database, redis, keys, logger, config } = deps;
  const db = database.db;
  const metrics = deps.metrics ?? createDispatcherMetrics();
  const ready = new ReadyJobs(redis, keys);
  let offerWorker: BullWorker<DispatchPayload | SingleJobDispatchPayload> | undefined;

  /** Runs a sweep in bounded batches until it finds less than a batch, offering what it re-queued. */
  async function sweepRunning(sweep: typeof expireLapsedLeases, counter: typeof metrics.leasesExpired, what: string): Promise<void> {
    for (;;) {
      // One statement: an idle sweep costs one round trip, no explicit transaction.
      const { requeued, failed } = await sweep(database.pool, { maxAttempts: config.maxAttempts, batchSize: LEASE_SWEEP_BATCH });
      if (requeued.length + failed.length === 0) return;
      counter.inc({ outcome: "requeued" }, requeued.length);
      counter.inc({ outcome: "failed" }, failed.length);
      logger.info({ requeued: requeued.length, failed: failed.length }, what);
      // Re-queued jobs in back-off go to the delayed set; their freed slots wake claims either way.
      await ready.offerAgain(requeued.map(toJobRef));
      metrics.jobsOffered.inc({ path: "requeue" }, requeued.length);
      await ready.wake(...failed.map((job) => job.automationId));
      if (requeued.length + failed.length < LEASE_SWEEP_BATCH) return;
    }
  }

  const sweepLeases = () => sweepRunning(expireLapsedLeases, metrics.leasesExpired, "lapsed leases expired");
  const sweepTimeouts = () => sweepRunning(expireTimedOutJobs, metrics.jobsTimedOut, "jobs past their timeout ended");

  async function promoteDueJobs(): Promise<void> {
    for (;;) {
      const promoted = await ready.promoteDue(PROMOTE_BATCH);
      metrics.jobsOffered.inc({ path: "due" }, promoted);
      if (promoted < PROMOTE_BATCH) return;
    }
  }

  async function sweepWorkers(): Promise<void> {
    const stopped = await db.transaction((tx) => stopSilentWorkers(tx, config.workerTtlSeconds));
    if (stopped > 0) {
      metrics.workersStopped.inc(stopped);
      logger.info({ stopped }, "silent workers marked stopped");
    }
  }

  async function reconcileAll(trigger: "interval" | "redis_lost"): Promise<void> {
    let after: { createdAt: Date; id: string } | null = null;
    let offered = 0;
    for (;;) {
      const page = await listQueuedJobRefs(db, after, RECONCILE_PAGE, RECONCILE_HORIZON_SECONDS);
      if (page.length === 0) break;
      // Queued in PostgreSQL now: offered even if claimed before (it was queued again since);
      // those not due yet go to the delayed set.
      await ready.offerAgain(page, "offer");
      offered += page.length;
      const last = page[page.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
      if (page.length < RECONCILE_PAGE) break;
    }
    metrics.reconciliations.inc({ trigger });
    metrics.jobsOffered.inc({ path: "reconcile" }, offered);
    if (trigger === "redis_lost" || offered > 0) logger.debug({ trigger, offered }, "reconciled queued jobs into Redis");
  }

  async function checkEpoch(): Promise<void> {
    if ((await redis.exists(keys.dispatchEpoch)) === 1) return;
    logger.warn("Redis holds no dispatch state (restarted or flushed): re-offering every queued job");
    await reconcileAll("redis_lost");
    await redis.set(keys.dispatchEpoch, new Date().toISOString());
  }

  /** Full passes are spread over replicas: whoever takes the short lock does the interval's pass. */
  async function reconcileOnInterval(): Promise<void> {
    const interval = config.reconcileIntervalMs ?? 5000;
    const taken = await redis.set(keys.lock("reconcile"), String(process.pid), "PX", Math.max(interval - 100, 100), "NX");
    if (taken === "OK") await reconcileAll("interval");
  }

  async function forgetOldIdempotencyKeys(): Promise<void> {
    await forgetExpiredIdempotencyKeys(database.pool);
  }

  const onError = (task: string) => () => metrics.taskErrors.inc({ task });
  const tasks = [
    periodic("leases", config.leaseSweepIntervalMs ?? 250, sweepLeases, logger, onError("leases")),
    periodic("timeouts", config.leaseSweepIntervalMs ?? 250, sweepTimeouts, logger, onError("timeouts")),
    periodic("delayed", config.delayedPromoteIntervalMs ?? 200, promoteDueJobs, logger, onError("delayed")),
    periodic("workers", config.workerSweepIntervalMs ?? 1000, sweepWorkers, logger, onError("workers")),
    periodic("epoch", config.epochCheckIntervalMs ?? 1000, checkEpoch, logger, onError("epoch")),
    periodic("reconcile", config.reconcileIntervalMs ?? 5000, reconcileOnInterval, logger, onError("reconcile")),
    periodic("idempotency-keys", 600_000, forgetOldIdempotencyKeys, logger, onError("idempotency-keys")),
  ];

  return {
    metrics,
    /** Runs one full reconciliation now (tests, operators). */
    reconcileNow: () => reconcileAll("interval"),
    async start(): Promise<void> {
      offerWorker = new BullWorker<DispatchPayload | SingleJobDispatchPayload>(
        keys.dispatchQueue,
        async (message) => {
          // One message carries every job an API process committed within a couple of
          // milliseconds: all of them go to their ready sets in one pipeline.
          const batch = jobsOfDispatchPayload(message.id, message.data);
          await ready.offer(batch);
          metrics.jobsOffered.inc({ path: "queue" }, batch.length);
        },
        {
          connection: redis,
          prefix: keys.bullPrefix,
          concurrency: config.offerConcurrency ?? 1,
          // A killed replica's in-flight offers are re-delivered within seconds (and the reconciler
          // would re-offer them anyway).
          lockDuration: 10_000,
          stalledInterval: 5_000,
          maxStalledCount: 10,
        },
      );
      offerWorker.on("error", (error) => logger.warn({ err: error }, "dispatch queue worker error"));
      for (const task of tasks) task.start();
      logger.info("dispatcher started");
    },
    async stop(): Promise<void> {
      await Promise.all(tasks.map((task) => task.stop()));
      // Waits for the offers in flight; unstarted ones stay in BullMQ for another replica.
      await offerWorker?.close();
      logger.info("dispatcher stopped");
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
export { createDispatcherMetrics } from "./metrics";
