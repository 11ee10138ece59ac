import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type HubEvent, events } from "@hub/db";
import { waitUntil } from "@hub/testing";
import { OutboxNudger } from "@hub/shared";
import { aggregatesOutOfOrder, createJobs, createRelayTestbed, outboxCounts, readStream, writeEvents, type RelayTestbed } from "./harness";

// Generous: thousands of concurrent transactions on a shared 2-core machine.
describe("event relay", { timeout: 60_000 }, () => {
  let bed: RelayTestbed;

  beforeEach(async () => {
    bed = await createRelayTestbed();
  });

  afterEach(async () => {
    await bed.stop();
  });

  it("when an event is written, then GET /events shows it undispatched until a relay publishes it to the stream, then stamped", async () => {
    // Arrange
    const [jobId] = await createJobs(bed.db, 1);
    await writeEvents(bed.pool, { aggregates: [jobId!], total: 1, concurrency: 1 });
    const [before] = await events.list(bed.pool, { aggregateId: jobId, limit: 10 });
    expect(before?.dispatchedAt).toBeNull();
    expect(await bed.redis.exists(bed.keys.eventsStream)).toBe(0);

    // Act
    await bed.startRelay();
    await waitUntil("the event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0);

    // Assert
    const [after] = await events.list(bed.pool, { aggregateId: jobId, limit: 10 });
    expect(after?.dispatchedAt).toBeInstanceOf(Date);
    expect(after!.dispatchedAt!.getTime()).toBeGreaterThanOrEqual(after!.createdAt.getTime());
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: after!.id, eventType: "job.requeued", aggregateId: jobId });
    expect(after!.payload).toMatchObject({ attempts: 1, reason: "lease_expired" });
    expect(entries[0]!.data).toEqual({
      id: after!.id,
      aggregate_id: jobId,
      event_type: "job.requeued",
      actor_id: null,
      payload: after!.payload,
      dispatched_at: null,
      created_at: after!.createdAt.toISOString(),
    });
  });

  it("when a relay has been quiet long enough to probe only every few seconds, then a writer's nudge makes it relay the next event at once", async () => {
    // Arrange: after its first second, a quiet relay's pauses double from 25 ms (… 1.6 s, from about
    // 4.2 s on 3.2 s): 5 s after it started, the next probe is 2 s or more away.
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelay({ config: { quietPollMs: 60_000 } });
    await new Promise((resolve) => setTimeout(resolve, 5000));

    // Act: an event commits, and its writer nudges (as the API does after a request that changed something).
    await writeEvents(bed.pool, { aggregates: [jobId!], total: 1, concurrency: 1 });
    new OutboxNudger(bed.redis, bed.keys).nudge();

    // Assert: relayed long before the pause would have ended.
    await waitUntil("the event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 2000);
    expect(await readStream(bed.redis, bed.keys.eventsStream)).toHaveLength(1);
  });

  it("when thousands of events commit concurrently, out of order, with two relays running, then every event reaches the stream in per-aggregate order and is stamped", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 60);
    const relayA = await bed.startRelay();

    // Act: relay B joins while events stream in, so partitions change hands mid-stream.
    const firstHalf = writeEvents(bed.pool, { aggregates, total: 1500, concurrency: 8 });
    await waitUntil("relay A has published some events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 300);
    const relayB = await bed.startRelay();
    await waitUntil("the two relays share the partitions", () => relayA.ownedPartitions().length > 0 && relayB.ownedPartitions().length > 0);
    await Promise.all([firstHalf, writeEvents(bed.pool, { aggregates, total: 1500, concurrency: 8 })]);
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 20_000);

    // Assert
    const { total } = await outboxCounts(bed.db);
    expect(total).toBe(3000);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    const all = await events.list(bed.pool, { limit: 5000 });
    expect(new Set(entries.map((entry) => entry.id))).toEqual(new Set(all.map((event) => event.id)));
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
    // Both relays did part of the work, on disjoint partitions that together cover all of them.
    const dispatchedBy = async (relay: typeof relayA) => (await relay.metrics.dispatched.get()).values[0]?.value ?? 0;
    expect(await dispatchedBy(relayA)).toBeGreaterThan(0);
    expect(await dispatchedBy(relayB)).toBeGreaterThan(0);
    expect((await dispatchedBy(relayA)) + (await dispatchedBy(relayB))).toBe(3000);
    const owned = [...relayA.ownedPartitions(), ...relayB.ownedPartitions()].sort((a, b) => a - b);
    expect(owned).toEqual(Array.from({ length: events.OUTBOX_PARTITIONS }, (_, i) => i));
  });

  it("when a relay is killed between publishing a batch and stamping it, then another relay publishes that batch again and stamps it", async () => {
    // Arrange: relay A "dies" right after its first batch reached Redis.
    const aggregates = await createJobs(bed.db, 20);
    await writeEvents(bed.pool, { aggregates, total: 300, concurrency: 4 });
    let killedBatch: HubEvent[] = [];
    await bed.startRelay({
      config: { batchSize: 50 },
      faults: {
        afterPublish: (batch) => {
          killedBatch = [...batch];
          return "crash";
        },
      },
    });
    await waitUntil("relay A published a batch and died", () => killedBatch.length > 0);
    const killedIds = killedBatch.map((event) => event.id);
    const stampedEarly = (await events.list(bed.pool, { limit: 1000 })).filter((event) => killedIds.includes(event.id));
    expect(stampedEarly.every((event) => event.dispatchedAt === null)).toBe(true);
    expect((await readStream(bed.redis, bed.keys.eventsStream)).map((entry) => entry.id)).toEqual(killedIds);

    // Act: a surviving relay takes the dead relay's partitions over.
    await bed.startRelay();
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0);

    // Assert: the killed batch is in the stream twice, everything once or more, in order.
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    for (const id of killedIds) expect(entries.filter((entry) => entry.id === id)).toHaveLength(2);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(300);
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
  });

  it("when a row with a lower position commits after higher ones were published, or a transaction rolls back, then nothing is skipped", async () => {
    // Arrange: a relay is running and its scan floor moves (it passed a first event).
    const [early, late, other] = await createJobs(bed.db, 3);
    const relay = await bed.startRelay();
    await writeEvents(bed.pool, { aggregates: [other!], total: 1, concurrency: 1 });
    await waitUntil("the scan floor passed the first event", () => relay.scanFloor() > 1);
    // Transaction T1 draws the next position and stays open; another one draws one and rolls back.
    const t1 = await bed.pool.connect();
    let t1Position: number;
    try {
      await t1.query("begin");
      const inserted = await t1.query<{ position: string }>(
        "insert into events (aggregate_id, event_type, payload) values ($1, 'job.requeued', '{\"attempts\": 1}') returning position",
        [early],
      );
      t1Position = Number(inserted.rows[0]!.position);
      const rolledBack = await bed.pool.connect();
      await rolledBack.query("begin");
      await rolledBack.query("insert into events (aggregate_id, event_type) values ($1, 'job.requeued')", [other]);
      await rolledBack.query("rollback");
      rolledBack.release();

      // Act: later transactions commit first and are published; then T1 commits.
      await writeEvents(bed.pool, { aggregates: [late!], total: 3, concurrency: 1 });
      await waitUntil("the later events are published", async () => (await readStream(bed.redis, bed.keys.eventsStream)).length === 4);
      // Give the floor many chances to move (20 ms refreshes): it must not pass the open T1.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(relay.scanFloor()).toBeLessThanOrEqual(t1Position);
      await t1.query("commit");
    } finally {
      t1.release();
    }

    // Assert
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0);
    const stamped = (await events.list(bed.pool, { limit: 10 })).sort((a, b) => a.position - b.position);
    expect(stamped[1]?.aggregateId).toBe(early);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    expect(entries.map((entry) => entry.id)).toEqual([stamped[0]!, ...stamped.slice(2), stamped[1]!].map((event) => event.id));
    await waitUntil("the scan floor passed every event", () => relay.scanFloor() > stamped.at(-1)!.position);
  });

  it("when one of two relays stops, then the other takes over all partitions and keeps publishing", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 30);
    const relayA = await bed.startRelay();
    const relayB = await bed.startRelay();
    await waitUntil("the two relays share the partitions", () => relayA.ownedPartitions().length > 0 && relayB.ownedPartitions().length > 0);
    await writeEvents(bed.pool, { aggregates, total: 500 });

    // Act
    await relayA.stop();
    await writeEvents(bed.pool, { aggregates, total: 500 });

    // Assert
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0);
    expect(relayB.ownedPartitions()).toHaveLength(events.OUTBOX_PARTITIONS);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(1000);
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
  });

  it("when more events are published than the stream's MAXLEN, then the stream keeps only about MAXLEN of the newest", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 10);
    await writeEvents(bed.pool, { aggregates, total: 2000 });

    // Act
    await bed.startRelay({ config: { streamMaxLen: 300 } });
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0);

    // Assert: `MAXLEN ~` trims whole stream nodes (100 entries each by default), so up to one node more.
    const length = await bed.redis.xlen(bed.keys.eventsStream);
    expect(length).toBeGreaterThanOrEqual(300);
    expect(length).toBeLessThanOrEqual(400);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    const newest = (await events.list(bed.pool, { limit: 2000 })).sort((a, b) => a.position - b.position).at(-1);
    expect(entries.at(-1)?.id).toBe(newest?.id);
  });
});
