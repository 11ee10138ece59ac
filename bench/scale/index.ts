/**
 * `pnpm bench scale` — the hub on a large history (docs/CAPACITY.md): BENCH_SCALE ×
 * (10,000 automations, 5,000,000 finished jobs, 20,000,000 events) seeded with generate_series over
 * the last 60 days, then, with the real API, a dispatcher and an event relay running on it:
 * - the plans of `GET /jobs?automation_id=…`, `GET /events?aggregate_id=…`, the /metrics gauges and
 *   the relay's outbox scan (EXPLAIN ANALYZE: which indexes, no sequential scan);
 * - p50/p99 of those two lists and of a /metrics scrape, over HTTP;
 * - GET /jobs's context filters (CONTRACT §6.14): the plans and p50/p99 of `context.customer_id=…`
 *   (1/500 of the jobs each: 10,000 at BENCH_SCALE=1) over all automations and over one, and of
 *   `context.invoice_id=…` (one job each); the size of the context index (`job_context_values`)
 *   and its cost per insert (the batch job-creating statement with and without its trigger,
 *   alternating in rolled-back transactions);
 * - the console's Jobs page in headless Chromium (bench/console): time to the first rendered rows,
 *   unfiltered and with a context and a status filter, cold and warm;
 * - the retention sweep (HUB_RETENTION_DAYS=30, so about half the history goes) in a dispatcher of
 *   its own: rows per second;
 * - create→claim p50/p99 of jobs flowing through the hub (POST /jobs at BENCH_SCALE_RATE, workers
 *   claiming and completing), without the sweep and while it runs.
 * It checks the free disk of PostgreSQL's data directory first and refuses to seed what would not
 * fit; it never runs in CI. How to read it: bench/MODES.md ("The scale mode").
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { statfs } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { EVERYWHERE, openDatabase, type Database, type Executor, automations, events, jobs, retention } from "@hub/db";
import {
  createAppProcess,
  createTestDatabase,
  deleteRedisKeys,
  HISTORY_CUSTOMERS,
  HubProcesses,
  readMetric,
  seedHistory,
  seedHistoryAutomations,
  type ManagedProcess,
} from "@hub/testing";
import { firstRowsLine, measureJobsPage, type FirstRows } from "../console";
import { HubHttpTarget, seedHub } from "../hub/hub-target";
import type { BenchConfig } from "../lib/config";
import { JsonClient } from "../lib/http";
import { planWorkload } from "../lib/plan";
import { busyWarning, describeMachine, writeReport, type MachineInfo } from "../lib/report";
import { summarize, type LatencySummary } from "../lib/stats";

/** The counts at BENCH_SCALE=1. */
const FULL = { automations: 10_000, jobs: 5_000_000, events: 20_000_000 };
/** Each seeded job has 3 events; the rest of the events are the self-growing kinds. */
const EVENTS_PER_JOB = 3;
/**
 * Bytes on disk per seeded row, heap and indexes together, with margin: measured at BENCH_SCALE=0.1
 * (this mode prints the real figures; docs/CAPACITY.md has them) and rounded up.
 */
const ESTIMATED_BYTES = { job: 800, event: 600 };
/** Free space asked for beyond the estimate: WAL, the vacuum after the sweep, the hub's own rows. */
const DISK_HEADROOM = 2;
const RETENTION_DAYS = 30;
const HISTORY_DAYS = 60;

const step = (message: string) => console.error(`bench: scale: ${message}`);
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : "–");
const latency = (s: LatencySummary) => `n=${s.count}: p50 ${ms(s.p50)} · p99 ${ms(s.p99)} · max ${ms(s.max)} ms`;

export interface ScaleCounts {
  automations: number;
  jobs: number;
  events: number;
}

export function scaleCounts(scale: number): ScaleCounts {
  const jobs = Math.max(1, Math.round(FULL.jobs * scale));
  return {
    automations: Math.max(1, Math.round(FULL.automations * scale)),
    jobs,
    events: Math.max(jobs * EVENTS_PER_JOB, Math.round(FULL.events * scale)),
  };
}

