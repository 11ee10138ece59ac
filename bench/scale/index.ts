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
import { setTimeout as sleep } from "node:timers/promises";
import { EVERYWHERE, openDatabase, type Executor, automations, events, jobs, retention } from "@hub/db";
import {
  createAppProcess,
  createTestDatabase,
  deleteRedisKeys,
  HubProcesses,
  readMetric,
  seedHistory,
  seedHistoryAutomations,
  type ManagedProcess,
} from "@hub/testing";
import { measureJobsPage, type FirstRows } from "../console";
import { HubHttpTarget, seedHub } from "../hub/hub-target";
import type { BenchConfig } from "../lib/config";
import { JsonClient } from "../lib/http";
import { planWorkload } from "../lib/plan";
import { describeMachine, writeReport } from "../lib/report";
import { summarize, type LatencySummary } from "../lib/stats";
import { contextIndexCost, createPaced, createToClaim, explainRun, INSERT_COST_JOBS, INSERT_COST_ROUNDS, startWorkers, tableSize, time } from "./measure";
import { EVENTS_PER_JOB, HISTORY_DAYS, RETENTION_DAYS, scaleCounts } from "./preflight";
import { contextFilterLines, contextIndexLine, render, type ScaleReport } from "./report";

export { scaleCounts, scalePreflight, type ScaleCounts } from "./preflight";
export type { ContextIndexCost } from "./measure";
export type { ScaleReport } from "./report";

const step = (message: string) => console.error(`bench: scale: ${message}`);

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
