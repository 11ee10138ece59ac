/**
 * The event relay: drains the outbox (`events` rows with `dispatched_at` null) to the Redis stream
 * `hub:events`, at least once, keeping per-aggregate order, with any number of relays at once.
 *
 * One loop per relay: (every `rebalanceMs`) take or give back outbox partitions → read the oldest
 * undispatched events of the owned partitions → XADD them in one MULTI → stamp `dispatched_at` on
 * exactly those ids. Publishing strictly before stamping is what makes delivery at-least-once: a
 * relay that dies in between leaves the batch unstamped, and it is published again. Why this keeps
 * per-aggregate order, and why partitions: see ../README.md.
 */
import pg from "pg";
import type { Redis } from "ioredis";
import {
  countLiveRelays,
  isOutboxHorizonOpen,
  isPositionSequenceUncached,
  joinRelayGroup,
  lowestUndispatchedPosition,
  markEventsDispatched,
  measureOutboxBacklog,
  OUTBOX_PARTITIONS,
  readOutboxHorizon,
  selectUndispatchedEvents,
  toEventRecordJson,
  tryLockOutboxPartition,
  unlockOutboxPartition,
  type Db,
  type HubEvent,
  type OutboxHorizon,
} from "@hub/db";
import type { Logger, RedisKeys } from "@hub/shared";
import { createRelayMetrics, type RelayMetrics } from "./metrics";

export interface EventRelayConfig {
  /** Approximate length the stream is trimmed to on every XADD (`MAXLEN ~`). Default 100000. */
  streamMaxLen: number;
  /** Most events per batch. Default 500. */
  batchSize: number;
  /** Pause between probes while the owned partitions are drained, in the second after an event. Default 10 ms. */
  idlePollMs: number;
  /** Pause between probes after a second without events (bursts are caught at `idlePollMs`). Default 25 ms. */
  quietPollMs: number;
  /** Interval of the partition rebalance (and of taking over a dead relay's partitions). Default 1000 ms. */
  rebalanceMs: number;
  /** Longest wait for Redis to take one batch before it counts as failed. Default 5000 ms. */
  publishTimeoutMs: number;
  /** Cap of the exponential back-off after a failure. Default 5000 ms. */
  maxBackoffMs: number;
  /** How often the scan floor is moved up (see ../README.md, "Scan floor"). Default 250 ms. */
  scanFloorRefreshMs: number;
}

export const defaultRelayConfig: EventRelayConfig = {
  streamMaxLen: 100_000,
  batchSize: 500,
  idlePollMs: 10,
  quietPollMs: 25,
  rebalanceMs: 1000,
  publishTimeoutMs: 5000,
  maxBackoffMs: 5000,
  scanFloorRefreshMs: 250,
};

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
  /** Pooled database handle for reading and stamping events. */
  db: Db;
  /** URL for the relay's own lock session (one extra connection, held for the relay's life). */
  databaseUrl: string;
  redis: Redis;
  keys: RedisKeys;
  logger: Logger;
  config?: Partial<EventRelayConfig>;
  /** Defaults to a fresh registry (without process metrics). */
  metrics?: RelayMetrics;
  faults?: RelayFaults;
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
  metrics: RelayMetrics;
}

type Dependency = "redis" | "database";

