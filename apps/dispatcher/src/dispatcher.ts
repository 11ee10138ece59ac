/**
 * The dispatcher: any number of replicas may run, with no leader. Everything it does is idempotent
 * or guarded in PostgreSQL (SKIP LOCKED), so two replicas doing the same work at once are harmless
 * and a replica killed mid-task loses nothing: its BullMQ jobs stall and are re-delivered, its
 * transactions roll back, and the reconciler re-offers whatever Redis does not hold.
 *
 * - offer: consumes the BullMQ `dispatch` queue (each message a batch of committed jobs) and puts
 *   each job in its automation's ready set.
 * - leases and timeouts: running jobs whose lease lapsed, or that ran longer than their
 *   automation's `timeout_seconds`, go back to `queued` after their back-off, or to `failed`
 *   (one statement for both, every HUB_LEASE_SWEEP_INTERVAL_MS).
 * - delayed: one timer moves jobs whose `available_at` has come (a `run_at`, a back-off) from the
 *   delayed set to ready sets. It sleeps until the earliest job in the set is due; whoever puts an
 *   earlier one in publishes on the `delayedChannel`, which wakes it (so does the subscriber's
 *   reconnecting: messages may have been lost), and it never sleeps longer than
 *   `delayedPromoteMaxSleepMs`.
 * - horizon: one pass every HORIZON_PASS_INTERVAL_MS (by whichever replica takes its lock) brings
 *   the queued jobs that come due within DELAYED_HORIZON_MS from PostgreSQL into the delayed set,
 *   continuing from where the last pass stopped (the `delayedHorizon` key), so each job is read
 *   about once as it nears and a job due next week costs nothing before then.
 * - workers: workers silent for HUB_WORKER_TTL_SECONDS become `stopped`.
 * - schedules: a timer that sleeps until the next fire and makes each fire's job (./schedules.ts).
 * - reconcile: every queued job in PostgreSQL that is due is (re-)offered, repairing any lost
 *   signal — on an interval, and at once, with a full horizon pass, when the epoch key shows that
 *   Redis lost its data (restart without persistence, FLUSHDB).
 * - retention: finished jobs, their events and other history older than HUB_RETENTION_DAYS are
 *   removed in short batches (./retention.ts), one dispatcher at a time.
 */
import { Worker as BullWorker } from "bullmq";
import { type Database, idempotencyKeys, jobs, workers } from "@hub/db";
import { OutboxNudger, settleWithin, type Logger, type RedisConnection, type RedisKeys } from "@hub/shared";
import { DELAYED_HORIZON_MS, jobsOfDispatchPayload, ReadyJobs, type DispatchPayload, type SingleJobDispatchPayload } from "@hub/shared/dispatch";
import type { DispatcherMetrics } from "./metrics";
import { createDispatcherMetrics } from "./metrics";
import { periodic } from "./periodic";
import { createRetentionSweeper } from "./retention";
import { createScheduleFirer, SCHEDULE_PROBE_MAX_MS } from "./schedules";

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
}

export interface DispatcherDeps {
  database: Database;
  /** A connection with `maxRetriesPerRequest: null` (connectRedis: one server or a cluster); BullMQ duplicates it for blocking reads. */
  redis: RedisConnection;
  keys: RedisKeys;
  logger: Logger;
  config: DispatcherConfig;
  metrics?: DispatcherMetrics;
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
} satisfies Required<Omit<DispatcherConfig, "maxAttempts" | "workerTtlSeconds" | "workerSweepIntervalMs">>;

const LEASE_SWEEP_BATCH = 200;
const RECONCILE_PAGE = 1000;
/**
 * How often the horizon pass runs: well inside DELAYED_HORIZON_MS, so a job enters the delayed set
 * 50–60 s before it is due, and a pass or two that fail (PostgreSQL away) are caught up by the next,
 * which continues from where the last successful one stopped.
 */