/**
 * Checks, before anything is built or seeded, that this is not CI and that PostgreSQL's data
 * directory has room for the seeded rows (with {@link DISK_HEADROOM}); prints why when not.
 */
export async function scalePreflight(config: BenchConfig): Promise<boolean> {
  const counts = scaleCounts(config.scale.scale);
  console.error(`bench: scale: BENCH_SCALE=${config.scale.scale}: ${counts.automations} automations, ${counts.jobs} jobs, ${counts.events} events`);
  if (process.env.CI) {
    console.error("bench: scale: refusing to run in CI (CI is set): this mode seeds gigabytes and takes many minutes");
    return false;
  }
  const needed = DISK_HEADROOM * (counts.jobs * ESTIMATED_BYTES.job + counts.events * ESTIMATED_BYTES.event);
  const client = new pg.Client({ connectionString: config.databaseServerUrl });
  let directory: string;
  try {
    await client.connect();
    directory = (await client.query<{ data_directory: string }>("show data_directory")).rows[0]!.data_directory;
  } catch (error) {
    console.error(`bench: scale: refusing: cannot read PostgreSQL's data_directory to check its free disk (${(error as Error).message})`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
  let free: number;
  try {
    const stats = await statfs(directory);
    free = stats.bavail * stats.bsize;
  } catch (error) {
    console.error(`bench: scale: refusing: cannot check the free disk of ${directory} (${(error as Error).message}); run it on the database's host`);
    return false;
  }
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;
  if (free < needed) {
    console.error(
      `bench: scale: refusing: ${directory} has ${gb(free)} free, the seeded history needs about ${gb(needed)} ` +
        `(${DISK_HEADROOM} × ${counts.jobs} jobs × ${ESTIMATED_BYTES.job} B + ${counts.events} events × ${ESTIMATED_BYTES.event} B); lower BENCH_SCALE`,
    );
    return false;
  }
  console.error(`bench: scale: ${directory} has ${gb(free)} free, about ${gb(needed)} needed`);
  return true;
}

interface TableSize {
  rows: number;
  bytes: number;
  bytesPerRow: number;
}

interface PlanCheck {
  name: string;
  indexes: string[];
  sequentialScans: string[];
  ok: boolean;
  plan: string;
}

export interface ScaleReport {
  mode: "scale";
  startedAt: string;
  machine: MachineInfo;
  config: BenchConfig["scale"];
  counts: ScaleCounts;
  seedSeconds: number;
  sizes: Record<"jobs" | "events", TableSize>;
  plans: PlanCheck[];
  listJobs: LatencySummary;
  contextFilters: { customerAll: LatencySummary; customerOneAutomation: LatencySummary; invoiceAll: LatencySummary };
  contextIndex: ContextIndexCost;
  /** The console's Jobs page over the whole history (absent when the browser could not run: the reason is logged). */
  consoleJobsPage?: FirstRows[];
  listEvents: LatencySummary;
  metricsScrape: LatencySummary;
  sweep: { rows: Record<string, number>; seconds: number; rowsPerSecond: number; sizesAfter: Record<"jobs" | "events", TableSize> };
  createToClaim: { withoutSweep: LatencySummary; duringSweep: LatencySummary };
  checks: Array<{ name: string; ok: boolean; detail: string }>;
}

async function tableSize(pool: pg.Pool, table: "jobs" | "events"): Promise<TableSize> {
  const { rows } = await pool.query<{ rows: number; bytes: number }>(
    `select (select count(*) from ${table})::int8 as rows, pg_total_relation_size('${table}')::int8 as bytes`,
  );
  const { rows: count, bytes } = rows[0]!;
  return { rows: count, bytes, bytesPerRow: count > 0 ? bytes / count : 0 };
}

/** EXPLAIN ANALYZE of whatever `run` sends on one connection, through auto_explain (the list statements are built at run time). */
async function explainRun(databaseUrl: string, name: string, run: (db: Database) => Promise<unknown>): Promise<PlanCheck> {
  const database = openDatabase(databaseUrl, { max: 1, applicationName: "bench-scale-explain" });
  const notices: string[] = [];
  try {
    database.pool.on("connect", (client) => client.on("notice", (notice) => notices.push(notice.message ?? "")));
    await database.pool.query("load 'auto_explain'");
    await database.pool.query("set auto_explain.log_min_duration = 0");
    await database.pool.query("set auto_explain.log_analyze = on");
    await database.pool.query("set auto_explain.log_level = 'notice'");
    notices.length = 0;
    await run(database);
  } finally {
    await database.close();
  }
  const plan = notices.filter((notice) => notice.includes("Query Text")).join("\n");
  const indexes = [
    ...new Set([...plan.matchAll(/Index (?:Only )?Scan(?: Backward)? using (\w+)|Bitmap Index Scan on (\w+)/g)].map((match) => (match[1] ?? match[2])!)),
  ];
  const sequentialScans = [...new Set([...plan.matchAll(/Seq Scan on (\w+)/g)].map((match) => match[1]!))];
  // The large tables; the seeded hub has no webhook deliveries, so a plan may read that empty table as it likes.
  const ok = !sequentialScans.some((table) => ["jobs", "events"].includes(table));
  return { name, indexes, sequentialScans, ok, plan };
}

/** Rounds of the insert-cost comparison, and jobs inserted per variant in each. */
const INSERT_COST_ROUNDS = 5;
const INSERT_COST_JOBS = 5000;

export interface ContextIndexCost {
  /** job_context_values with its index. */
  bytes: number;
  bytesPerJob: number;
  /** Median per round of the mean time of one job insert, with and without the table's trigger (µs). */
  withIndexUs: number;
  withoutIndexUs: number;
  /** Inserts per second with the trigger ÷ without it, in this run. */
  ratio: number;
}

/**
 * The size of GET /jobs's context index (`job_context_values` and its index, migration 0018) and
 * what it costs each insert: {@link INSERT_COST_JOBS} jobs made by the statement of POST /jobs/batch
 * (@hub/db jobs.insertBatch, {@link jobs.MAX_JOBS_PER_BATCH} a call, so the round trips of one-job requests
 * do not drown the index's share) in a transaction that is rolled back, with the trigger that fills
 * the table and with it dropped inside the transaction (so nothing else ever sees it gone),
 * alternating over {@link INSERT_COST_ROUNDS} rounds. Run while no hub process is up (the drop
 * locks the table).
 */
async function contextIndexCost(databaseUrl: string, automationIds: readonly string[], jobCount: number): Promise<ContextIndexCost> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-scale-insert-cost" });
  await client.connect();
  try {
    const bytes = Number((await client.query<{ bytes: string }>("select pg_total_relation_size('job_context_values') as bytes")).rows[0]!.bytes);
    const userId = (
      await client.query<{ id: string }>("insert into users (email, password_hash, role) values ($1, 'not a hash', 'admin') returning id", [
        `insert-cost-${randomBytes(4).toString("hex")}@bench.test`,
      ])
    ).rows[0]!.id;
    const perInsert = { with: [] as number[], without: [] as number[] };
    for (let round = 0; round < INSERT_COST_ROUNDS; round += 1) {
      const order: Array<"with" | "without"> = round % 2 === 0 ? ["with", "without"] : ["without", "with"];
      for (const variant of order) {
        await client.query("begin");
        try {
          if (variant === "without") await client.query("drop trigger jobs_record_context_values on jobs");
          const started = performance.now();
          for (let first = 0; first < INSERT_COST_JOBS; first += jobs.MAX_JOBS_PER_BATCH) {
            const batch = Array.from({ length: Math.min(jobs.MAX_JOBS_PER_BATCH, INSERT_COST_JOBS - first) }, (_, offset) => {
              const k = first + offset;
              return {
                automationId: automationIds[k % automationIds.length]!,
                context: { invoice_id: `cost-${round}-${k}`, customer_id: `cust-${k % HISTORY_CUSTOMERS}` },
              };
            });
            const created = await jobs.insertBatch(client, EVERYWHERE, userId, batch);
            if (created.kind !== "created") throw new Error(`insert-cost jobs not created: ${created.kind}`);
          }
          perInsert[variant].push(((performance.now() - started) * 1000) / INSERT_COST_JOBS);
        } finally {
          await client.query("rollback");
        }
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const withIndexUs = median(perInsert.with);
    const withoutIndexUs = median(perInsert.without);
    return { bytes, bytesPerJob: bytes / jobCount, withIndexUs, withoutIndexUs, ratio: withoutIndexUs / withIndexUs };
  } finally {
    await client.end();
  }
}

async function time(times: number[], call: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await call();
  times.push(performance.now() - started);
}

/** create→claim (started_at − created_at, PostgreSQL's clock) of the jobs of `automationIds` created in [from, to). */
async function createToClaim(pool: pg.Pool, automationIds: string[], from: Date, to: Date): Promise<LatencySummary> {
  const { rows } = await pool.query<{ ms: number }>(
    `select (extract(epoch from started_at - created_at) * 1000)::float8 as ms from jobs
      where automation_id = any($1::uuid[]) and created_at >= $2 and created_at < $3 and started_at is not null`,
    [automationIds, from, to],
  );
  return summarize(rows.map((row) => row.ms));
}

/** Jobs created at `rate` per second over the automations (round robin) until `stop` aborts. */
async function createPaced(target: HubHttpTarget, automations: number, rate: number, stop: AbortSignal): Promise<number> {
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let created = 0;
  for (let i = 0; !stop.aborted; i += 1) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= 16) await Promise.race(inFlight);
    const call: Promise<void> = target.createJob(i % automations, { invoice_id: `scale-${i}` }).then(() => {
      created += 1;
      inFlight.delete(call);
    });
    inFlight.add(call);
  }
  await Promise.all(inFlight);
  return created;
}

/** One claim loop per automation (one job at a time, completed at once) until `stop` aborts. */
function startWorkers(target: HubHttpTarget, automations: number, stop: AbortSignal): Promise<void[]> {
  const loop = async (automation: number) => {
    while (!stop.aborted) {
      let job;
      try {
        job = await target.claimJob(automation, 2, stop);
      } catch (error) {
        if (stop.aborted) return;
        throw error;
      }
      if (job) await target.completeJob(automation, job.id, { ok: true });
    }
  };
  return Promise.all(Array.from({ length: automations }, (_, automation) => [loop(automation), loop(automation)]).flat());
}

/** GET /jobs's context filters: p50/p99 of each, timed or already summarised. */
function contextFilterLines(times: Record<keyof ScaleReport["contextFilters"], number[] | LatencySummary>): string[] {
  const of = (value: number[] | LatencySummary) => latency(Array.isArray(value) ? summarize(value) : value);
  return [
    `GET /jobs?context.customer_id=… (1/${HISTORY_CUSTOMERS} of the jobs each), every automation  ${of(times.customerAll)}`,
    `GET /jobs?context.customer_id=…&automation_id=…                       ${of(times.customerOneAutomation)}`,
    `GET /jobs?context[invoice_id]=… (1 job each), every automation       ${of(times.invoiceAll)}`,
  ];
}

function contextIndexLine(cost: ContextIndexCost): string {
  return (
    `context index (job_context_values + index): ${(cost.bytes / 1e6).toFixed(0)} MB, ${cost.bytesPerJob.toFixed(0)} B/job · ` +
    `job insert ${cost.withIndexUs.toFixed(0)} µs with its trigger, ${cost.withoutIndexUs.toFixed(0)} µs without ` +
    `(inserts/s with ÷ without: ${cost.ratio.toFixed(3)}, median of ${INSERT_COST_ROUNDS} rounds of ${INSERT_COST_JOBS})`
  );
}

function render(report: ScaleReport): string {
  const size = (s: TableSize) => `${s.rows} rows, ${(s.bytes / 1e6).toFixed(0)} MB, ${s.bytesPerRow.toFixed(0)} B/row`;
  const rowsAndMb = (s: TableSize) => `${s.rows} rows, ${(s.bytes / 1e6).toFixed(0)} MB`;
  return [
    `Automation Hub benchmark (scale) — BENCH_SCALE=${report.config.scale}: ${report.counts.automations} automations, ${report.counts.jobs} jobs, ` +
      `${report.counts.events} events over ${HISTORY_DAYS} days · ${report.machine.cpus} cores, ${(100 * report.machine.busyBeforeStart).toFixed(0)}% busy before the start`,
    ...(busyWarning(report.machine) ? [busyWarning(report.machine)!] : []),
    `seeded in ${report.seedSeconds.toFixed(0)} s · jobs ${size(report.sizes.jobs)} · events ${size(report.sizes.events)} (heap + indexes)`,
    "",
    "plans (EXPLAIN ANALYZE through auto_explain):",
    ...report.plans.map(
      (plan) =>
        `  ${plan.ok ? "✓" : "✗"} ${plan.name}: ${plan.indexes.join(", ") || "no index"}${plan.sequentialScans.length > 0 ? ` · seq scans: ${plan.sequentialScans.join(", ")}` : ""}`,
    ),
    "",
    `GET /jobs?automation_id=…    ${latency(report.listJobs)}`,
    `GET /events?aggregate_id=…   ${latency(report.listEvents)}`,
    ...contextFilterLines({
      customerAll: report.contextFilters.customerAll,
      customerOneAutomation: report.contextFilters.customerOneAutomation,
      invoiceAll: report.contextFilters.invoiceAll,
    }),
    contextIndexLine(report.contextIndex),
    ...(report.consoleJobsPage ?? []).map((figure) => `console: ${firstRowsLine(figure)}`),
    `GET /metrics (uncached)      ${latency(report.metricsScrape)}`,
    "",
    `retention sweep (HUB_RETENTION_DAYS=${RETENTION_DAYS}, one dispatcher, default batches): ${Object.entries(report.sweep.rows)
      .map(([table, rows]) => `${table} ${rows}`)
      .join(", ")} ` + `in ${report.sweep.seconds.toFixed(1)} s = ${report.sweep.rowsPerSecond.toFixed(0)} rows/s`,
    `  after: jobs ${rowsAndMb(report.sweep.sizesAfter.jobs)} · events ${rowsAndMb(report.sweep.sizesAfter.events)} (freed space is reused by new rows, not returned to the disk)`,
    "",
    `create→claim at ${report.config.rate} jobs/s, no sweep      ${latency(report.createToClaim.withoutSweep)}`,
    `create→claim at ${report.config.rate} jobs/s, sweep running ${latency(report.createToClaim.duringSweep)}`,
    "",
    "checks",
    ...report.checks.map((check) => `  ${check.ok ? "✓" : "✗"} ${check.name}: ${check.detail}`),
  ].join("\n");
}

export async function runScaleMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const machine = await describeMachine();
  const counts = scaleCounts(config.scale.scale);
  const database = await createTestDatabase(config.databaseServerUrl);
  const redisPrefix = `bench-${randomBytes(4).toString("hex")}`;
  const audit = openDatabase(database.url, { max: 4, applicationName: "bench-scale" });
  let hub: HubProcesses | undefined;
  let sweeper: ManagedProcess | undefined;
  let passed = false;
  try {
    step(`seeding ${counts.automations} automations, ${counts.jobs} jobs and ${counts.events} events with generate_series`);
    const seedStarted = performance.now();
    const automationIds = await seedHistoryAutomations(audit.pool, counts.automations, "scale");
    let shown = 0;
    await seedHistory(audit.pool, {
      automationIds,
      jobs: counts.jobs,
      selfGrowingEvents: counts.events - counts.jobs * EVENTS_PER_JOB,
      window: { newestDaysAgo: 0, oldestDaysAgo: HISTORY_DAYS },
      onProgress: (written) => {
        const total = written.jobs + written.events;
        if (total - shown >= 500_000) {
          shown = total;
          step(`  ${written.jobs} jobs, ${written.events} events`);
        }
      },
    });
    step("vacuum analyze (as autovacuum would leave the tables) and checkpoint (so the seeding's writes are not flushed during the measurements)");
    await audit.pool.query("vacuum analyze");
    await audit.pool.query("checkpoint");
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const sizes = { jobs: await tableSize(audit.pool, "jobs"), events: await tableSize(audit.pool, "events") };

    step("plans");
    const busiest = (await audit.pool.query<{ automation_id: string }>("select automation_id from jobs group by 1 order by count(*) desc limit 1")).rows[0]!
      .automation_id;
    const someJob = (await audit.pool.query<{ id: string }>("select id from jobs order by finished_at desc limit 1")).rows[0]!.id;
    const plans = [
      await explainRun(database.url, "GET /jobs?automation_id=… (listJobs)", (db) => jobs.list(db.pool, EVERYWHERE, { automationId: busiest }, { limit: 100 })),
      await explainRun(database.url, "GET /events?aggregate_id=… (listEvents)", (db) => events.list(db.pool, { aggregateId: someJob, limit: 200 })),
      await explainRun(database.url, "/metrics gauges (queueDepthQuery)", (db) => db.db.execute(automations.queueDepthQuery())),
      await explainRun(database.url, "relay outbox scan (selectUndispatchedEvents)", (db) =>
        events.selectUndispatched(db.pool as Executor, { partitions: Array.from({ length: 32 }, (_, i) => i), limit: 500 }),
      ),
      await explainRun(database.url, "GET /jobs?context.customer_id=… (listJobs, every automation)", (db) =>
        jobs.list(db.pool, EVERYWHERE, { context: [{ name: "customer_id", value: "cust-7" }] }, { limit: 100 }),
      ),
      await explainRun(database.url, "GET /jobs?context.customer_id=…&automation_id=… (listJobs)", (db) =>
        jobs.list(db.pool, EVERYWHERE, { automationId: busiest, context: [{ name: "customer_id", value: "cust-7" }] }, { limit: 100 }),
      ),
      await explainRun(database.url, "GET /jobs?context.invoice_id=… (listJobs, one match)", (db) =>
        jobs.list(db.pool, EVERYWHERE, { context: [{ name: "invoice_id", value: "inv-7" }] }, { limit: 100 }),
      ),
      // The sweep's pick: it locks the rows it reads (FOR UPDATE) but deletes nothing.
      await explainRun(database.url, "retention sweep's pick of finished jobs", (db) =>
        db.pool.query(retention.RETENTION_PICK_JOBS_SQL, [RETENTION_DAYS, 1000]),
      ),
    ];

    step(`the context index's cost per insert: ${INSERT_COST_ROUNDS} rounds of ${INSERT_COST_JOBS} job inserts with and without its trigger`);
    const contextIndex = await contextIndexCost(database.url, automationIds, counts.jobs);
    // Each figure as soon as it is known too: a run stopped during the long retention phase keeps them.
    step(contextIndexLine(contextIndex));

    step("starting the API, a dispatcher (HUB_RETENTION_DAYS=0) and an event relay");
    hub = await HubProcesses.start({
      databaseUrl: database.url,
      redisUrl: config.redisUrl,
      redisPrefix,
      dispatchers: 1,
      relays: 1,
      logLevel: config.hubLogLevel,
      runBuilt: true,
      dispatcherEnv: { HUB_RETENTION_DAYS: "0" },
    });
    const http = new JsonClient(hub.apiUrl, 4);
    const adminToken = (await http.send<{ access_token: string }>("POST", "/identity/token", { body: hub.admin, expected: 200 })).access_token;
    const sample = (
      await audit.pool.query<{ automation_id: string; id: string; customer: string; invoice: string }>(
        `select automation_id, id, context ->> 'customer_id' as customer, context ->> 'invoice_id' as invoice from jobs tablesample system (1) limit $1`,
        [config.scale.requests],
      )
    ).rows;
    step(
      `timing ${sample.length} each of GET /jobs?automation_id=…, GET /events?aggregate_id=…, three context filters of GET /jobs, and ${config.scale.scrapes} /metrics scrapes`,
    );
    const jobsTimes: number[] = [];
    const eventsTimes: number[] = [];
    const scrapeTimes: number[] = [];
    const contextTimes = { customerAll: [] as number[], customerOneAutomation: [] as number[], invoiceAll: [] as number[] };
    for (const row of sample) {
      await time(jobsTimes, () => http.send("GET", `/jobs?automation_id=${row.automation_id}&limit=100`, { token: adminToken, expected: 200 }));
      await time(eventsTimes, () => http.send("GET", `/events?aggregate_id=${row.id}`, { token: adminToken, expected: 200 }));
      await time(contextTimes.customerAll, () => http.send("GET", `/jobs?context.customer_id=${row.customer}&limit=100`, { token: adminToken, expected: 200 }));
      await time(contextTimes.customerOneAutomation, () =>
        http.send("GET", `/jobs?context.customer_id=${row.customer}&automation_id=${row.automation_id}&limit=100`, { token: adminToken, expected: 200 }),
      );
      await time(contextTimes.invoiceAll, () => http.send("GET", `/jobs?context[invoice_id]=${row.invoice}&limit=100`, { token: adminToken, expected: 200 }));
    }
    for (const line of contextFilterLines(contextTimes)) step(line);
    // Before the sweep removes half the history. A browser that cannot run costs this figure only.
    let consoleJobsPage: FirstRows[] | undefined;
    try {
      step(`the console's Jobs page in headless Chromium: ${config.console.loads} cold and ${config.console.loads} warm loads of each`);
      consoleJobsPage = await measureJobsPage(`${hub.apiUrl}/console`, hub.admin, config.console.loads);
    } catch (error) {
      step(`the console's Jobs page was not measured: ${(error as Error).message}`);
    }
    for (let i = 0; i < config.scale.scrapes; i += 1) {
      await sleep(2100);
      await time(scrapeTimes, async () => {
        const answer = await http.exchange("GET", "/metrics", {});
        if (answer.status !== 200) throw new Error(`GET /metrics → ${answer.status}`);
      });
    }

    step(`create→claim without the sweep: ${config.scale.rate} jobs/s for ${config.scale.phaseSeconds} s`);
    const plan = planWorkload({ ...config, automations: 8, limits: [8], slotsOverLimit: 0, slowJobs: 0 }, randomBytes(3).toString("hex"));
    const seed = await seedHub(hub.apiUrl, hub.admin, plan);
    const target = new HubHttpTarget(hub.apiUrl, seed, 16);
    const stopWorkers = new AbortController();
    const workers = startWorkers(target, seed.automationIds.length, stopWorkers.signal);
    const dbNow = async () => (await audit.pool.query<{ now: Date }>("select clock_timestamp() as now")).rows[0]!.now;
    let withoutSweep: LatencySummary;
    let duringSweep: LatencySummary;
    let sweep: ScaleReport["sweep"];
    let sweepStartedAt: Date;
    try {
      const quietStop = new AbortController();
      const quiet = createPaced(target, seed.automationIds.length, config.scale.rate, quietStop.signal);
      // Warm-up (connections, the first claims' long-polls) left out of the figures.
      await sleep(5000);
      const quietFrom = await dbNow();
      await sleep(config.scale.phaseSeconds * 1000);
      quietStop.abort();
      await quiet;
      const quietTo = await dbNow();

      step("create→claim while a dispatcher with HUB_RETENTION_DAYS=30 sweeps");
      const busyStop = new AbortController();
      const busy = createPaced(target, seed.automationIds.length, config.scale.rate, busyStop.signal);
      await sleep(3000);
      const created = await createAppProcess("dispatcher", {
        name: "dispatcher-sweeping",
        env: { ...hub.env, HUB_RETENTION_DAYS: String(RETENTION_DAYS), HUB_RETENTION_INTERVAL_MS: "86400000" },
        logDir: hub.logDir,
        runBuilt: true,
      });
      sweeper = created.process;
      await sweeper.start();
      const metricsUrl = `http://127.0.0.1:${created.port}/metrics`;
      const completed = () => readMetric(metricsUrl, "hub_dispatcher_retention_sweeps_total", { outcome: "completed" });
      while ((await completed()) < 1) await sleep(500);
      // The sweep's own start and end, as its dispatcher logged them (same host, same clock as PostgreSQL).
      const logged = readFileSync(sweeper.logFile, "utf8")
        .split("\n")
        .filter((line) => line.includes('"retention sweep removed old rows"'))
        .map((line) => JSON.parse(line) as { startedAt: string; finishedAt: string })[0];
      if (!logged) throw new Error(`the sweeping dispatcher logged no sweep (LOG_LEVEL ${config.hubLogLevel} must be info or lower)`);
      const sweepFrom = new Date(logged.startedAt);
      const sweepTo = new Date(logged.finishedAt);
      const minimumUntil = sweepFrom.getTime() + config.scale.phaseSeconds * 1000;
      if (Date.now() < minimumUntil) await sleep(minimumUntil - Date.now());
      busyStop.abort();
      await busy;
      const rows = Object.fromEntries(
        await Promise.all(
          ["jobs", "events", "webhook_deliveries"].map(
            async (table) => [table, await readMetric(metricsUrl, "hub_dispatcher_retention_rows_removed_total", { table })] as const,
          ),
        ),
      );
      const seconds = await readMetric(metricsUrl, "hub_dispatcher_retention_sweep_duration_seconds_sum");
      const removed = Object.values(rows).reduce((sum, value) => sum + value, 0);
      // Let the last claims land before reading create→claim.
      await sleep(2000);
      withoutSweep = await createToClaim(audit.pool, seed.automationIds, quietFrom, quietTo);
      duringSweep = await createToClaim(audit.pool, seed.automationIds, sweepFrom, sweepTo);
      sweepStartedAt = sweepFrom;
      sweep = {
        rows,
        seconds,
        rowsPerSecond: removed / seconds,
        sizesAfter: { jobs: await tableSize(audit.pool, "jobs"), events: await tableSize(audit.pool, "events") },
      };
    } finally {
      stopWorkers.abort();
      await workers.catch(() => undefined);
      await target.close();
      await http.close();
    }

    // Older than the period when the sweep started (the cut-off moves on while it runs).
    const expectedLeft = await audit.pool.query<{ old: number }>(
      `select count(*)::int as old from jobs where status in ('completed','failed','cancelled') and finished_at < $1::timestamptz - make_interval(days => ${RETENTION_DAYS})`,
      [sweepStartedAt],
    );
    const crashes = hub.unexpectedExits();
    const checks = [
      {
        name: "every list and gauge plan avoids a sequential scan of jobs and events",
        ok: plans.every((p) => p.ok),
        detail:
          plans
            .filter((p) => !p.ok)
            .map((p) => p.name)
            .join(", ") || "all index scans",
      },
      {
        name: "the sweep left no finished job that was older than the period when it started",
        ok: expectedLeft.rows[0]!.old === 0,
        detail: `${expectedLeft.rows[0]!.old} left`,
      },
      { name: "no hub process crashed", ok: crashes.length === 0, detail: crashes.length === 0 ? "none" : JSON.stringify(crashes) },
    ];
    const report: ScaleReport = {
      mode: "scale",
      startedAt: startedAt.toISOString(),
      machine,
      config: config.scale,
      counts,
      seedSeconds,
      sizes,
      plans,
      listJobs: summarize(jobsTimes),
      contextFilters: {
        customerAll: summarize(contextTimes.customerAll),
        customerOneAutomation: summarize(contextTimes.customerOneAutomation),
        invoiceAll: summarize(contextTimes.invoiceAll),
      },
      contextIndex,
      consoleJobsPage,
      listEvents: summarize(eventsTimes),
      metricsScrape: summarize(scrapeTimes),
      sweep,
      createToClaim: { withoutSweep, duringSweep },
      checks,
    };
    console.log(render(report));
    for (const check of plans) console.error(`\n── plan: ${check.name} ──\n${check.plan}`);
    console.log(`\nresults: ${writeReport(config.resultsDir, "scale", report, startedAt)}`);
    passed = checks.every((check) => check.ok);
    return passed;
  } catch (error) {
    if (hub) console.error(hub.diagnostics(4096));
    throw error;
  } finally {
    await sweeper?.stop();
    await hub?.stopAll();
    if (hub && passed && !config.keepLogs) hub.removeLogs();
    else if (hub) console.error(`bench: the hub's logs are in ${hub.logDir}`);
    await audit.close();
    await deleteRedisKeys(config.redisUrl, redisPrefix);
    if (!config.keepDatabases) {
      await database.drop();
      step(`dropped the seeded database ${database.name}`);
    }
  }
}
