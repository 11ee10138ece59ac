/**
 * Measures the relay on this machine, with two real relay processes (`src/main.ts`):
 * - idle cost of the adaptive poll (CPU of the relay processes and of their PostgreSQL backends);
 * - latency from a writer's COMMIT to the event's arrival at a stream consumer, and the
 *   `hub_relay_lag_seconds` definition (created_at → dispatched_at), at 100 and 500 events/s and
 *   with writers at full speed;
 * - writer throughput with and without relays running;
 * - catch-up rate after a 30k backlog, and the idle probe's cost afterwards, from the start of the
 *   partial index and from the scan floor.
 * Run from apps/event-relay: `node --import tsx bench/relay-lag.ts`. HUB_RELAY_IDLE_POLL_MS and
 * HUB_RELAY_QUIET_POLL_MS are passed on to the relays. Uses a throw-away database on
 * DATABASE_SERVER_URL (default: local) and REDIS_URL (default: local).
 */
import { readFileSync, rmSync } from "node:fs";
import { openDatabase, events, withTransaction } from "@hub/db";
import { createAppProcess, createTestDatabase, newLogDir, sleep, uniqueRedisPrefix, type ManagedProcess } from "@hub/testing";
import { createRedis, redisKeys } from "@hub/shared";
import { defaultRelayConfig } from "../src/config";

const serverUrl = process.env.DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

const database = await createTestDatabase(serverUrl);
const writerDb = openDatabase(database.url, { max: 16, applicationName: "bench-writers" });
const prefix = uniqueRedisPrefix();
const keys = redisKeys(prefix);
const redis = createRedis(redisUrl, "bench");
const now = () => performance.timeOrigin + performance.now();

const logDir = newLogDir("relay-lag");
let relaysStarted = 0;

interface RelayProcess {
  process: ManagedProcess;
  metricsUrl: string;
}

async function startRelays(count: number): Promise<RelayProcess[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      relaysStarted += 1;
      const { process: relay, port } = await createAppProcess("event-relay", {
        name: `event-relay-${relaysStarted}`,
        env: {
          DATABASE_URL: database.url,
          REDIS_URL: redisUrl,
          HUB_REDIS_PREFIX: prefix,
          LOG_LEVEL: "warn",
          ...(process.env.HUB_RELAY_IDLE_POLL_MS ? { HUB_RELAY_IDLE_POLL_MS: process.env.HUB_RELAY_IDLE_POLL_MS } : {}),
          ...(process.env.HUB_RELAY_QUIET_POLL_MS ? { HUB_RELAY_QUIET_POLL_MS: process.env.HUB_RELAY_QUIET_POLL_MS } : {}),
        },
        logDir,
      });
      await relay.start();
      return { process: relay, metricsUrl: `http://127.0.0.1:${port}` };
    }),
  );
}

async function stopRelays(relays: RelayProcess[]) {
  await Promise.all(relays.map((relay) => relay.process.stop()));
}

async function metric(relay: RelayProcess, name: string): Promise<number> {
  const text = await (await fetch(`${relay.metricsUrl}/metrics`)).text();
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
}

/** CPU seconds used so far by `pids` (same host only). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime + stime
    } catch {
      // gone
    }
  }
  return ticks / 100;
}

async function relayBackendPids(): Promise<number[]> {
  const { rows } = await writerDb.pool.query<{ pid: number }>(
    "select pid from pg_stat_activity where application_name like 'hub-event-relay%' and datname = current_database()",
  );
  return rows.map((row) => row.pid);
}

/** Commit time (this process's clock) of each event, by its payload's `context.n`. */
const committedAt = new Map<number, number>();
let sequence = 0;

/** Events from `concurrency` writers, each transaction shaped like the hub's (row, then event). */
async function write(options: { count?: number; seconds?: number; perSecond?: number; concurrency: number }) {
  const aggregates = Array.from({ length: 200 }, () => crypto.randomUUID());
  const deadline = options.seconds ? Date.now() + options.seconds * 1000 : Infinity;
  let written = 0;
  const started = Date.now();
  const writer = async () => {
    while ((options.count === undefined || written < options.count) && Date.now() < deadline) {
      if (options.perSecond) {
        const due = started + (written / options.perSecond) * 1000;
        if (due > Date.now()) await sleep(due - Date.now());
      }
      written++;
      const n = ++sequence;
      await withTransaction(writerDb.pool, async (tx) => {
        await tx.query({ text: "select 1" }); // stands in for the aggregate row's update
        const aggregateId = aggregates[n % aggregates.length]!;
        await events.record(tx, { eventType: "job.created", aggregateId, actorId: null, payload: { automation_id: aggregateId, context: { n } } });
      });
      committedAt.set(n, now());
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, writer));
  return { written, seconds: (Date.now() - started) / 1000 };
}

