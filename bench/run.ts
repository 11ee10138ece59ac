/**
 * `pnpm bench` — the hub measured end to end, with its baselines measured in the same run.
 * `pnpm bench api` — the API alone under autocannon.
 * `pnpm bench timed` — 100,000 jobs due over 5 minutes and 1,000 schedules: idle CPU and lateness.
 * `pnpm bench footprint` — bytes per job and per event in PostgreSQL and per queued job in Redis.
 * `pnpm bench scale` — a large history (BENCH_SCALE × 5M jobs, 20M events): lists, gauges, retention. Never in CI.
 * `pnpm bench burst` — a 2,500- and a 40,000-job burst, then half load: cost per job as the backlog grows.
 * `pnpm bench claim-plan` — the claim statement's generic plan at 1k, 80k and 500k rows in jobs: fails on a sequential scan.
 * `pnpm bench keys` — one automation, 1,000 key values at 2 each, one 20,000-job backlog: jobs/s against plain, small keys' p99 wait.
 * `pnpm bench logs` — jobs/s with and without log lines, cancel-to-signal latency, memory per signals stream, log-stream latency.
 * `pnpm bench console` — the console in headless Chromium: time to the first rows of the Jobs and Automations pages, the bundle's size.
 * `pnpm bench flows` — fan-outs of 100 with a fan-in each against plain jobs: jobs/s, CPU and the claim's cost; the release of 1,000 dependents.
 * `pnpm bench alerts` — idle CPU per second with no alert rule and with 100 (a few firing).
 * `pnpm bench tracing` — the hub's plain workload with tracing off, sampling 1 % and 100 %: jobs/s and CPU per job, on ÷ off.
 * Every mode runs on a private PostgreSQL with production settings that it starts itself (BENCH_POSTGRES=shared: the DATABASE_URL server).
 * `--smoke` — tiny sizes (CI): exits non-zero when the audit fails.
 * How to run it and how to read it: bench/README.md.
 */
import { randomBytes } from "node:crypto";
import { runBullmqBaseline, runGraphileWorker, runPgBoss, runPgCeiling } from "./baselines";
import { buildHubApps } from "@hub/testing";
import { runHub } from "./hub";
import { loadBenchConfig, type BenchConfig, type BenchPart } from "./lib/config";
import { describePostgres, startBenchPostgres } from "./lib/postgres-server";
import { startBenchRedis } from "./lib/redis-server";
import type { PhaseSummary } from "./lib/load";
import { planWorkload } from "./lib/plan";
import { checkTargets, computeRatios, describeMachine, renderE2e, writeReport, type E2eReport } from "./lib/report";

async function runEndToEnd(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const machine = await describeMachine();
  const plan = planWorkload(config, randomBytes(3).toString("hex"));
  const results: E2eReport["results"] = {};
  // Every latency phase runs at the same rate, decided by the first peak measured (the hub's when it runs).
  let pacedRate: number | null = config.rate ?? null;
  const decideRate = (peak: PhaseSummary): number => (pacedRate ??= peak.throughput * config.loadFraction);
  const step = (message: string) => console.error(`bench: ${message}`);

  const wanted = (part: BenchPart) => config.parts.includes(part);

  if (wanted("hub")) {
    step("hub, one job per request: starting the API, a dispatcher and an event relay");
    results.hub = await runHub(config, plan, decideRate, "single");
  }
  // Batched modes measure peak throughput only: their latency phase would be one-job batches.
  if (wanted("hub-batched")) {
    step(`hub, batched (${config.batchSize} jobs per POST /jobs/batch, claim-batch, complete-batch): a fresh hub`);
    results["hub-batched"] = await runHub(config, plan, () => null, "batched");
  }
  if (wanted("hub-webhooks")) {
    step("hub, one job per request, with a * webhook subscription to a local sink: a fresh hub");
    results["hub-webhooks"] = await runHub(config, plan, decideRate, "webhooks");
  }
  if (wanted("pg")) {
    step("peer: the PostgreSQL ceiling");
    results.pg = await runPgCeiling(config, plan, decideRate);
  }
  if (wanted("graphile")) {
    step("peer: graphile-worker, plain add_job");
    results.graphile = await runGraphileWorker(config, plan, pacedRate, false);
  }
  if (wanted("graphile-batched")) {
    step("peer: graphile-worker, batched");
    results["graphile-batched"] = await runGraphileWorker(config, plan, null, true);
  }
  if (wanted("pgboss")) {
    step("peer: pg-boss");
    results.pgboss = await runPgBoss(config, plan, pacedRate);
  }
  if (wanted("bullmq")) {
    step("peer: raw BullMQ");
    results.bullmq = await runBullmqBaseline(config, plan, pacedRate);
  }
  const { databaseServerUrl: _server, redisUrl: _redis, resultsDir: _dir, ...shownConfig } = config;
  const report: E2eReport = {
    mode: "e2e",
    startedAt: startedAt.toISOString(),
    machine,
    config: shownConfig,
    pacedRate,
    results,
    ratios: computeRatios(results),
    targets: checkTargets(results),
    auditPassed: Object.values(results).every((result) => result.audit.every((check) => check.ok)),
  };
  console.log(renderE2e(report));
  const file = writeReport(config.resultsDir, config.smoke ? "e2e-smoke" : "e2e", report, startedAt);
  console.log(`\nresults: ${file}`);
  return report.auditPassed;
}

const loaded = loadBenchConfig(process.argv.slice(2));
const postgres = await startBenchPostgres(loaded.postgres, loaded.databaseServerUrl);
const redis = await startBenchRedis(loaded.redis, loaded.redisUrl);
const config: BenchConfig = { ...loaded, databaseServerUrl: postgres.serverUrl, postgresServer: postgres.info, redisUrl: redis.url };
console.log(describePostgres(postgres.info).join("\n"));
console.log(`Redis: ${redis.description}\n`);
// The scale mode refuses before anything is built or seeded when it must not run (CI, too little disk).
if (config.mode === "scale" && !(await (await import("./scale")).scalePreflight(config))) {
  await postgres.stop();
  await redis.stop();
  process.exit(1);
}
// The hub runs as operators run it: the apps' production bundles (see HubProcesses' runBuilt).
console.error("bench: building the apps (pnpm build)");
buildHubApps();
async function runMode(): Promise<boolean> {
  switch (config.mode) {
    case "api":
      return (await import("./api")).runApiMode(config);
    case "timed":
      return (await import("./timed")).runTimedMode(config);
    case "footprint":
      return (await import("./footprint")).runFootprintMode(config);
    case "scale":
      return (await import("./scale")).runScaleMode(config);
    case "burst":
      return (await import("./burst")).runBurstMode(config);
    case "claim-plan":
      return (await import("./claim-plan")).runClaimPlanMode(config);
    case "keys":
      return (await import("./keys")).runKeysMode(config);
    case "logs":
      return (await import("./logs")).runLogsMode(config);
    case "console":
      return (await import("./console")).runConsoleMode(config);
    case "flows":
      return (await import("./flows")).runFlowsMode(config);
    case "alerts":
      return (await import("./alerts")).runAlertsMode(config);
    case "tracing":
      return (await import("./tracing")).runTracingMode(config);
    case "e2e":
      return runEndToEnd(config);
    default: {
      const exhaustive: never = config.mode;
      throw new Error(`unknown mode ${String(exhaustive)}`);
    }
  }
}
let passed: boolean;
try {
  passed = await runMode();
} finally {
  await postgres.stop();
  await redis.stop();
}
if (!passed) console.error("bench: the audit FAILED (see above)");
process.exit(passed ? 0 : 1);
