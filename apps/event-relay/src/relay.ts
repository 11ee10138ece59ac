/**
 * The event relay: drains the outbox (`events` rows with `dispatched_at` null) to the Redis stream
 * `hub:events`, at least once, keeping per-aggregate order, with any number of relays at once.
 *
 * One loop per relay: (when due) take or give back outbox partitions → read the oldest
 * undispatched events of the owned partitions → XADD them in one MULTI → stamp `dispatched_at` on
 * exactly those ids. The stamp rides on the statement that reads the next batch (one round trip
 * and one transaction per batch, not two); a stamp still pending when the relay rebalances or
 * stops is written on its own first. Publishing strictly before stamping is what makes delivery
 * at-least-once: a relay that dies in between leaves the batch unstamped, and it is published
 * again. Why this keeps per-aggregate order, and why partitions: see ../README.md.
 *
 * The concerns live beside this file: partition-ownership.ts (the lock session and partitions),
 * scan-floor.ts (where reads start), stream-publisher.ts (the MULTI of XADDs),
 * outage-backoff.ts (retries while a dependency is down).
 */
import { type HubEvent, type Executor, events } from "@hub/db";
import { RELAY_FAST_WINDOW_MS, type Logger, type RedisConnection, type RedisKeys } from "@hub/shared";
import { activeTracing } from "@hub/tracing";
import { defaultRelayConfig, type EventRelayConfig } from "./config";
import { createRelayMetrics, type RelayMetrics } from "./metrics";
import { backoffMs, createOutageLog, createWakeableSleep, DependencyFailure } from "./outage-backoff";
import { createPartitionOwnership } from "./partition-ownership";
import { createScanFloor } from "./scan-floor";
import { tracedPublisher } from "./batch-tracing";
import { createStreamPublisher } from "./stream-publisher";

export { defaultRelayConfig, type EventRelayConfig } from "./config";

/** Test-only fault injection. */
export interface RelayFaults {
  /**
   * Runs after a batch reached the stream and before it is stamped. Returning `"crash"` makes the
   * relay stop as a killed process would: the batch stays unstamped and its lock session is closed
   * without giving anything back, so other relays take its partitions over.
   */
  afterPublish?(events: readonly HubEvent[]): "crash" | void | Promise<"crash" | void>;
}

export interface EventRelayOptions {
  /** Pooled database handle (the pool of `openDatabase`) for stamping events and the scan floor. */
  db: Executor;
  /** URL for the relay's own lock session (one extra connection, held for the relay's life). */
  databaseUrl: string;
  redis: RedisConnection;
  keys: RedisKeys;
  logger: Logger;
  config?: Partial<EventRelayConfig>;
  /** Defaults to a fresh registry (without process metrics). */
  metrics?: RelayMetrics;
  faults?: RelayFaults;
  /** Called after a stamp queued webhook deliveries (the delivery loop looks for them at once). */
  onWebhookDeliveriesQueued?: () => void;
}

export interface EventRelay {
  /** Joins the relays, takes its first partitions and starts publishing. */
  start(): Promise<void>;
  /** Finishes the batch in flight (publish and stamp), then gives its partitions back. */
  stop(): Promise<void>;
  /** Partitions this relay publishes right now. */
  ownedPartitions(): number[];
  /** Every undispatched event, now or later, has a position ≥ this (0 until first computed). */
  scanFloor(): number;
  /** Events were committed: probe at the fast pace now (the relay also hears nudges on Redis by itself). */
  nudge(): void;
  metrics: RelayMetrics;
}

/** The first quiet pause after the fast window; each quiet probe doubles it up to `quietPollMs`. */
const QUIET_PAUSE_START_MS = 25;

/** `lost`: the partitions were lost between reading a batch and publishing it, which was skipped. */
type BatchOutcome = "idle" | "partial" | "full" | "lost" | "crashed";

