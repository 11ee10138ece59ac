/**
 * The relay's outbox statements against the real database: undispatched events come back in
 * insertion order, only of the partitions asked for, from the scan floor on; a stamp is given
 * once; the backlog counts what is left.
 */
import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { events, jobs, schema } from "../../index";
import { EVERYWHERE } from "../../reach";
import { stageAutomation, useTestDatabase } from "../../test-kit";

const hub = useTestDatabase();
const ALL_PARTITIONS = Array.from({ length: events.OUTBOX_PARTITIONS }, (_, partition) => partition);

/** The partition the relay reads an aggregate's events from: its uuid's last byte, modulo 32. */
const partitionOf = (aggregateId: string) => Number.parseInt(aggregateId.slice(-2), 16) % events.OUTBOX_PARTITIONS;

/** `count` job.created events, one per new aggregate, written in this order. */
async function writeEvents(count: number): Promise<string[]> {
  const aggregateIds = Array.from({ length: count }, () => randomUUID());
  const batch: events.NewEvent<"job.created">[] = aggregateIds.map((aggregateId) => ({
    eventType: "job.created",
    aggregateId,
    actorId: null,
    payload: { automation_id: randomUUID(), context: {} },
  }));
  await events.recordMany(hub().pool, batch);
  return aggregateIds;
}

beforeEach(async () => {
  await hub().db.delete(schema.events);
});

describe("events.selectUndispatched", () => {
  it("when every partition is asked for, then the undispatched events come back in insertion order, at most `limit`", async () => {
    const written = await writeEvents(6);

    const firstFour = await events.selectUndispatched(hub().pool, { partitions: ALL_PARTITIONS, limit: 4 });

    expect(firstFour.map((event) => event.aggregateId)).toEqual(written.slice(0, 4));
    expect(firstFour.map((event) => event.position)).toEqual([...firstFour.map((event) => event.position)].sort((a, b) => a - b));
  });

  it("when some partitions are asked for, then only the events of aggregates in them come back", async () => {
    const written = await writeEvents(40);
    const partitions = [...new Set(written.slice(0, 3).map(partitionOf))];

    const selected = await events.selectUndispatched(hub().pool, { partitions, limit: 100 });

    expect(selected.map((event) => event.aggregateId)).toEqual(written.filter((aggregateId) => partitions.includes(partitionOf(aggregateId))));
    expect(await events.selectUndispatched(hub().pool, { partitions: [], limit: 100 })).toEqual([]);
  });

  it("when a scan floor is given, then events below its position are not read", async () => {
    await writeEvents(5);
    const all = await events.selectUndispatched(hub().pool, { partitions: ALL_PARTITIONS, limit: 100 });

    const fromThird = await events.selectUndispatched(hub().pool, { partitions: ALL_PARTITIONS, limit: 100, fromPosition: all[2]!.position });

    expect(fromThird.map((event) => event.id)).toEqual(all.slice(2).map((event) => event.id));
  });
});

