/**
 * Redis going away and coming back. The shared test Redis is used by other engineers' tests, so
 * this file runs its own throw-away redis-server on a free port and kills it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { events } from "@hub/db";
import { createRedis } from "@hub/shared";
import { capturingLogger, startPrivateRedis, waitUntil, type PrivateRedis } from "@hub/testing";
import { aggregatesOutOfOrder, createJobs, createRelayTestbed, outboxCounts, readStream, writeEvents, type RelayTestbed } from "./harness";

let bed: RelayTestbed;
let redisServer: PrivateRedis;

beforeAll(async () => {
  bed = await createRelayTestbed();
  redisServer = await startPrivateRedis();
});

afterAll(async () => {
  await bed?.stop();
  await redisServer?.stop();
});

it(
  "when Redis is stopped and restarted, then the relay stays up, logs the outage once, and publishes what was written meanwhile",
  { timeout: 60_000 },
  async () => {
    // Arrange: a relay publishing to the private Redis.
    const privateRedis = createRedis(redisServer.url, "relay-outage-test");
    privateRedis.on("error", () => undefined);
    const { logger, lines } = capturingLogger();
    const relay = await bed.startRelay({ redis: privateRedis, logger });
    const aggregates = await createJobs(bed.db, 20);
    await writeEvents(bed.pool, { aggregates, total: 200 });
    await waitUntil("the first events are stamped", async () => (await outboxCounts(bed.db)).undispatched === 0);

    // Act 1: Redis dies; events keep being written.
    await redisServer.process.kill("SIGKILL");
    await writeEvents(bed.pool, { aggregates, total: 500 });
    const failures = async () => (await relay.metrics.failures.get()).values.find((v) => v.labels.dependency === "redis")?.value ?? 0;
    await waitUntil("the relay has retried publishing several times", async () => (await failures()) >= 3);

    // Assert 1: nothing written during the outage is marked dispatched.
    expect((await outboxCounts(bed.db)).undispatched).toBe(500);

    // Act 2: Redis comes back (empty: it kept nothing).
    await redisServer.process.restart();
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 30_000);

    // Assert 2: every event of the outage is in the new stream, in per-aggregate order.
    const entries = await readStream(privateRedis, bed.keys.eventsStream);
    const outageEvents = (await events.list(bed.pool, { limit: 1000 })).sort((a, b) => a.position - b.position).slice(200);
    const published = new Set(entries.map((entry) => entry.id));
    expect(outageEvents.filter((event) => !published.has(event.id))).toEqual([]);
    expect(aggregatesOutOfOrder(entries, { fromAnyAttempt: true })).toEqual([]);
    // Logged once when the outage began and once when it ended, not once per retry.
    const messages = lines().map((line) => line.msg);
    expect(messages.filter((msg) => msg === "redis unavailable; retrying with back-off")).toHaveLength(1);
    expect(messages.filter((msg) => msg === "redis available again; catching up")).toHaveLength(1);

    await relay.stop();
    privateRedis.disconnect();
  },
);
