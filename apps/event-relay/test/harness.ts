/**
 * Relay test bed: a fresh database and Redis key prefix per test file (`@hub/testing`), relays
 * run in-process, a workload that writes events the way the hub does, and readers for the stream.
 */
import { sql } from "drizzle-orm";
import type { Redis } from "ioredis";
import { type Database, type Executor, events, queryBuilder, schema, withTransaction } from "@hub/db";
import { readStreamEntries, seedAutomation, seedQueuedJobs, type TestDatabase } from "@hub/testing";
import { openTestEnvironment } from "@hub/testing/vitest";
import type { RedisKeys } from "@hub/shared";
import { createEventRelay, type EventRelay, type EventRelayOptions } from "../src/relay";

export interface RelayTestbed {
  database: TestDatabase;
  db: Database["db"];
  pool: Database["pool"];
  /** A connection to the shared test Redis, for reading the stream. */
  redis: Redis;
  /** HUB_REDIS_PREFIX of this test bed. */
  prefix: string;
  keys: RedisKeys;
  /** Starts an in-process relay on this database; stopped by `stop()` unless stopped before. */
  startRelay(overrides?: Partial<EventRelayOptions>): Promise<EventRelay>;
  stop(): Promise<void>;
}

/** Fast settings for tests: take over partitions within ~150 ms, move the scan floor often. */
export const testRelayConfig = { rebalanceMs: 150, idlePollMs: 5, quietPollMs: 5, batchSize: 200, maxBackoffMs: 300, scanFloorRefreshMs: 20 };

export async function createRelayTestbed(): Promise<RelayTestbed> {
  const environment = await openTestEnvironment("relay-test", { poolSize: 12 });
  const { db, pool } = environment.database;
  const { redis, prefix, keys } = environment;
  const relays: EventRelay[] = [];
  return {
    database: environment.testDatabase,
    db,
    pool,
    redis,
    prefix,
    keys,
    async startRelay(overrides = {}) {
      const relay = createEventRelay({
        db: pool,
        databaseUrl: environment.testDatabase.url,
        redis,
        keys,
        logger: environment.logger,
        ...overrides,
        config: { ...testRelayConfig, ...overrides.config },
      });
      relays.push(relay);
      await relay.start();
      return relay;
    },
    async stop() {
      await Promise.all(relays.map((relay) => relay.stop()));
      await environment.close();
    },
  };
}

/** Rows that events can be about: one automation and `count` jobs (the aggregates). */
export async function createJobs(db: Database["db"], count: number): Promise<string[]> {
  const { automation } = await seedAutomation(db);
  return (await seedQueuedJobs(db, automation.id, count)).map((job) => job.id);
}

/**
 * Writes `total` events over `aggregates` from `concurrency` concurrent transactions, as the hub
 * does: each transaction first updates its aggregate's row (`attempts + 1`, which numbers that
 * aggregate's events 1, 2, 3, …) and then records the event. Some transactions linger before
 * committing, so rows of different aggregates commit out of position order.
 */
export async function writeEvents(pool: Executor, options: { aggregates: readonly string[]; total: number; concurrency?: number }): Promise<void> {
  let remaining = options.total;
  const writer = async () => {
    while (remaining > 0) {
      remaining--;
      const aggregateId = options.aggregates[Math.floor(Math.random() * options.aggregates.length)]!;
      await withTransaction(pool, async (client) => {
        const tx = queryBuilder(client);
        const [row] = await tx
          .update(schema.jobs)
          .set({ attempts: sql`${schema.jobs.attempts} + 1` })
          .where(sql`${schema.jobs.id} = ${aggregateId}`)
          .returning({ attempts: schema.jobs.attempts, automationId: schema.jobs.automationId, availableAt: schema.jobs.availableAt });
        await events.record(client, {
          eventType: "job.requeued",
          aggregateId,
          actorId: null,
          payload: { automation_id: row!.automationId, attempts: row!.attempts, reason: "lease_expired", available_at: row!.availableAt.toISOString() },
        });
        // Most commit at once; some linger a little, a few for longer than a scan-floor refresh.
        const linger = Math.random();
        if (linger < 0.03) await tx.execute(sql`select pg_sleep(${0.02 + Math.random() * 0.05})`);
        else if (linger < 0.2) await tx.execute(sql`select pg_sleep(${Math.random() * 0.005})`);
      });
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, writer));
}

export interface StreamEntry {
  streamId: string;
  id: string;
  eventType: string;
  aggregateId: string;
  data: Record<string, unknown> & { payload: Record<string, unknown> };
}

/** Every entry of the stream, oldest first. */
export async function readStream(redis: Redis, key: string): Promise<StreamEntry[]> {
  return (await readStreamEntries(redis, key)).map(({ streamId, fields }) => ({
    streamId,
    id: fields.id!,
    eventType: fields.event_type!,
    aggregateId: fields.aggregate_id!,
    data: JSON.parse(fields.data!),
  }));
}

/**
 * What a consumer that dedupes by id sees: the first occurrence of each event. Returns the
 * aggregates whose events (numbered by `payload.attempts`) do not arrive as 1, 2, 3, … — or, with
 * `fromAnyAttempt`, as consecutive numbers from wherever the entries start.
 */
export function aggregatesOutOfOrder(entries: readonly StreamEntry[], options: { fromAnyAttempt?: boolean } = {}): string[] {
  const seen = new Set<string>();
  const lastAttempt = new Map<string, number>();
  const broken = new Set<string>();
  for (const entry of entries) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    const attempt = Number(entry.data.payload.attempts);
    const previous = lastAttempt.get(entry.aggregateId) ?? (options.fromAnyAttempt ? attempt - 1 : 0);
    if (attempt !== previous + 1) broken.add(entry.aggregateId);
    lastAttempt.set(entry.aggregateId, attempt);
  }
  return [...broken];
}

/** Counts of undispatched and total events. */
export async function outboxCounts(db: Database["db"]): Promise<{ total: number; undispatched: number }> {
  const result = await db.execute<{ total: number; undispatched: number }>(
    sql`select count(*)::int as total, (count(*) filter (where dispatched_at is null))::int as undispatched from events`,
  );
  return result.rows[0]!;
}

// The webhook tests' polling, logging and port helpers: the hub's own, from @hub/testing.
export { capturingLogger, freePort, waitUntil as waitFor } from "@hub/testing";