describe("events.markDispatched and events.measureOutboxBacklog", () => {
  it("when events are stamped, then they leave the backlog; stamping them again changes nothing and reports no lag", async () => {
    await writeEvents(3);
    const undispatched = await events.selectUndispatched(hub().pool, { partitions: ALL_PARTITIONS, limit: 100 });
    expect(await events.measureOutboxBacklog(hub().pool)).toMatchObject({ undispatched: 3 });

    const lags = (
      await events.markDispatched(
        hub().pool,
        undispatched.slice(0, 2).map((event) => event.id),
      )
    ).lagSeconds;
    const firstStamps = await hub().db.select({ id: schema.events.id, dispatchedAt: schema.events.dispatchedAt }).from(schema.events);
    const again = (
      await events.markDispatched(
        hub().pool,
        undispatched.slice(0, 2).map((event) => event.id),
      )
    ).lagSeconds;

    expect(lags).toHaveLength(2);
    for (const lag of lags) expect(lag).toBeGreaterThanOrEqual(0);
    expect(again).toEqual([]);
    expect(await hub().db.select({ id: schema.events.id, dispatchedAt: schema.events.dispatchedAt }).from(schema.events)).toEqual(firstStamps);
    expect((await events.selectUndispatched(hub().pool, { partitions: ALL_PARTITIONS, limit: 100 })).map((event) => event.id)).toEqual([undispatched[2]!.id]);
    const backlog = await events.measureOutboxBacklog(hub().pool);
    expect(backlog.undispatched).toBe(1);
    expect(backlog.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
  });

  it("when nothing is undispatched, then the backlog is empty and its oldest age 0", async () => {
    expect(await events.measureOutboxBacklog(hub().pool)).toEqual({ undispatched: 0, oldestAgeSeconds: 0 });
  });
});

describe("events.stampAndSelectUndispatched", () => {
  it("when a published batch is stamped with the next read, then the read leaves that batch out and returns the next events in order", async () => {
    await writeEvents(5);
    const first = await events.selectUndispatched(hub().pool, { partitions: ALL_PARTITIONS, limit: 2 });

    const { stamp, next } = await events.stampAndSelectUndispatched(hub().pool, {
      stampIds: first.map((event) => event.id),
      partitions: ALL_PARTITIONS,
      limit: 2,
    });

    expect(stamp.lagSeconds).toHaveLength(2);
    expect(stamp.webhookDeliveries).toBe(0);
    const all = await hub()
      .db.select({ id: schema.events.id, position: schema.events.position, dispatchedAt: schema.events.dispatchedAt })
      .from(schema.events)
      .orderBy(schema.events.position);
    expect(next.map((event) => event.id)).toEqual(all.slice(2, 4).map((event) => event.id));
    expect(next[0]).toMatchObject({ eventType: "job.created", dispatchedAt: null });
    expect(next[0]!.createdAt).toBeInstanceOf(Date);
    expect(all.map((event) => event.dispatchedAt !== null)).toEqual([true, true, false, false, false]);
  });

  it("when some partitions are asked for, then the read keeps to them while the stamp covers every id given", async () => {
    const written = await writeEvents(40);
    const partitions = [...new Set(written.slice(0, 3).map(partitionOf))];
    const outside = await events.selectUndispatched(hub().pool, { partitions: ALL_PARTITIONS.filter((p) => !partitions.includes(p)), limit: 1 });

    const { stamp, next } = await events.stampAndSelectUndispatched(hub().pool, {
      stampIds: outside.map((event) => event.id),
      partitions,
      limit: 100,
    });

    expect(stamp.lagSeconds).toHaveLength(1);
    expect(next.map((event) => event.aggregateId)).toEqual(written.filter((aggregateId) => partitions.includes(partitionOf(aggregateId))));
  });

  it("when a tracing relay reads a batch, then it gets each event's job's stored traceparent by job id, untraced jobs left out; the events are unchanged", async () => {
    const subject = await stageAutomation(hub());
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";
    const create = async (trace?: { traceparent: string }) => {
      const created = await jobs.insert(hub().pool, EVERYWHERE, subject.userId, { automationId: subject.automationId, context: {} }, undefined, trace);
      if (created.kind !== "created") throw new Error(`job not created: ${created.kind}`);
      return created.jobs[0]!.id;
    };
    const traced = await create({ traceparent });
    const untraced = await create();
    await writeEvents(1);

    const plain = await events.stampAndSelectUndispatched(hub().pool, { stampIds: [], partitions: ALL_PARTITIONS, limit: 10 });
    for (const partitions of [ALL_PARTITIONS, [...new Set([traced, untraced].map(partitionOf))]]) {
      const read = await events.stampAndSelectUndispatched(hub().pool, { stampIds: [], partitions, limit: 10, withJobTraces: true });
      expect(read.jobTraceparents).toEqual(new Map([[traced, traceparent]]));
      expect(read.next).toEqual(plain.next.filter((event) => partitions.includes(partitionOf(event.aggregateId))));
    }
    expect(plain.jobTraceparents).toBeUndefined();
  });

  it("when there is nothing to stamp and nothing undispatched, then both parts are empty; a batch stamped already is not stamped again", async () => {
    expect(await events.stampAndSelectUndispatched(hub().pool, { stampIds: [], partitions: ALL_PARTITIONS, limit: 10 })).toEqual({
      stamp: { lagSeconds: [], webhookDeliveries: 0 },
      next: [],
    });
    await writeEvents(1);
    const [only] = await events.selectUndispatched(hub().pool, { partitions: ALL_PARTITIONS, limit: 10 });
    await events.markDispatched(hub().pool, [only!.id]);

    const again = await events.stampAndSelectUndispatched(hub().pool, { stampIds: [only!.id], partitions: ALL_PARTITIONS, limit: 10 });

    expect(again).toEqual({ stamp: { lagSeconds: [], webhookDeliveries: 0 }, next: [] });
  });
});
