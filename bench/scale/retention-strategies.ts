/**
 * `node --import tsx bench/scale/retention-strategies.ts` — the measurement behind retention's
 * design (docs/CAPACITY.md "Retention"): batched deletes from `events`/`jobs` against dropping daily
 * partitions of a partitioned copy of `events`, each while job creations (the hub's own
 * `jobs.insert` statement: a job and its `job.created`) or event inserts run at a fixed rate beside
 * it. Prints the delete rate and the insert latency before and during each. One database, dropped
 * at the end; about 1.3 GB at the default size. Not part of any CI run.
 *
 * BENCH_RETENTION_JOBS (default 400,000 jobs, 3 events each) and as many self-growing events:
 * ~2.0 M rows, spread over the last 60 days. BENCH_RETENTION_RATE: creations (inserts) per second
 * beside each phase (default 100).
 */
import { cpus, loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { EVERYWHERE, openDatabase, type Database, jobs, retention } from "@hub/db";
import { EVENT_TYPES_REMOVED_BY_AGE } from "@hub/shared";
import { createTestDatabase, seedHistory, seedHistoryAutomations } from "@hub/testing";
import { summarize, type LatencySummary } from "../lib/stats";

const JOBS = Number(process.env.BENCH_RETENTION_JOBS ?? 400_000);
const RATE = Number(process.env.BENCH_RETENTION_RATE ?? 100);
const BASELINE_SECONDS = 15;
const step = (message: string) => console.error(`retention-strategies: ${message}`);
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : "–");
const show = (s: LatencySummary) => `n=${s.count} p50 ${ms(s.p50)} p99 ${ms(s.p99)} max ${ms(s.max)} ms (load average ${loadavg()[0]!.toFixed(1)})`;

/** Runs `insert` at `rate` per second (up to 8 at once) until `stop` aborts; resolves with each call's latency (ms). */
async function paced(rate: number, stop: AbortSignal, insert: (i: number) => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  for (let i = 0; !stop.aborted; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= 8) await Promise.race(inFlight);
    const begun = performance.now();
    const call: Promise<void> = insert(i).then(() => {
      latencies.push(performance.now() - begun);
      inFlight.delete(call);
    });
    inFlight.add(call);
  }
  await Promise.all(inFlight);
  return latencies;
}

/** Runs `work` while `insert` runs at RATE beside it; resolves with work's result and the insert latencies. */
async function beside<T>(insert: (i: number) => Promise<unknown>, work: () => Promise<T>): Promise<{ value: T; inserts: LatencySummary }> {
  const stop = new AbortController();
  const load = paced(RATE, stop.signal, insert);
  try {
    return { value: await work(), inserts: summarize(await (stop.abort(), load)) };
  } finally {
    stop.abort();
  }
}

async function tableRows(database: Database, table: string): Promise<number> {
  const { rows } = await database.pool.query<{ n: number }>(`select count(*)::int as n from ${table}`);
  return rows[0]!.n;
}

