/**
 * Redis going away and coming back. The shared test Redis is used by other engineers' tests, so
 * this file runs its own throw-away redis-server on a free port and kills it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, expect, it } from "vitest";
import { listEvents } from "@hub/db";
import { createRedis } from "@hub/shared";
import {
  aggregatesOutOfOrder,
  capturingLogger,
  createJobs,
  createRelayTestbed,
  freePort,
  outboxCounts,
  readStream,
  waitFor,
  writeEvents,
  type RelayTestbed,
} from "./harness";

/** Starts redis-server without persistence on `port`; resolves once it accepts connections. */
async function startRedisServer(port: number): Promise<ChildProcess> {
  const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitFor("redis-server accepts connections", () => output.includes("Ready to accept connections"), 10_000);
  return server;
}

async function killRedisServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  server.kill("SIGKILL");
  await once(server, "exit");
}

let bed: RelayTestbed;
let port: number;
let redisServer: ChildProcess;

beforeAll(async () => {
  bed = await createRelayTestbed();
  port = await freePort();
  redisServer = await startRedisServer(port);
});

afterAll(async () => {
  await bed.stop();
  await killRedisServer(redisServer);
});

it("when Redis is stopped and restarted, then the relay stays up, logs the outage once, and publishes what was written meanwhile", { timeout: 60_000 }, async () => {
  // Arrange: a relay publishing to the private Redis.
  const privateRedis = createRedis(`redis://127.0.0.1:${port}`, "relay-outage-test");
  privateRedis.on("error", () => undefined);
  const { logger, lines } = capturingLogger();
  const relay = await bed.startRelay({ redis: privateRedis, logger });
  const aggregates = await createJobs(bed.db, 20);
  await writeEvents(bed.db, { aggregates, total: 200 });
  await waitFor("the first events are stamped", async () => (await outboxCounts(bed.db)).undispatched === 0);

  // Act 1: Redis dies; events keep being written.
  await killRedisServer(redisServer);
  await writeEvents(bed.db, { aggregates, total: 500 });
  const failures = async () => (await relay.metrics.failures.get()).values.find((v) => v.labels.dependency === "redis")?.value ?? 0;
  await waitFor("the relay has retried publishing several times", async () => (await failures()) >= 3);

  // Assert 1: nothing written during the outage is marked dispatched.
  expect((await outboxCounts(bed.db)).undispatched).toBe(500);

  // Act 2: Redis comes back (empty: it kept nothing).
  redisServer = await startRedisServer(port);
  await waitFor("every event is stamped", async () => (await outboxCounts(bed.db)).undispatched === 0, 30_000);

  // Assert 2: every event of the outage is in the new stream, in per-aggregate order.
  const entries = await readStream(privateRedis, bed.keys.eventsStream);
  const outageEvents = (await listEvents(bed.db, { limit: 1000 })).sort((a, b) => a.position - b.position).slice(200);
  const published = new Set(entries.map((entry) => entry.id));
  expect(outageEvents.filter((event) => !published.has(event.id))).toEqual([]);
  expect(aggregatesOutOfOrder(entries, { fromAnyAttempt: true })).toEqual([]);
  // Logged once when the outage began and once when it ended, not once per retry.
  const messages = lines().map((line) => line.msg);
  expect(messages.filter((msg) => msg === "redis unavailable; retrying with back-off")).toHaveLength(1);
  expect(messages.filter((msg) => msg === "redis available again; catching up")).toHaveLength(1);

  await relay.stop();
  privateRedis.disconnect();
});
