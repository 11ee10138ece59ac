/** The real app (`src/main.ts`) as a child process: killed hard, and stopped with SIGTERM. */
import { rmSync } from "node:fs";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { testServiceUrls } from "@hub/testing/vitest";
import { createAppProcess, newLogDir, waitUntil, type ManagedProcess } from "@hub/testing";
import { aggregatesOutOfOrder, createJobs, createRelayTestbed, outboxCounts, readStream, writeEvents, type RelayTestbed } from "./harness";

const logDir = newLogDir("relay-process-test");
let started = 0;

/** The relay's `src/main.ts` as a child process on the test bed, ready once its /healthz answers. */
async function startRelayProcess(bed: RelayTestbed): Promise<{ relay: ManagedProcess; metricsUrl: string }> {
  started += 1;
  const { process: relay, port } = await createAppProcess("event-relay", {
    name: `event-relay-${started}`,
    env: {
      DATABASE_URL: bed.database.url,
      REDIS_URL: testServiceUrls().redisUrl,
      HUB_REDIS_PREFIX: bed.prefix,
      HUB_RELAY_REBALANCE_MS: "150",
      HUB_RELAY_BATCH_SIZE: "100",
      LOG_LEVEL: "info",
    },
    logDir,
  });
  await relay.start();
  return { relay, metricsUrl: `http://127.0.0.1:${port}` };
}

// Child processes start slowly on a loaded machine (tsx compiles the app on the fly).
describe("the event-relay process", { timeout: 60_000 }, () => {
  let bed: RelayTestbed;
  const children: ManagedProcess[] = [];

  beforeEach(async () => {
    bed = await createRelayTestbed();
  });

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.running) await child.kill("SIGKILL");
    await bed.stop();
  });

  afterAll(() => rmSync(logDir, { recursive: true, force: true }));

  it("when it is SIGKILLed while events stream in, then a restarted relay publishes every event, in per-aggregate order", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 30);
    const first = await startRelayProcess(bed);
    children.push(first.relay);
    const writing = writeEvents(bed.pool, { aggregates, total: 1500, concurrency: 4 });
    await waitUntil("the relay has published a few hundred events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 300);

    // Act: kill it mid-stream, write more while no relay runs, then start another one.
    expect((await first.relay.kill("SIGKILL")).signal).toBe("SIGKILL");
    await writing;
    await writeEvents(bed.pool, { aggregates, total: 200 });
    expect((await outboxCounts(bed.db)).undispatched).toBeGreaterThanOrEqual(200);
    const second = await startRelayProcess(bed);
    children.push(second.relay);

    // Assert
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 30_000);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(1700);
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
    expect(await second.relay.kill("SIGTERM")).toEqual({ code: 0, signal: null });
  });

  it("when PostgreSQL terminates all of its connections again and again while events stream in, then it stays up and publishes every event, in per-aggregate order", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 30);
    const { relay, metricsUrl } = await startRelayProcess(bed);
    children.push(relay);
    const writing = writeEvents(bed.pool, { aggregates, total: 1500, concurrency: 4 });
    await waitUntil("the relay has published a few hundred events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 300);

    // Act: its pool connections and its lock session, three times over.
    for (let round = 0; round < 3; round++) {
      const { rows } = await bed.pool.query<{ terminated: number }>(
        `select count(*) filter (where pg_terminate_backend(pid))::int as terminated
           from pg_stat_activity where datname = current_database() and application_name like 'hub-event-relay%'`,
      );
      expect(rows[0]!.terminated).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await writing;

    // Assert
    await waitUntil("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 30_000);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(1500);
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
    expect(relay.running).toBe(true);
    await waitUntil("it holds every partition again", async () => {
      const health = (await (await fetch(`${metricsUrl}/healthz`)).json()) as { owned_partitions: number };
      return health.owned_partitions === 32;
    });
    expect(relay.output()).toContain("lost outbox partitions");
    expect(await relay.kill("SIGTERM")).toEqual({ code: 0, signal: null });
  });

  it("when it gets SIGTERM while publishing, then it stamps what it published, exits 0, and served its metrics until then", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 30);
    const { relay, metricsUrl } = await startRelayProcess(bed);
    children.push(relay);
    const writing = writeEvents(bed.pool, { aggregates, total: 1500, concurrency: 4 });
    await waitUntil("the relay has published a few hundred events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 300);
    const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
    const health = await (await fetch(`${metricsUrl}/healthz`)).json();

    // Act
    const exit = await relay.kill("SIGTERM");
    await writing;

    // Assert
    expect(exit).toEqual({ code: 0, signal: null });
    expect(relay.output()).toContain("stopped cleanly");
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    const dispatched = new Set((await bed.db.query.events.findMany()).filter((event) => event.dispatchedAt !== null).map((event) => event.id));
    expect(entries.length).toBeGreaterThanOrEqual(300);
    expect(entries.filter((entry) => !dispatched.has(entry.id))).toEqual([]);
    expect(health).toEqual({ status: "ok", owned_partitions: 32, redis: "ready" });
    expect(metrics).toMatch(/^hub_relay_events_published_total\{app="event-relay"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^hub_relay_lag_seconds_count\{app="event-relay"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^hub_relay_outbox_backlog\{app="event-relay"\} \d+$/m);
    expect(metrics).toMatch(/^hub_relay_owned_partitions\{app="event-relay"\} 32$/m);
  });
});
