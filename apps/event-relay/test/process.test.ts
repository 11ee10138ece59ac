/** The real app (`src/main.ts`) as a child process: killed hard, and stopped with SIGTERM. */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testServiceUrls } from "@hub/db/testing/inject";
import {
  aggregatesOutOfOrder,
  createJobs,
  createRelayTestbed,
  freePort,
  outboxCounts,
  readStream,
  waitFor,
  writeEvents,
  type RelayTestbed,
} from "./harness";

const appDir = fileURLToPath(new URL("..", import.meta.url));

interface RelayProcess {
  child: ChildProcess;
  metricsUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

async function startRelayProcess(bed: RelayTestbed): Promise<RelayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: appDir,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: bed.database.url,
      REDIS_URL: testServiceUrls().redisUrl,
      HUB_REDIS_PREFIX: bed.prefix,
      HUB_RELAY_METRICS_PORT: String(port),
      HUB_RELAY_REBALANCE_MS: "150",
      HUB_RELAY_BATCH_SIZE: "100",
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit").then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const metricsUrl = `http://127.0.0.1:${port}`;
  await waitFor(
    `the relay process answers /healthz (output so far: ${output})`,
    async () => {
      if (child.exitCode !== null) throw new Error(`relay process exited early: ${output}`);
      return (await fetch(`${metricsUrl}/healthz`).catch(() => undefined))?.status === 200;
    },
    30_000,
  );
  return { child, metricsUrl, exited, output: () => output };
}

// Child processes start slowly on a loaded machine (tsx compiles the app on the fly).
describe("the event-relay process", { timeout: 60_000 }, () => {
  let bed: RelayTestbed;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    bed = await createRelayTestbed();
  });

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
    }
    await bed.stop();
  });

  it("when it is SIGKILLed while events stream in, then a restarted relay publishes every event, in per-aggregate order", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 30);
    const first = await startRelayProcess(bed);
    children.push(first.child);
    const writing = writeEvents(bed.db, { aggregates, total: 1500, concurrency: 4 });
    await waitFor("the relay has published a few hundred events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 300);

    // Act: kill it mid-stream, write more while no relay runs, then start another one.
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    await writing;
    await writeEvents(bed.db, { aggregates, total: 200 });
    expect((await outboxCounts(bed.db)).undispatched).toBeGreaterThanOrEqual(200);
    const second = await startRelayProcess(bed);
    children.push(second.child);

    // Assert
    await waitFor("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 30_000);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(1700);
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
    second.child.kill("SIGTERM");
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });

  it("when PostgreSQL terminates all of its connections again and again while events stream in, then it stays up and publishes every event, in per-aggregate order", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 30);
    const relay = await startRelayProcess(bed);
    children.push(relay.child);
    const writing = writeEvents(bed.db, { aggregates, total: 1500, concurrency: 4 });
    await waitFor("the relay has published a few hundred events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 300);

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
    await waitFor("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 30_000);
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(1500);
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
    expect(relay.child.exitCode).toBeNull();
    await waitFor("it holds every partition again", async () => {
      const health = (await (await fetch(`${relay.metricsUrl}/healthz`)).json()) as { owned_partitions: number };
      return health.owned_partitions === 32;
    });
    expect(relay.output()).toContain("lost outbox partitions");
    relay.child.kill("SIGTERM");
    expect(await relay.exited).toEqual({ code: 0, signal: null });
  });

  it("when it gets SIGTERM while publishing, then it stamps what it published, exits 0, and served its metrics until then", async () => {
    // Arrange
    const aggregates = await createJobs(bed.db, 30);
    const relay = await startRelayProcess(bed);
    children.push(relay.child);
    const writing = writeEvents(bed.db, { aggregates, total: 1500, concurrency: 4 });
    await waitFor("the relay has published a few hundred events", async () => (await bed.redis.xlen(bed.keys.eventsStream)) >= 300);
    const metrics = await (await fetch(`${relay.metricsUrl}/metrics`)).text();
    const health = await (await fetch(`${relay.metricsUrl}/healthz`)).json();

    // Act
    relay.child.kill("SIGTERM");
    const exit = await relay.exited;
    await writing;

    // Assert
    expect(exit).toEqual({ code: 0, signal: null });
    expect(relay.output()).toContain("stopped cleanly");
    const entries = await readStream(bed.redis, bed.keys.eventsStream);
    const dispatched = new Set(
      (await bed.db.query.events.findMany()).filter((event) => event.dispatchedAt !== null).map((event) => event.id),
    );
    expect(entries.length).toBeGreaterThanOrEqual(300);
    expect(entries.filter((entry) => !dispatched.has(entry.id))).toEqual([]);
    expect(health).toEqual({ status: "ok", owned_partitions: 32, redis: "ready" });
    expect(metrics).toMatch(/^hub_relay_events_published_total\{app="event-relay"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^hub_relay_lag_seconds_count\{app="event-relay"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^hub_relay_outbox_backlog\{app="event-relay"\} \d+$/m);
    expect(metrics).toMatch(/^hub_relay_owned_partitions\{app="event-relay"\} 32$/m);
  });
});
