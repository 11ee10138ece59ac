/**
 * PostgreSQL killing the relay's connections (`pg_terminate_backend`, as an operator, a failover
 * or a restart would) while events stream in. The relays get a pool of their own, so that only
 * their backends are terminated, never the writers'.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Database, events } from "@hub/db";
import { capturingLogger, waitUntil } from "@hub/testing";
import { aggregatesOutOfOrder, createJobs, createRelayTestbed, outboxCounts, readStream, writeEvents, type RelayTestbed } from "./harness";

const RELAY_APPLICATION = "hub-event-relay";

describe("the event relay when PostgreSQL terminates its connections", { timeout: 90_000 }, () => {
  let bed: RelayTestbed;
  let relayDatabase: Database;

  beforeEach(async () => {
    bed = await createRelayTestbed();
    relayDatabase = openDatabase(bed.database.url, { max: 3, applicationName: RELAY_APPLICATION });
  });

  afterEach(async () => {
    await bed.stop();
    await relayDatabase.close();
  });

  /** Terminates backends of this database whose application_name starts with `application`; returns how many. */
  async function terminateBackends(application: string): Promise<number> {
    const { rows } = await bed.pool.query<{ terminated: number }>(
      `select count(*) filter (where pg_terminate_backend(pid))::int as terminated
         from pg_stat_activity
        where datname = current_database() and application_name like $1 and pid <> pg_backend_pid()`,
      [`${application}%`],
    );
    return rows[0]!.terminated;
  }

  /** The backend holding the lock of `partition` (the lock session of the relay owning it). */
  async function lockSessionOf(partition: number): Promise<number> {
    const { rows } = await bed.pool.query<{ pid: number }>(
      `select pid from pg_locks
        where locktype = 'advisory' and granted and classid = 727002 and objid = $1 and objsubid = 2
          and database = (select oid from pg_database where datname = current_database())`,
      [partition],
    );
    return rows[0]!.pid;
  }

  async function expectEveryEventOnceOrMoreInOrder(total: number): Promise<void> {
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 30_000);
    expect((await outboxCounts(bed.db)).total).toBe(total);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    const all = await events.list(bed.pool, { limit: total + 1 });
    expect(new Set(entries.map((entry) => entry.id))).toEqual(new Set(all.map((event) => event.id)));
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
  }

  it("when every relay connection is terminated again and again mid-stream, then the relays stay up, lose nothing, keep per-aggregate order, and share all partitions again", async () => {
    // Arrange: two relays on their own pool, events streaming in.
    const aggregates = await createJobs(bed.db, 60);
    const first = capturingLogger();
    const relayA = await bed.startRelay({ db: relayDatabase.pool, logger: first.logger });
    const relayB = await bed.startRelay({ db: relayDatabase.pool });
    await waitUntil("the two relays share the partitions", () => relayA.ownedPartitions().length > 0 && relayB.ownedPartitions().length > 0);
    const writing = writeEvents(bed.pool, { aggregates, total: 3000, concurrency: 8 });
    await waitUntil("the relays have published some events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 200);

    // Act: kill the relays' pool connections and lock sessions four times while events stream in.
    for (let round = 0; round < 4; round++) {
      expect(await terminateBackends(RELAY_APPLICATION)).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    await writing;

    // Assert: everything reached the stream, in order, and the relays own the partitions again.
    await expectEveryEventOnceOrMoreInOrder(3000);
    // Each relay's own view: one that has not yet noticed a lost lock still lists that partition
    // while the other already took it over, so wait for the views to agree on one owner each.
    const everyPartition = Array.from({ length: events.OUTBOX_PARTITIONS }, (_, i) => i);
    const owned = () => [...relayA.ownedPartitions(), ...relayB.ownedPartitions()].sort((a, b) => a - b);
    await waitUntil("the relays hold every partition again, each by one of them", () => JSON.stringify(owned()) === JSON.stringify(everyPartition), 10_000);
    expect(owned()).toEqual(everyPartition);
    // Relay A noticed that its locks were gone, rather than publishing on as their owner.
    expect(first.lines().filter((line) => line.msg === "lost outbox partitions").length).toBeGreaterThanOrEqual(1);
  });

  it("when the session holding one relay's partition locks is terminated, then it forgets them, the other relay takes over, and it takes its share back", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 40);
    const first = capturingLogger();
    const relayA = await bed.startRelay({ db: relayDatabase.pool, logger: first.logger });
    const relayB = await bed.startRelay({ db: relayDatabase.pool });
    await waitUntil("the two relays share the partitions", () => relayA.ownedPartitions().length > 0 && relayB.ownedPartitions().length > 0);
    const writing = writeEvents(bed.pool, { aggregates, total: 1500, concurrency: 6 });
    await waitUntil("the relays have published some events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 200);
    const lockSessionA = await lockSessionOf(relayA.ownedPartitions()[0]!);

    // Act
    const { rows } = await bed.pool.query<{ terminated: boolean }>("select pg_terminate_backend($1) as terminated", [lockSessionA]);
    expect(rows[0]!.terminated).toBe(true);
    await writing;

    // Assert: A logged the loss, both relays hold partitions again (A through a new session).
    await waitUntil("relay A noticed the loss", () => first.lines().some((line) => line.msg === "lost outbox partitions"));
    await expectEveryEventOnceOrMoreInOrder(1500);
    await waitUntil(
      "relay A took a share back and the two cover every partition",
      () => relayA.ownedPartitions().length > 0 && relayA.ownedPartitions().length + relayB.ownedPartitions().length === events.OUTBOX_PARTITIONS,
      10_000,
    );
    expect(await lockSessionOf(relayA.ownedPartitions()[0]!)).not.toBe(lockSessionA);
    // Events written after the loss were published too: the relays did not stall.
    await writeEvents(bed.pool, { aggregates, total: 100 });
    await expectEveryEventOnceOrMoreInOrder(1600);
  });
});