const databaseServer = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const scratch = await createTestDatabase(databaseServer);
const database = openDatabase(scratch.url, { max: 12, applicationName: "bench-retention-strategies" });
try {
  step(`${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at the start`);
  step(`seeding ${JOBS} jobs (3 events each) and ${JOBS} self-growing events over 60 days`);
  const automationIds = await seedHistoryAutomations(database.pool, 1000);
  const seeded = await seedHistory(database.pool, { automationIds, jobs: JOBS, selfGrowingEvents: JOBS, window: { newestDaysAgo: 0, oldestDaysAgo: 60 } });
  const { rows: users } = await database.pool.query<{ id: string }>(
    "insert into users (email, password_hash, role) values ('strategies@bench.local', 'x', 'employee') returning id",
  );
  const userId = users[0]!.id;
  await database.pool.query("vacuum analyze");
  await database.pool.query("checkpoint");
  step(`seeded ${seeded.jobs} jobs and ${seeded.events} events`);

  const createOne = (i: number) =>
    jobs.insert(database.pool, EVERYWHERE, userId, { automationId: automationIds[i % automationIds.length]!, context: { invoice_id: `new-${i}` } });
  const idle = await beside(createOne, () => sleep(BASELINE_SECONDS * 1000));
  console.log(`job creation (job + job.created, ${RATE}/s), nothing else running: ${show(idle.inserts)}`);

  // Batched deletes at three batch sizes, each over a twelfth of the history (5 days of it), then
  // as the dispatcher runs them: 1000 per transaction, pausing after each batch as long as it took.
  for (const [retentionDays, batchSize, paced] of [
    [55, 250, false],
    [50, 1000, false],
    [45, 5000, false],
    [40, 1000, true],
  ] as const) {
    await database.pool.query("checkpoint");
    const before = { jobs: await tableRows(database, "jobs"), events: await tableRows(database, "events") };
    const batchMs: number[] = [];
    const run = await beside(createOne, async () => {
      const started = performance.now();
      let removed = 0;
      const drain = async (batch: () => Promise<{ picked: number; removed: { jobs: number; events: number; webhookDeliveries: number } } | null>) => {
        for (;;) {
          const begun = performance.now();
          const outcome = await batch();
          const took = performance.now() - begun;
          batchMs.push(took);
          if (paced) await sleep(took);
          if (!outcome) throw new Error("the retention lock was taken: nothing else should sweep here");
          removed += outcome.removed.jobs + outcome.removed.events + outcome.removed.webhookDeliveries;
          if (outcome.picked < batchSize) return;
        }
      };
      await drain(() => retention.removeExpiredJobs(database.pool, { retentionDays, batchSize }));
      for (const eventType of EVENT_TYPES_REMOVED_BY_AGE)
        await drain(() => retention.removeExpiredEventsOfType(database.pool, eventType, { retentionDays, batchSize }));
      return { removed, seconds: (performance.now() - started) / 1000 };
    });
    const after = { jobs: await tableRows(database, "jobs"), events: await tableRows(database, "events") };
    const batches = summarize(batchMs);
    console.log(
      `batched delete, ${batchSize} per transaction${paced ? ", paused as long as each took" : ""} (older than ${retentionDays} days): ${run.value.removed} rows ` +
        `(jobs ${before.jobs} → ${after.jobs}, events ${before.events} → ${after.events}) in ${run.value.seconds.toFixed(1)} s = ` +
        `${Math.round(run.value.removed / run.value.seconds)} rows/s; transaction p50 ${ms(batches.p50)} p99 ${ms(batches.p99)} max ${ms(batches.max)} ms; ` +
        `job creation meanwhile: ${show(run.inserts)}`,
    );
  }

  await database.pool.query("checkpoint");
  const idleAfter = await beside(createOne, () => sleep(BASELINE_SECONDS * 1000));
  console.log(`job creation again, nothing else running: ${show(idleAfter.inserts)}`);

  // The alternative: events partitioned by day, old days dropped. The copy cannot keep what the hub
  // relies on — a unique `position` (the relay's order) and `id` alone as the key that
  // webhook_deliveries references — because a partitioned table's unique keys must hold the
  // partition key; it keeps the rest (columns, the four indexes).
  step("copying the remaining events into a table partitioned by day");
  await database.pool.query(`
    create table events_by_day (
      id uuid not null default gen_random_uuid(), position bigint generated by default as identity,
      aggregate_id uuid not null, event_type text not null, actor_id uuid, payload jsonb not null default '{}',
      created_at timestamptz(3) not null default now(), dispatched_at timestamptz(3), primary key (id, created_at)
    ) partition by range (created_at)`);
  await database.pool.query(`
    do $$ begin
      for d in -2..61 loop
        execute format('create table events_by_day_%s partition of events_by_day for values from (%L) to (%L)', d + 2,
          date_trunc('day', now()) - make_interval(days => d), date_trunc('day', now()) - make_interval(days => d - 1));
      end loop;
    end $$`);
  await database.pool.query(`
    create index on events_by_day (position) where dispatched_at is null;
    create index on events_by_day (created_at, id);
    create index on events_by_day (aggregate_id, created_at, id);
    create index on events_by_day (event_type, created_at, id)`);
  const copyStarted = performance.now();
  await database.pool.query(
    "insert into events_by_day (id, position, aggregate_id, event_type, actor_id, payload, created_at, dispatched_at) select id, position, aggregate_id, event_type, actor_id, payload, created_at, dispatched_at from events",
  );
  await database.pool.query("vacuum analyze events_by_day");
  await database.pool.query("checkpoint");
  step(`copied in ${((performance.now() - copyStarted) / 1000).toFixed(1)} s`);

  const insertEvent = () =>
    database.pool.query("insert into events_by_day (aggregate_id, event_type, payload) values (gen_random_uuid(), 'job.created', '{}')");
  const insertPlainEvent = () => database.pool.query("insert into events (aggregate_id, event_type, payload) values (gen_random_uuid(), 'job.created', '{}')");
  const plainIdle = await beside(insertPlainEvent, () => sleep(BASELINE_SECONDS * 1000));
  console.log(`one-event insert into events (plain), nothing else running: ${show(plainIdle.inserts)}`);
  const partIdle = await beside(insertEvent, () => sleep(BASELINE_SECONDS * 1000));
  console.log(`one-event insert into events_by_day (64 partitions), nothing else running: ${show(partIdle.inserts)}`);

  // The batched deletes above took everything older than 40 days: drop the 10 oldest days that remain.
  const { rows: oldest } = await database.pool.query<{ name: string; rows: number }>(`
    select c.relname as name, (select count(*) from events_by_day p where p.tableoid = c.oid)::int as rows
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'events_by_day'::regclass
     order by substring(c.relname from '[0-9]+$')::int desc`);
  const victims = oldest.filter((partition) => partition.rows > 0).slice(0, 10);
  const dropMs: number[] = [];
  const dropRun = await beside(insertEvent, async () => {
    let rows = 0;
    const started = performance.now();
    for (const partition of victims) {
      const begun = performance.now();
      await database.pool.query(`drop table ${partition.name}`);
      dropMs.push(performance.now() - begun);
      rows += partition.rows;
    }
    return { rows, seconds: (performance.now() - started) / 1000 };
  });
  const drops = summarize(dropMs);
  console.log(
    `drop partition: ${victims.length} daily partitions, ${dropRun.value.rows} rows in ${dropRun.value.seconds.toFixed(2)} s = ` +
      `${Math.round(dropRun.value.rows / dropRun.value.seconds)} rows/s; each drop p50 ${ms(drops.p50)} max ${ms(drops.max)} ms; ` +
      `event inserts meanwhile: ${show(dropRun.inserts)}`,
  );
} finally {
  await database.close();
  await scratch.drop();
  step("database dropped");
}
