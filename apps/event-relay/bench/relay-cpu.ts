/**
 * CPU per event of one real relay process (`src/main.ts`) and of its PostgreSQL backends, from
 * `/proc`, in two situations:
 * - **backlog**: 20 000 events written while the bench holds every partition lock, then the
 *   locks are let go and the relay drains them in full batches (the cost of a batch, per event);
 * - **steady**: 500 events/s for 10 s, one per transaction, the relay polling as in production
 *   (small batches; includes the probes between them).
 * Run from apps/event-relay: `node --import tsx bench/relay-cpu.ts`. Uses a throw-away database
 * on DATABASE_SERVER_URL (default: local) and REDIS_URL (default: local). Same-host only.
 */
import { readFileSync, rmSync } from "node:fs";
import { openDatabase, events } from "@hub/db";
import { createAppProcess, createTestDatabase, newLogDir, sleep, uniqueRedisPrefix } from "@hub/testing";
import { createRedis, redisKeys } from "@hub/shared";

const serverUrl = process.env.DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 20_000);
const STEADY_PER_SECOND = 500;
const STEADY_SECONDS = 10;

const database = await createTestDatabase(serverUrl);
const { pool, close } = openDatabase(database.url, { max: 8, applicationName: "bench-writers" });
const prefix = uniqueRedisPrefix();
const redis = createRedis(redisUrl, "bench");

/** CPU seconds used so far by `pid` (utime + stime), 0 once it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function relayBackendPids(): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>(
    "select pid from pg_stat_activity where application_name like 'hub-event-relay%' and datname = current_database()",
  );
  return rows.map((row) => row.pid);
}

/** CPU used by the relay process and its backends between `start()` and `stop()`. */
async function cpuWindow(relayPid: number) {
  const backendsAtStart = new Map((await relayBackendPids()).map((pid) => [pid, cpuSeconds(pid)]));
  const relayAtStart = cpuSeconds(relayPid);
  return {
    async stop() {
      const relay = cpuSeconds(relayPid) - relayAtStart;
      let backends = 0;
      // A backend opened during the window started at 0.
      for (const pid of new Set([...backendsAtStart.keys(), ...(await relayBackendPids())])) {
        backends += cpuSeconds(pid) - (backendsAtStart.get(pid) ?? 0);
      }
      return { relay, backends };
    },
  };
}

async function undispatched(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from events where dispatched_at is null");
  return rows[0]!.n;
}

async function drained() {
  while ((await undispatched()) > 0) await sleep(20);
}

const aggregates = Array.from({ length: 200 }, () => crypto.randomUUID());
const insertEvent = "insert into events (aggregate_id, event_type, payload) values ($1, 'job.created', $2)";

// Hold every partition so the relay starts, joins, and owns nothing until the backlog is written.
const holder = await pool.connect();
for (let partition = 0; partition < events.OUTBOX_PARTITIONS; partition++) {
  await holder.query("select pg_advisory_lock(727002, $1)", [partition]);
}

// BENCH_CPU_PROF_DIR=dir: also write the relay's V8 CPU profile there (on exit).
const profile = process.env.BENCH_CPU_PROF_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : [];
const logDir = newLogDir("relay-cpu");
const { process: relay } = await createAppProcess("event-relay", {
  env: { DATABASE_URL: database.url, REDIS_URL: redisUrl, HUB_REDIS_PREFIX: prefix, LOG_LEVEL: "warn" },
  logDir,
  nodeOptions: profile,
});
await relay.start();
await pool.query(
  `insert into events (aggregate_id, event_type, payload)
   select ($1::uuid[])[1 + i % 200], 'job.created', jsonb_build_object('n', i, 'reason', 'a payload of some size')
     from generate_series(1, $2) as i`,
  [aggregates, BACKLOG],
);
await sleep(2000); // let start-up work settle

const backlogWindow = await cpuWindow(relay.pid!);
const releasedAt = Date.now();
for (let partition = 0; partition < events.OUTBOX_PARTITIONS; partition++) {
  await holder.query("select pg_advisory_unlock(727002, $1)", [partition]);
}
holder.release();
await drained();
const backlogSeconds = (Date.now() - releasedAt) / 1000;
const backlogCpu = await backlogWindow.stop();

await sleep(2000);
const steadyWindow = await cpuWindow(relay.pid!);
const started = Date.now();
let written = 0;
const writer = async () => {
  while (Date.now() < started + STEADY_SECONDS * 1000) {
    const due = started + (written / STEADY_PER_SECOND) * 1000;
    if (due > Date.now()) await sleep(due - Date.now());
    written++;
    await pool.query(insertEvent, [aggregates[written % aggregates.length], { n: written, reason: "a payload of some size" }]);
  }
};
await Promise.all(Array.from({ length: 4 }, writer));
await drained();
const steadyCpu = await steadyWindow.stop();

await relay.stop();
process.stderr.write(relay.output());
rmSync(logDir, { recursive: true, force: true });
await redis.del(redisKeys(prefix).eventsStream);
redis.disconnect();
await close();
await database.drop();

const perEventMs = (seconds: number, events: number) => Number(((seconds * 1000) / events).toFixed(4));
process.stdout.write(
  `${JSON.stringify(
    {
      backlog: {
        events: BACKLOG,
        drainSeconds: Number(backlogSeconds.toFixed(2)),
        relayCpuMsPerEvent: perEventMs(backlogCpu.relay, BACKLOG),
        postgresCpuMsPerEvent: perEventMs(backlogCpu.backends, BACKLOG),
      },
      steady: {
        events: written,
        perSecond: STEADY_PER_SECOND,
        relayCpuMsPerEvent: perEventMs(steadyCpu.relay, written),
        postgresCpuMsPerEvent: perEventMs(steadyCpu.backends, written),
      },
    },
    null,
    2,
  )}\n`,
);