/** A stream consumer recording, per event, the time from its COMMIT to its arrival here. */
function consume() {
  const reader = createRedis(redisUrl, "bench-consumer");
  const latencies: number[] = [];
  let stopped = false;
  const done = (async () => {
    let last = "$";
    while (!stopped) {
      const reply = await reader.xread("COUNT", 1000, "BLOCK", 200, "STREAMS", keys.eventsStream, last);
      const arrived = now();
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) {
          last = id;
          const n = (JSON.parse(fields[fields.indexOf("data") + 1]!) as { payload: { context: { n: number } } }).payload.context.n;
          const committed = committedAt.get(n);
          if (committed !== undefined) latencies.push(Math.max(0, arrived - committed));
        }
      }
    }
    reader.disconnect();
  })();
  return {
    async stop() {
      stopped = true;
      await done;
      const sorted = latencies.sort((a, b) => a - b);
      const at = (q: number) => Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1));
      return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
    },
  };
}

async function lagPercentiles(afterPosition: number) {
  const { rows } = await writerDb.pool.query(
    `select count(*)::int as n,
            round(percentile_cont(0.5) within group (order by ms)::numeric, 1)::float8 as p50,
            round(percentile_cont(0.99) within group (order by ms)::numeric, 1)::float8 as p99,
            round(max(ms), 1)::float8 as max
       from (select extract(epoch from dispatched_at - created_at) * 1000 as ms from events where position > $1) t`,
    [afterPosition],
  );
  return rows[0];
}

async function maxPosition(): Promise<number> {
  const { rows } = await writerDb.pool.query<{ p: number | null }>("select max(position)::int8 as p from events");
  return rows[0]!.p ?? 0;
}

async function drained() {
  for (;;) {
    const { rows } = await writerDb.pool.query<{ n: number }>("select count(*)::int as n from events where dispatched_at is null");
    if (rows[0]!.n === 0) return;
    await sleep(20);
  }
}

/** One idle probe's cost, from the start of the partial index and from the scan floor. */
async function probeCost(floor: number) {
  const explainProbe = async (from: number) => {
    const { rows } = await writerDb.pool.query<{ "QUERY PLAN": Array<Record<string, unknown>> }>(
      "explain (analyze, buffers, format json) select * from events where dispatched_at is null and position >= $1 order by position limit 500",
      [from],
    );
    const plan = rows[0]!["QUERY PLAN"][0]!;
    return { executionMs: plan["Execution Time"], buffers: (plan.Plan as Record<string, unknown>)["Shared Hit Blocks"] };
  };
  const size = await writerDb.pool.query<{ pages: number }>("select (pg_relation_size('events_undispatched_idx') / 8192)::int as pages");
  return { fromStart: await explainProbe(0), fromScanFloor: await explainProbe(floor), indexPages: size.rows[0]!.pages };
}

async function steady(label: string, options: { seconds: number; perSecond?: number }) {
  const from = await maxPosition();
  const consumer = consume();
  const { written, seconds } = await write({ ...options, concurrency: 8 });
  await drained();
  await sleep(300);
  results[label] = {
    writtenPerSecond: Math.round(written / seconds),
    commitToStreamMs: await consumer.stop(),
    createdToDispatchedMs: await lagPercentiles(from),
  };
}

const results: Record<string, unknown> = {};

results.writersAloneTps = await write({ seconds: 5, concurrency: 8 }).then((r) => Math.round(r.written / r.seconds));

let relays = await startRelays(2);
await drained();
await sleep(2000);

const idleSeconds = 10;
const relayPids = relays.map((relay) => relay.process.pid!);
const backendPids = await relayBackendPids();
const before = { relays: cpuSeconds(relayPids), backends: cpuSeconds(backendPids) };
await sleep(idleSeconds * 1000);
const percent = (seconds: number) => Number(((seconds / idleSeconds) * 100).toFixed(1));
results.idleTwoRelaysCpuPercentOfOneCore = {
  quietPollMs: Number(process.env.HUB_RELAY_QUIET_POLL_MS ?? defaultRelayConfig.quietPollMs),
  relayProcesses: percent(cpuSeconds(relayPids) - before.relays),
  postgresBackends: percent(cpuSeconds(backendPids) - before.backends),
};

await steady("steady100PerSecond", { seconds: 10, perSecond: 100 });
await steady("steady500PerSecond", { seconds: 10, perSecond: 500 });
await steady("writersFullSpeedWithRelays", { seconds: 5 });

await stopRelays(relays);
await write({ count: 30_000, concurrency: 8 });
const backlogFrom = await redis.xlen(keys.eventsStream);
relays = await startRelays(2);
await drained();
const [first] = await redis.xrange(keys.eventsStream, "-", "+", "COUNT", backlogFrom + 1).then((page) => page.slice(backlogFrom));
const [last] = await redis.xrevrange(keys.eventsStream, "+", "-", "COUNT", 1);
const streamMs = (id: string) => Number(id.split("-")[0]);
results.catchUp30kEventsPerSecond = Math.round(30_000 / ((streamMs(last![0]) - streamMs(first![0])) / 1000));
await sleep(1000); // let the scan floors move past the drained backlog
results.probeAfterCatchUp = await probeCost(Math.min(...(await Promise.all(relays.map((r) => metric(r, "hub_relay_scan_floor_position"))))));

await stopRelays(relays);
await redis.del(keys.eventsStream);
redis.disconnect();
await writerDb.close();
await database.drop();
rmSync(logDir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