export const HORIZON_PASS_INTERVAL_MS = DISPATCHER_DEFAULTS.horizonPassIntervalMs;
const PROMOTE_BATCH = 1000;
/**
 * Shortest pause of the delayed timer between two runs it schedules itself: while jobs come due
 * every few milliseconds (a burst of `run_at`s), one run moves all that came due meanwhile instead
 * of one run per job, at the cost of at most this much lateness. A wake-up (an earlier job) runs it at once.
 */
const PROMOTE_MIN_PAUSE_MS = 100;
/** Longest start() waits to subscribe to the delayed channel. */
const SUBSCRIBE_TIMEOUT_MS = 2000;
/** Pause before the delayed timer tries again after a failure (Redis away). */
const PROMOTE_RETRY_MS = 200;
/**
 * How long stop() waits for each shard's BullMQ worker to close. A worker whose blocking read went
 * to a cluster master that was killed and came back can wait on it for good; its message in
 * flight, if any, is re-delivered by BullMQ's stalled check (and re-offered by the reconciler).
 */
const OFFER_WORKER_CLOSE_TIMEOUT_MS = 5000;

/**
 * The member of a BullMQ queue's marker set (`<prefix>:<queue>:marker`) that says "a job waits":
 * `Queue.add` puts it there, and a worker blocked in `BZPOPMIN` on the set wakes up. BullMQ's
 * `moveToActive` also puts it back after every job it activates (`addBaseMarkerIfNeeded`), so that
 * another worker looks for a next job. With one message in flight per dispatcher, the next job is
 * fetched by `moveToFinished` (`fetchNext`) anyway, and when the queue is empty that marker only
 * sends this worker into one more `BZPOPMIN` and one more empty `moveToActive`: 2 of the 6 round
 * trips of a message at low rates, where each message carries one job (bench/README.md).
 * The offer's pipeline removes it. A job added meanwhile is not missed: one added before the
 * removal is in the wait list, which `moveToFinished` reads next; one added after it puts its own
 * marker back. Another dispatcher blocked on the set has taken the marker already (Redis serves a
 * blocked `BZPOPMIN` when the script ends), so removing it costs that replica nothing either. A
 * worker that is closing does not fetch next, so it leaves the marker; one that starts closing
 * between the removal and the message's end leaves a job in the wait list without a marker, which
 * another dispatcher's blocking read finds when it times out (BullMQ's `drainDelay`, 5 s) and the
 * reconciler offers from PostgreSQL anyway.
 */
const BULLMQ_WAIT_MARKER = "0";