export function createEventRelay(options: EventRelayOptions): EventRelay {
  const config: EventRelayConfig = { ...defaultRelayConfig, ...options.config };
  const { db, redis, logger, faults } = options;
  const metrics = options.metrics ?? createRelayMetrics({ readBacklog: () => events.measureOutboxBacklog(db) });
  const ownership = createPartitionOwnership({ databaseUrl: options.databaseUrl, config, logger, metrics });
  const scanFloor = createScanFloor({ db, refreshMs: config.scanFloorRefreshMs, metrics });
  const publish = tracedPublisher({
    db,
    stream: options.keys.eventsStream,
    logger,
    publish: createStreamPublisher({
      redis,
      stream: options.keys.eventsStream,
      streamMaxLen: config.streamMaxLen,
      publishTimeoutMs: config.publishTimeoutMs,
    }),
  });
  const outages = createOutageLog(logger, metrics);

  let stopping = false;
  let loop: Promise<void> | undefined;
  let consecutiveFailures = 0;
  /** When the last batch with events was read, or the last nudge came: the fast pace lasts RELAY_FAST_WINDOW_MS after it. */
  let lastActivityAt = 0;
  /** The current quiet pause: doubles from QUIET_PAUSE_START_MS up to `quietPollMs` while nothing happens. */
  let quietPauseMs = QUIET_PAUSE_START_MS;
  /** True while the loop sleeps a paced (not a back-off) pause: only that pause does a nudge cut short. */
  let pacing = false;
  /** Nudges arrive on a subscriber connection of the relay's own (a connection in subscriber mode sends no commands). */
  let nudges: RedisConnection | undefined;

  function listenForNudges(): RedisConnection {
    const subscriber = redis.duplicate();
    subscriber.on("error", () => undefined);
    subscriber.on("message", (channel: string) => {
      if (channel === options.keys.outboxChannel) nudge();
    });
    // Nudges lost while the subscriber was away: look at once when it is back.
    subscriber.on("ready", () => nudge());
    // Not awaited: with Redis away the relay starts anyway, and ioredis subscribes once it connects.
    subscriber.subscribe(options.keys.outboxChannel).catch(() => undefined);
    return subscriber;
  }

  function nudge(): void {
    lastActivityAt = Date.now();
    quietPauseMs = QUIET_PAUSE_START_MS;
    if (pacing) sleep.wake();
  }

  /** The pause before the next probe after one that found less than a full batch. */
  function pacedPauseMs(): number {
    if (Date.now() - lastActivityAt < RELAY_FAST_WINDOW_MS) return config.idlePollMs;
    const pause = Math.min(quietPauseMs, config.quietPollMs);
    quietPauseMs = Math.min(quietPauseMs * 2, config.quietPollMs);
    return pause;
  }
  /** The batch published last and not stamped yet: the next read stamps it. */
  let unstamped: HubEvent[] = [];
  const sleep = createWakeableSleep(() => stopping);
  // Redis is back: end a back-off at once rather than waiting it out.
  const onRedisReady = () => {
    if (outages.isDown("redis")) sleep.wake();
  };

  /** Runs a database step; any error is a database failure (backed off and retried). */
  async function database<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw new DependencyFailure("database", error);
    }
  }

  /** What a stamp did: metrics, and a nudge to the webhook delivery loop. */
  function stamped(stamp: events.DispatchStamp): void {
    unstamped = [];
    metrics.dispatched.inc(stamp.lagSeconds.length);
    for (const lag of stamp.lagSeconds) metrics.lag.observe(lag);
    if (stamp.webhookDeliveries > 0) options.onWebhookDeliveriesQueued?.();
  }

  /**
   * Stamps the published batch now, on its own: before partitions may be given back (their next
   * owner would publish it again) and on the way out. Stamped even if the partitions were lost
   * meanwhile: the batch did reach the stream.
   */
  async function stampNow(): Promise<void> {
    if (unstamped.length === 0) return;
    const ids = unstamped.map((event) => event.id);
    stamped(await database(() => events.markDispatched(db, ids)));
  }

  async function rebalance(): Promise<void> {
    try {
      await stampNow();
      await ownership.rebalance();
      outages.recovered("database");
    } catch (error) {
      outages.failed(new DependencyFailure("database", error));
    }
  }

  async function relayBatch(): Promise<BatchOutcome> {
    const session = ownership.session();
    const partitions = ownership.owned();
    const epoch = ownership.epoch();
    if (!session || partitions.length === 0) return "idle";
    // Published but not stamped until this statement succeeds: if it fails, the batch is stamped
    // by the next one (or, should the relay die first, published again: consumers dedupe by id).
    // The stamp queues the batch's webhook deliveries too: the delivery loop sends them on its
    // own, so no endpoint ever holds up the stream or the stamp.
    const stampIds = unstamped.map((event) => event.id);
    const {
      stamp,
      next: batch,
      jobTraceparents,
    } = await database(async () => {
      await scanFloor.refreshIfDue();
      // On the lock session: if it answers, it (and every lock it holds) was alive at the read.
      return events.stampAndSelectUndispatched(session, {
        stampIds,
        partitions,
        limit: config.batchSize,
        fromPosition: scanFloor.position(),
        // A tracing relay reads which jobs' traces are sampled with the batch (./batch-tracing.ts).
        withJobTraces: activeTracing() !== undefined,
      });
    });
    outages.recovered("database");
    stamped(stamp);
    if (batch.length === 0) return "idle";
    lastActivityAt = Date.now();
    quietPauseMs = QUIET_PAUSE_START_MS;
    // The lock session died since the read: another relay may own these partitions now. Skip
    // the batch; if the loss is only noticed after this check, the overlap adds duplicates but
    // cannot reorder an aggregate's events (../README.md, "Why it holds…").
    if (ownership.epoch() !== epoch) return "lost";

    await publish(batch, jobTraceparents);
    metrics.published.inc(batch.length);
    outages.recovered("redis");

    if ((await faults?.afterPublish?.(batch)) === "crash") {
      stopping = true;
      await ownership.releaseAll();
      return "crashed";
    }
    unstamped = batch;
    return batch.length === config.batchSize ? "full" : "partial";
  }

  async function run(): Promise<void> {
    while (!stopping) {
      if (Date.now() >= ownership.rebalanceDueAt()) await rebalance();
      if (stopping) break;
      if (ownership.owned().length === 0) {
        await sleep(Math.max(0, ownership.rebalanceDueAt() - Date.now()));
        continue;
      }
      let outcome: BatchOutcome;
      try {
        outcome = await relayBatch();
        consecutiveFailures = 0;
      } catch (error) {
        consecutiveFailures++;
        if (error instanceof DependencyFailure) outages.failed(error);
        else logger.error({ err: error }, "relaying a batch failed; retrying with back-off");
        await sleep(backoffMs(consecutiveFailures, config.maxBackoffMs));
        continue;
      }
      switch (outcome) {
        case "full":
        case "lost":
          break; // more is waiting, or partitions to take again: go on at once
        case "idle":
        case "partial":
          // Events come in bursts (a job's created, started, completed): probe fast right after one
          // or a nudge, and ever more seldom while nothing happens.
          pacing = true;
          await sleep(pacedPauseMs());
          pacing = false;
          break;
        case "crashed":
          return;
        default:
          outcome satisfies never;
      }
    }
  }

  return {
    metrics,
    ownedPartitions: () => ownership.owned(),
    scanFloor: () => scanFloor.position(),
    nudge,
    async start() {
      if (loop) return;
      stopping = false;
      redis.on("ready", onRedisReady);
      nudges = listenForNudges();
      await rebalance();
      loop = run().catch((error: unknown) => {
        // Not expected (every batch failure is retried): let the process die and be restarted.
        logger.fatal({ err: error }, "event relay loop crashed");
        throw error;
      });
    },
    async stop() {
      stopping = true;
      sleep.wake();
      await loop?.catch(() => undefined);
      loop = undefined;
      redis.off("ready", onRedisReady);
      nudges?.disconnect();
      nudges = undefined;
      await stampNow().catch((error: unknown) => {
        // Left unstamped: the next owner of these partitions publishes the batch again.
        logger.warn({ err: error }, "stamping the last published batch failed");
      });
      await ownership.releaseAll();
    },
  };
}