/** A failure of one of the relay's dependencies; the relay backs off and retries. */
class DependencyFailure extends Error {
  constructor(
    readonly dependency: Dependency,
    cause: unknown,
  ) {
    super(`${dependency}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "DependencyFailure";
  }
}

type BatchOutcome = "idle" | "partial" | "full" | "crashed";

const INITIAL_BACKOFF_MS = 100;

export function createEventRelay(options: EventRelayOptions): EventRelay {
  const config: EventRelayConfig = { ...defaultRelayConfig, ...options.config };
  const { db, redis, keys, logger, faults } = options;
  const metrics = options.metrics ?? createRelayMetrics({ readBacklog: () => measureOutboxBacklog(db) });

  const owned = new Set<number>();
  let session: pg.Client | undefined;
  let stopping = false;
  let loop: Promise<void> | undefined;
  let nextRebalanceAt = 0;
  let consecutiveFailures = 0;
  let lastEventSeenAt = 0;
  // Scan floor: reads start here instead of at the oldest entry of the partial index, which keeps
  // dead (already stamped, not yet vacuumed) entries below it out of every probe.
  let scanFloor = 0;
  let horizon: OutboxHorizon | undefined;
  let nextFloorRefreshAt = 0;
  let floorEnabled: boolean | undefined;
  // Set while a dependency is failing: the outage is logged once when it starts and once when it ends.
  const outages = new Map<Dependency, { since: number; failures: number }>();

  // An interruptible sleep, so that stop() does not wait out a back-off.
  let wakeSleeper: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleeper = undefined;
        resolve();
      }
      wakeSleeper = done;
    });

  function dropOwnership(reason: string) {
    if (owned.size > 0) logger.warn({ partitions: owned.size, reason }, "lost outbox partitions");
    owned.clear();
    metrics.ownedPartitions.set(0);
  }

  async function openSession(): Promise<pg.Client> {
    if (session) return session;
    const client = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: "hub-event-relay-locks",
      connectionTimeoutMillis: 10_000,
      // A relay whose host vanishes must lose its locks: let TCP keep-alive notice the dead peer.
      keepAlive: true,
    });
    const lost = (reason: string) => {
      if (session !== client) return;
      session = undefined;
      dropOwnership(reason);
      client.end().catch(() => undefined);
    };
    client.on("error", (error) => lost(`lock session failed: ${error.message}`));
    client.on("end", () => lost("lock session ended"));
    await client.connect();
    try {
      await joinRelayGroup(client);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    session = client;
    return client;
  }

  /** Takes free partitions up to a fair share (⌈partitions / live relays⌉) and gives back the surplus. */
  async function rebalance(): Promise<void> {
    try {
      const lockSession = await openSession();
      const relays = Math.max(1, await countLiveRelays(lockSession));
      const share = Math.ceil(OUTBOX_PARTITIONS / relays);
      const surplus = [...owned].sort((a, b) => a - b).slice(share);
      for (const partition of surplus) {
        await unlockOutboxPartition(lockSession, partition);
        owned.delete(partition);
      }
      const taken: number[] = [];
      // Start at a random partition so relays starting together do not all race for the same ones.
      const offset = Math.floor(Math.random() * OUTBOX_PARTITIONS);
      for (let i = 0; i < OUTBOX_PARTITIONS && owned.size < share; i++) {
        const partition = (offset + i) % OUTBOX_PARTITIONS;
        if (owned.has(partition)) continue;
        if (await tryLockOutboxPartition(lockSession, partition)) {
          owned.add(partition);
          taken.push(partition);
        }
      }
      if (surplus.length > 0 || taken.length > 0) {
        logger.info({ relays, owned: owned.size, taken: taken.length, released: surplus.length }, "outbox partitions rebalanced");
      }
      metrics.ownedPartitions.set(owned.size);
      recovered("database");
    } catch (error) {
      // Without its lock session a relay must not publish: another relay may own its partitions.
      const broken = session;
      session = undefined;
      dropOwnership("rebalance failed");
      await broken?.end().catch(() => undefined);
      failed(new DependencyFailure("database", error));
    }
  }

  async function publish(batch: readonly HubEvent[]): Promise<void> {
    // Never queue commands on a disconnected client: a long outage would pile up stale batches.
    if (redis.status !== "ready") throw new DependencyFailure("redis", new Error(`connection is ${redis.status}`));
    const transaction = redis.multi();
    for (const event of batch) {
      transaction.xadd(
        keys.eventsStream,
        "MAXLEN",
        "~",
        config.streamMaxLen,
        "*",
        "id",
        event.id,
        "event_type",
        event.eventType,
        "aggregate_id",
        event.aggregateId,
        "data",
        JSON.stringify(toEventRecordJson(event)),
      );
    }
    const sent = transaction.exec();
    // If the timeout wins, a late answer or error must not surface as an unhandled rejection.
    sent.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${config.publishTimeoutMs} ms`)), config.publishTimeoutMs);
    });
    try {
      const results = await Promise.race([sent, timeout]);
      if (!results) throw new Error("MULTI was aborted");
      const commandError = results.find(([error]) => error)?.[0];
      if (commandError) throw commandError;
    } catch (error) {
      throw new DependencyFailure("redis", error);
    } finally {
      clearTimeout(timer);
    }
    metrics.published.inc(batch.length);
  }

  /**
   * Moves the scan floor up, in two steps a refresh apart: read a horizon (the last position
   * handed out and the transactions running then); once they have all ended, no row at or below
   * that position can still appear, so the lowest undispatched one among them (or the position
   * after) is the new floor. Failures leave the floor where it was, which is always safe.
   */
  async function refreshScanFloor(): Promise<void> {
    floorEnabled ??= await isPositionSequenceUncached(db);
    if (!floorEnabled) return;
    if (horizon) {
      if (await isOutboxHorizonOpen(db, horizon)) return;
      const lowest = await lowestUndispatchedPosition(db, { from: scanFloor, to: horizon.lastPosition });
      scanFloor = lowest ?? horizon.lastPosition + 1;
      metrics.scanFloor.set(scanFloor);
    }
    horizon = await readOutboxHorizon(db);
  }

  async function relayBatch(): Promise<BatchOutcome> {
    const partitions = [...owned];
    let batch: HubEvent[];
    try {
      if (Date.now() >= nextFloorRefreshAt) {
        nextFloorRefreshAt = Date.now() + config.scanFloorRefreshMs;
        await refreshScanFloor();
      }
      batch = await selectUndispatchedEvents(db, { partitions, limit: config.batchSize, fromPosition: scanFloor });
    } catch (error) {
      throw new DependencyFailure("database", error);
    }
    recovered("database");
    if (batch.length === 0) return "idle";
    lastEventSeenAt = Date.now();

    await publish(batch);
    recovered("redis");

    if ((await faults?.afterPublish?.(batch)) === "crash") {
      await crash();
      return "crashed";
    }

    let lags: number[];
    try {
      lags = await markEventsDispatched(
        db,
        batch.map((event) => event.id),
      );
    } catch (error) {
      // Published but not stamped: these events will be published again (consumers dedupe by id).
      throw new DependencyFailure("database", error);
    }
    metrics.dispatched.inc(lags.length);
    for (const lag of lags) metrics.lag.observe(lag);
    return batch.length === config.batchSize ? "full" : "partial";
  }

  function failed(failure: DependencyFailure) {
    metrics.failures.inc({ dependency: failure.dependency });
    const outage = outages.get(failure.dependency);
    if (outage) {
      outage.failures++;
      return;
    }
    outages.set(failure.dependency, { since: Date.now(), failures: 1 });
    logger.warn({ err: failure.cause, dependency: failure.dependency }, `${failure.dependency} unavailable; retrying with back-off`);
  }

  function recovered(dependency: Dependency) {
    const outage = outages.get(dependency);
    if (!outage) return;
    outages.delete(dependency);
    logger.info({ dependency, downForMs: Date.now() - outage.since, failures: outage.failures }, `${dependency} available again; catching up`);
  }

  function backoffMs(): number {
    const exponential = Math.min(config.maxBackoffMs, INITIAL_BACKOFF_MS * 2 ** (consecutiveFailures - 1));
    return exponential * (0.8 + Math.random() * 0.4);
  }

  async function crash(): Promise<void> {
    stopping = true;
    const lockSession = session;
    session = undefined;
    owned.clear();
    metrics.ownedPartitions.set(0);
    await lockSession?.end().catch(() => undefined);
  }

  async function run(): Promise<void> {
    while (!stopping) {
      if (Date.now() >= nextRebalanceAt) {
        await rebalance();
        nextRebalanceAt = Date.now() + config.rebalanceMs * (0.9 + Math.random() * 0.2);
      }
      if (stopping) break;
      if (owned.size === 0) {
        await sleep(Math.max(0, nextRebalanceAt - Date.now()));
        continue;
      }
      let outcome: BatchOutcome;
      try {
        outcome = await relayBatch();
        consecutiveFailures = 0;
      } catch (error) {
        consecutiveFailures++;
        if (error instanceof DependencyFailure) failed(error);
        else logger.error({ err: error }, "relaying a batch failed; retrying with back-off");
        await sleep(backoffMs());
        continue;
      }
      switch (outcome) {
        case "full":
          break; // more is waiting: go again at once
        case "idle":
        case "partial":
          // Events come in bursts (a job's created, started, completed): probe fast right after one.
          await sleep(Date.now() - lastEventSeenAt < 1000 ? config.idlePollMs : config.quietPollMs);
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
    ownedPartitions: () => [...owned].sort((a, b) => a - b),
    scanFloor: () => scanFloor,
    async start() {
      if (loop) return;
      stopping = false;
      await rebalance();
      nextRebalanceAt = Date.now() + config.rebalanceMs;
      loop = run().catch((error: unknown) => {
        // Not expected (every batch failure is retried): let the process die and be restarted.
        logger.fatal({ err: error }, "event relay loop crashed");
        throw error;
      });
    },
    async stop() {
      stopping = true;
      wakeSleeper?.();
      await loop?.catch(() => undefined);
      loop = undefined;
      // Ending the session gives every partition back at once.
      const lockSession = session;
      session = undefined;
      owned.clear();
      metrics.ownedPartitions.set(0);
      await lockSession?.end().catch(() => undefined);
    },
  };
}