export function createDispatcher(deps: DispatcherDeps) {
  const { database, redis, keys, logger, config } = deps;
  const settings = {
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
  };
  const metrics = deps.metrics ?? createDispatcherMetrics();
  const ready = new ReadyJobs(redis, keys);
  /** The sweeps and the schedule timer write events (re-queues, timeouts, stopped workers, fires): they nudge the relays. */
  const outbox = new OutboxNudger(redis, keys);
  /** Every shard's indices (each dispatcher serves every shard). */
  const shards = Array.from({ length: keys.shards }, (_, shard) => shard);
  let offerWorkers: Array<BullWorker<DispatchPayload | SingleJobDispatchPayload>> = [];

  /** Counts, logs and offers what one sweep ended. */
  async function handleSwept({ requeued, failed }: jobs.SweptJobs, counter: typeof metrics.leasesExpired, what: string): Promise<void> {
    if (requeued.length + failed.length === 0) return;
    counter.inc({ outcome: "requeued" }, requeued.length);
    counter.inc({ outcome: "failed" }, failed.length);
    logger.info({ requeued: requeued.length, failed: failed.length }, what);
    // Re-queued jobs in back-off go to the delayed set; their freed slots wake claims either way.
    await ready.offerAgain(requeued.map(jobs.toJobRef));
    metrics.jobsOffered.inc({ path: "requeue" }, requeued.length);
    await ready.wake(...failed.map((job) => job.automationId));
  }

  /** Lapsed leases and timed-out jobs, in bounded batches until a batch finds less than a full one of each. */
  async function sweepOverdue(): Promise<void> {
    for (;;) {
      // One statement for both: an idle sweep costs one round trip, no explicit transaction.
      const { leases, timeouts } = await jobs.expireOverdue(database.pool, { maxAttempts: config.maxAttempts, batchSize: LEASE_SWEEP_BATCH });
      const ended = (swept: jobs.SweptJobs) => swept.requeued.length + swept.failed.length;
      if (ended(leases) + ended(timeouts) === 0) return;
      outbox.nudge();
      await handleSwept(leases, metrics.leasesExpired, "lapsed leases expired");
      await handleSwept(timeouts, metrics.jobsTimedOut, "jobs past their timeout ended");
      if (ended(leases) < LEASE_SWEEP_BATCH && ended(timeouts) < LEASE_SWEEP_BATCH) return;
    }
  }

  /** Moves every due delayed job to its ready set; resolves with the pause until the earliest one left is due. */
  async function promoteDueJobs(): Promise<number> {
    const nextDueAts = await Promise.all(
      shards.map(async (shard) => {
        for (;;) {
          const { promoted, nextDueAt } = await ready.promoteDue(shard, PROMOTE_BATCH);
          metrics.jobsOffered.inc({ path: "due" }, promoted);
          if (promoted < PROMOTE_BATCH) return nextDueAt ?? Number.POSITIVE_INFINITY;
        }
      }),
    );
    return Math.max(PROMOTE_MIN_PAUSE_MS, Math.min(Math.min(...nextDueAts) - Date.now(), settings.delayedPromoteMaxSleepMs));
  }

  /** Wakes the delayed timer when a job earlier than the one it sleeps for arrives (see ReadyJobs). */
  let delayedSubscriber: RedisConnection | undefined;
  async function listenForEarlierDelayedJobs(onEarlier: () => void): Promise<void> {
    const subscriber = redis.duplicate();
    delayedSubscriber = subscriber;
    subscriber.on("error", () => undefined);
    subscriber.on("message", (channel: string) => {
      if (channel === keys.delayedChannel) onEarlier();
    });
    // Messages lost while the subscriber was away: look at once when it is back.
    subscriber.on("ready", onEarlier);
    // Bounded: with Redis away the dispatcher starts anyway, and ioredis subscribes once it connects.
    await settleWithin(subscriber.subscribe(keys.delayedChannel), SUBSCRIBE_TIMEOUT_MS).catch(() => undefined);
  }

  async function sweepWorkers(): Promise<void> {
    const stopped = await workers.stopSilent(database.pool, config.workerTtlSeconds);
    if (stopped > 0) {
      outbox.nudge();
      metrics.workersStopped.inc(stopped);
      logger.info({ stopped }, "silent workers marked stopped");
    }
  }

  /** Runs `handle` on each page of the queued jobs whose `available_at` lies in `window`; returns how many. */
  async function forEachQueuedPage(window: jobs.AvailableWindow, handle: (page: jobs.JobRef[]) => Promise<void>): Promise<number> {
    let cursor: jobs.QueuedJobCursor | null = null;
    let seen = 0;
    for (;;) {
      const page = await jobs.listQueuedRefs(database.pool, window, cursor, RECONCILE_PAGE);
      if (page.length > 0) await handle(page);
      seen += page.length;
      if (page.length < RECONCILE_PAGE) return seen;
      const last = page[page.length - 1]!;
      cursor = { availableAt: last.availableAt, id: last.id };
    }
  }

  /**
   * Offers every queued job that is due (PostgreSQL's clock), even if claimed before (it was queued
   * again since); with `trigger` "redis_lost" also rebuilds the delayed set with a full horizon pass.
   */
  async function reconcileAll(trigger: "interval" | "redis_lost"): Promise<void> {
    const now = await jobs.databaseNow(database.pool);
    const offered = await forEachQueuedPage({ from: null, until: now }, (page) => ready.offerDue(page));
    if (trigger === "redis_lost") await bringJobsNearingDue("full");
    metrics.reconciliations.inc({ trigger });
    metrics.jobsOffered.inc({ path: "reconcile" }, offered);
    if (trigger === "redis_lost" || offered > 0) logger.debug({ trigger, offered }, "reconciled queued jobs into Redis");
  }

  /**
   * The horizon pass: puts the queued jobs due within DELAYED_HORIZON_MS in the delayed set. It
   * continues after the time the last pass reached (kept in Redis, so replicas share it); "full",
   * and when that time is unknown (first pass, Redis lost its data), it starts from now. Jobs that
   * enter the window otherwise — created, re-queued or rescheduled — are placed by whoever made
   * the change (ReadyJobs.offer holds jobs due within DELAYED_HOLD_MS).
   */
  async function bringJobsNearingDue(scope: "continue" | "full"): Promise<void> {
    const now = await jobs.databaseNow(database.pool);
    const until = new Date(now.getTime() + DELAYED_HORIZON_MS);
    const reached = scope === "full" ? null : await redis.get(keys.delayedHorizon);
    const from = reached === null ? now : new Date(Math.max(Number(reached), now.getTime()));
    const held = await forEachQueuedPage({ from, until }, (page) => ready.holdUntilDue(page));
    await redis.set(keys.delayedHorizon, String(until.getTime()));
    metrics.jobsOffered.inc({ path: "horizon" }, held);
  }

  /** Horizon passes are spread over replicas like reconciliation: whoever takes the short lock runs the interval's pass. */
  async function horizonPassOnInterval(): Promise<void> {
    const interval = config.horizonPassIntervalMs ?? HORIZON_PASS_INTERVAL_MS;
    const taken = await redis.set(keys.lock("horizon"), String(process.pid), "PX", Math.max(interval - 100, 100), "NX");
    if (taken === "OK") await bringJobsNearingDue("continue");
  }

  /**
   * Each shard has its own epoch key, in its own slot: on a cluster one master may come back empty
   * while the others kept their data, and only the lost shards' keys are then missing.
   */
  async function checkEpoch(): Promise<void> {
    const present = await Promise.all(shards.map((shard) => redis.exists(keys.dispatchEpoch(shard))));
    const lost = shards.filter((shard) => present[shard] !== 1);
    if (lost.length === 0) return;
    logger.warn(
      { shards: lost.length === keys.shards ? "all" : lost },
      "Redis holds no dispatch state (restarted, flushed, or a cluster master came back empty): re-offering every queued job",
    );
    await reconcileAll("redis_lost");
    const epoch = new Date().toISOString();
    await Promise.all(lost.map((shard) => redis.set(keys.dispatchEpoch(shard), epoch)));
  }

  /** Full passes are spread over replicas: whoever takes the short lock does the interval's pass. */
  async function reconcileOnInterval(): Promise<void> {
    const interval = settings.reconcileIntervalMs;
    const taken = await redis.set(keys.lock("reconcile"), String(process.pid), "PX", Math.max(interval - 100, 100), "NX");
    if (taken === "OK") await reconcileAll("interval");
  }

  async function forgetOldIdempotencyKeys(): Promise<void> {
    // In bounded statements: after a long outage there may be days of them.
    for (;;) {
      const forgotten = await idempotencyKeys.forgetExpired(database.pool, idempotencyKeys.IDEMPOTENCY_KEYS_FORGET_BATCH);
      if (forgotten < idempotencyKeys.IDEMPOTENCY_KEYS_FORGET_BATCH) return;
    }
  }

  const retention = createRetentionSweeper({
    database,
    logger,
    metrics,
    settings: { retentionDays: settings.retentionDays, batchSize: settings.retentionBatchSize },
  });
  const sweepRetention = async () => {
    await retention.sweep();
  };

  const scheduleFirer = createScheduleFirer({ database, ready, logger, metrics, onEventsWritten: () => outbox.nudge() });

  const onError = (task: string) => () => metrics.taskErrors.inc({ task });
  const delayedTask = periodic("delayed", PROMOTE_RETRY_MS, promoteDueJobs, logger, onError("delayed"));
  const tasks = [
    periodic("leases", settings.leaseSweepIntervalMs, sweepOverdue, logger, onError("leases")),
    delayedTask,
    periodic("workers", settings.workerSweepIntervalMs, sweepWorkers, logger, onError("workers")),
    periodic("epoch", settings.epochCheckIntervalMs, checkEpoch, logger, onError("epoch")),
    periodic("reconcile", settings.reconcileIntervalMs, reconcileOnInterval, logger, onError("reconcile")),
    periodic("horizon", settings.horizonPassIntervalMs, horizonPassOnInterval, logger, onError("horizon")),
    periodic("schedules", SCHEDULE_PROBE_MAX_MS, scheduleFirer.tick, logger, onError("schedules")),
    periodic("idempotency-keys", 600_000, forgetOldIdempotencyKeys, logger, onError("idempotency-keys")),
    ...(settings.retentionDays > 0 ? [periodic("retention", settings.retentionIntervalMs, sweepRetention, logger, onError("retention"))] : []),
  ];

  return {
    metrics,
    /** Runs a horizon pass now, continuing from where the last one stopped (tests). */
    horizonPassNow: () => bringJobsNearingDue("continue"),
    /** Runs a retention sweep now (tests, benchmarks); with HUB_RETENTION_DAYS=0 it removes nothing. */
    sweepRetentionNow: () => retention.sweep(),
    /** Offers every due queued job and runs a full horizon pass now (tests, operators). */
    reconcileNow: async () => {
      await reconcileAll("interval");
      await bringJobsNearingDue("full");
    },
    async start(): Promise<void> {
      // One BullMQ worker per shard's queue (its own blocking connection): every dispatcher serves every shard.
      // Only while one message at a time is in flight: with more, the next job is not always
      // fetched by the message that ends (BullMQ fetches next only within its concurrency).
      const clearWaitMarker = settings.offerConcurrency === 1;
      offerWorkers = shards.map((shard) => {
        const worker: BullWorker<DispatchPayload | SingleJobDispatchPayload> = new BullWorker<DispatchPayload | SingleJobDispatchPayload>(
          keys.dispatchQueue,
          async (message) => {
            // One message carries every job an API process committed within a couple of
            // milliseconds: all of them go to their ready sets in one pipeline.
            const batch = jobsOfDispatchPayload(message.id, message.data);
            // A closing worker does not fetch next (the marker then tells another dispatcher).
            const marker = clearWaitMarker && !worker.closing ? worker.keys.marker : undefined;
            await ready.offer(batch, marker ? { shard, add: (pipeline) => pipeline.zrem(marker, BULLMQ_WAIT_MARKER) } : undefined);
            metrics.jobsOffered.inc({ path: "queue" }, batch.length);
          },
          {
            connection: redis,
            prefix: keys.bullPrefix(shard),
            concurrency: settings.offerConcurrency,
            // A killed replica's in-flight offers are re-delivered within seconds (and the reconciler
            // would re-offer them anyway).
            lockDuration: 10_000,
            stalledInterval: 5_000,
            maxStalledCount: 10,
          },
        );
        worker.on("error", (error) => logger.warn({ err: error, shard }, "dispatch queue worker error"));
        return worker;
      });
      // Subscribed before the timer first reads the delayed sets, so no earlier job slips between.
      await listenForEarlierDelayedJobs(() => delayedTask.poke());
      for (const task of tasks) task.start();
      logger.info({ retentionDays: settings.retentionDays, dispatchShards: keys.shards }, "dispatcher started");
    },
    async stop(): Promise<void> {
      retention.stop();
      await Promise.all(tasks.map((task) => task.stop()));
      delayedSubscriber?.disconnect();
      // Waits for the offers in flight; unstarted ones stay in BullMQ for another replica.
      const unclosed = (
        await Promise.all(
          offerWorkers.map((worker, shard) =>
            settleWithin(worker.close(), OFFER_WORKER_CLOSE_TIMEOUT_MS).then(
              () => null,
              () => shard,
            ),
          ),
        )
      ).filter((shard) => shard !== null);
      if (unclosed.length > 0) logger.warn({ shards: unclosed }, "dispatch queue workers did not close in time; leaving their messages to BullMQ's stalled check");
      logger.info("dispatcher stopped");
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
export { createDispatcherMetrics } from "./metrics";
