/**
 * `pnpm bench burst`: does a job cost the same whatever the backlog? On one fresh hub
 * per protocol (8 automations × max_concurrent_jobs 8 by default), after a warm-up of a few
 * hundred jobs (its figures are printed, not used), three phases back to back:
 *
 * 1. a small burst (2,500 jobs) created as fast as the API accepts them,
 * 2. a large burst (40,000 jobs) the same way,
 * 3. right after it, half load: jobs paced at BENCH_LOAD_FRACTION × the large burst's throughput;
 *
 * with workers claiming all along. "batched": `POST /jobs/batch` of BENCH_BATCH (100) jobs,
 * `claim-batch` of BENCH_BURST_CLAIM_BATCH (20), `complete-batch`; "single": `POST /jobs`,
 * `POST /jobs/claim`, `POST /jobs/{id}/complete`. Per phase: throughput, CPU per job (PostgreSQL,
 * the hub's processes, Redis, this driver), and what PostgreSQL's statistics say of `jobs` —
 * sequential scans per claim statement, HOT updates — then the same-run ratios of
 * the large burst and of half load to the small burst. The jobs are audited as in the e2e mode.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { ConcurrencySampler } from "@hub/testing";
import type { BenchConfig, BurstProtocol } from "../lib/config";
import { auditRun, samplerReport, waitForRelayDrain, type AuditCheck } from "../lib/audit";
import { planClaimStatement, type ClaimPlan } from "../lib/claim-plan";
import { countJobsTable, enableStatementCounts, snapshotStatements, topStatements, type JobsTableCounts, type StatementShare } from "../lib/counters";
import { databaseName, pushTargetAudit, stallMs, withCpu } from "../lib/drive";
import { PhaseTracker, runPacedPhase, runPeakPhase, type JobTarget, type PhaseRecorder, type PhaseSummary } from "../lib/load";
import { planWorkload, type PhaseKind, type WorkloadPlan } from "../lib/plan";
import { onGraphileWorker } from "../baselines";
import { auditLines, busyWarning, describeMachine, formatNumber, formatRatio, machineCpuMsPerJob, table, writeReport } from "../lib/report";
import { hubProcessOptions, hubTarget, onFreshHub } from "../hub";
import { seedHub } from "../hub/hub-target";
import type { BurstPhase, BurstPhaseName, BurstRatios, BurstReport, BurstRun } from "./report-types";

export type { BurstPhase, BurstPhaseName, BurstRatios, BurstReport, BurstRun } from "./report-types";

/**
 * Time for every backend to publish its table and function counts before they are read at a
 * phase's end: PostgreSQL 15 publishes them at a transaction's end at most once a second, and a
 * backend that goes idle less than a second after publishing waits 10 s (PGSTAT_IDLE_INTERVAL).
 * A smoke run's figures mean nothing, so it waits less.
 */
const statsPublishMs = (smoke: boolean) => (smoke ? 1200 : 11_000);
/** The concurrency sampler's interval: its statements read `jobs` too, so it samples sparingly here. */
const SAMPLE_EVERY_MS = 250;
/** Statements listed per phase, by execution time. */
const TOP_STATEMENTS = 5;

/** The three phase sizes after BENCH_BURST_SCALE. */
export function burstSizes(config: BenchConfig): Record<BurstPhaseName, number> {
  const scaled = (jobs: number) => Math.max(1, Math.round(jobs * config.burst.scale));
  return {
    "warm-up": config.burst.warmupJobs,
    "small burst": scaled(config.burst.smallJobs),
    "large burst": scaled(config.burst.largeJobs),
    "half load": scaled(config.burst.halfLoadJobs),
  };
}

/** `counts` of the hub's `jobs` table before and after the phase; null for a peer (those figures are then NaN). */
function phaseFigures(
  name: BurstPhaseName,
  summary: PhaseSummary & { cpuMsPerJob: Record<string, number> },
  counts: { before: JobsTableCounts; after: JobsTableCounts } | null,
  samplerStatements: number,
  claimPlan: ClaimPlan | null,
  statementShares: StatementShare[],
): BurstPhase {
  const none: JobsTableCounts = {
    seqScans: Number.NaN,
    updates: Number.NaN,
    hotUpdates: Number.NaN,
    liveRows: Number.NaN,
    deadRows: Number.NaN,
    autovacuums: Number.NaN,
    autoanalyzes: Number.NaN,
    claimStatements: null,
    claimFunctionCalls: Number.NaN,
  };
  const { before, after } = counts ?? { before: none, after: none };
  const byStatements = after.claimStatements !== null && before.claimStatements !== null;
  const claims = byStatements ? after.claimStatements! - before.claimStatements! : after.claimFunctionCalls - before.claimFunctionCalls;
  const jobsSeqScans = after.seqScans - before.seqScans;
  return {
    ...summary,
    name,
    postgresCpuMsPerJob: (summary.cpuMsPerJob.postgres ?? 0) + (summary.cpuMsPerJob["pg-shared"] ?? 0),
    machineCpuMsPerJob: machineCpuMsPerJob(summary),
    claims,
    claimsCountedBy: byStatements ? "pg_stat_statements" : "pg_stat_user_functions",
    jobsSeqScans,
    seqScansPerClaim: claims > 0 ? jobsSeqScans / claims : Number.NaN,
    samplerStatements,
    jobsUpdates: after.updates - before.updates,
    jobsHotUpdates: after.hotUpdates - before.hotUpdates,
    jobsLiveRows: after.liveRows,
    jobsDeadRows: after.deadRows,
    autovacuums: after.autovacuums - before.autovacuums,
    autoanalyzes: after.autoanalyzes - before.autoanalyzes,
    claimPlan,
    topStatements: statementShares,
  };
}

export function burstRatios(phases: readonly BurstPhase[]): BurstRatios | null {
  const of = (name: BurstPhaseName) => phases.find((phase) => phase.name === name);
  const small = of("small burst");
  const large = of("large burst");
  const half = of("half load");
  if (!small || !large || !half) return null;
  return {
    throughputLargeToSmall: large.throughput / small.throughput,
    postgresCpuLargeToSmall: large.postgresCpuMsPerJob / small.postgresCpuMsPerJob,
    postgresCpuHalfToSmall: half.postgresCpuMsPerJob / small.postgresCpuMsPerJob,
    machineCpuHalfToSmall: half.machineCpuMsPerJob / small.machineCpuMsPerJob,
  };
}

/** What the phases run against: the hub (its `jobs` table and claim statement are read) or a peer (only CPU and throughput). */
interface BurstTarget {
  protocol: BurstProtocol;
  target: JobTarget;
  /** Jobs per create request; one by one when undefined. */
  batch: number | undefined;
  tracker: PhaseTracker;
  /** Processes whose CPU is accounted, by label (this driver is added). */
  pids: Record<string, number | undefined>;
  databaseUrl: string;
  /** For the hub: whether pg_stat_statements counts, and the audit sampler's statements so far. */
  hub: { statements: boolean; samples: () => number } | null;
}

/** The warm-up, both bursts and half load, back to back; workers (the hub's or the peer's own) already running. */
async function runBurstPhases(config: BenchConfig, plan: WorkloadPlan, run: BurstTarget) {
  const sizes = burstSizes(config);
  const database = databaseName(run.databaseUrl);
  const pids = { ...run.pids, bench: process.pid };
  const phases: BurstPhase[] = [];
  const recorders: PhaseRecorder[] = [];
  const hub = run.hub;
  const measure = async (name: BurstPhaseName, kind: PhaseKind, phase: (recorder: PhaseRecorder) => Promise<PhaseSummary>) => {
    console.error(`bench: burst, ${run.protocol}: ${name}, ${sizes[name]} jobs`);
    const recorder = run.tracker.begin(kind, sizes[name]);
    recorders.push(recorder);
    const before = hub ? await countJobsTable(run.databaseUrl, hub.statements) : null;
    const statementsBefore = hub?.statements ? await snapshotStatements(run.databaseUrl) : null;
    const samplesBefore = hub?.samples() ?? 0;
    const summary = await withCpu(pids, database, () => phase(recorder));
    await sleep(statsPublishMs(config.smoke));
    const after = hub ? await countJobsTable(run.databaseUrl, hub.statements) : null;
    const shares = statementsBefore ? topStatements(statementsBefore, await snapshotStatements(run.databaseUrl), TOP_STATEMENTS) : [];
    const claimPlan = hub ? await planClaimStatement(run.databaseUrl) : null;
    const figures = phaseFigures(
      name,
      summary,
      before && after ? { before, after } : null,
      hub ? hub.samples() - samplesBefore : Number.NaN,
      claimPlan,
      shares,
    );
    phases.push(figures);
    return figures;
  };
  const peak = (recorder: PhaseRecorder) => runPeakPhase(run.target, plan, recorder, { creators: config.creators, stallMs: stallMs(config), batch: run.batch });
  await measure("warm-up", "peak", peak);
  await measure("small burst", "peak", peak);
  const large = await measure("large burst", "peak", peak);
  const halfLoadRate = config.rate ?? large.throughput * config.loadFraction;
  await measure("half load", "paced", (recorder) =>
    runPacedPhase(run.target, plan, recorder, { creators: config.creators, rate: halfLoadRate, stallMs: stallMs(config), batch: run.batch }),
  );
  return { phases, recorders, halfLoadRate };
}

/** The phases on a fresh hub, batched or one job per request, audited as the e2e mode audits. */
async function runHubBurst(config: BenchConfig, plan: WorkloadPlan, protocol: "batched" | "single"): Promise<BurstRun> {
  return onFreshHub(config, hubProcessOptions(config, protocol), async ({ processes: hub, databaseUrl }) => {
    const seed = await seedHub(hub.apiUrl, hub.admin, plan);
    const { target, workers: makeWorkers, batch } = hubTarget(protocol, hub.apiUrl, seed, plan, config, config.burst.claimBatch);
    const auditPool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: "bench-audit" });
    let outcome: Awaited<ReturnType<typeof runBurstPhases>>;
    let audit: AuditCheck[];
    try {
      const statements = await enableStatementCounts(databaseUrl);
      const automationsById = new Map(plan.automations.map((automation) => [seed.automationIds[automation.index]!, automation]));
      const sampler = new ConcurrencySampler(auditPool, {
        limits: new Map([...automationsById].map(([id, automation]) => [id, automation.limit])),
        intervalMs: SAMPLE_EVERY_MS,
      });
      const tracker = new PhaseTracker();
      const workers = makeWorkers(tracker);
      sampler.start();
      workers.start();
      outcome = await runBurstPhases(config, plan, {
        protocol,
        target,
        batch,
        tracker,
        pids: { api: hub.api.pid, dispatcher: hub.dispatchers[0]?.pid, relay: hub.relays[0]?.pid },
        databaseUrl,
        hub: { statements, samples: () => sampler.samples },
      });
      await workers.stop();
      const drain = await waitForRelayDrain(auditPool, 10_000);
      const sampled = samplerReport(await sampler.stop(), automationsById);
      audit = await auditRun(auditPool, outcome.recorders, sampled, drain.left);
    } finally {
      await target.close();
      await auditPool.end();
    }
    const crashes = hub.unexpectedExits();
    audit.push({
      name: "no hub process crashed",
      ok: crashes.length === 0,
      detail: crashes.length === 0 ? "none" : crashes.map((crash) => `${crash.name} exited ${crash.exit.code ?? crash.exit.signal}`).join(", "),
    });
    const run: BurstRun = { protocol, phases: outcome.phases, ratios: burstRatios(outcome.phases), halfLoadRate: outcome.halfLoadRate, audit };
    return { value: run, passed: audit.every((check) => check.ok) };
  });
}

/** The phases on graphile-worker plain (`add_job` per job, its runner in this process), on a database of its own. */
async function runGraphileBurst(config: BenchConfig, plan: WorkloadPlan): Promise<BurstRun> {
  return onGraphileWorker(config, false, async (target, tracker, databaseUrl) => {
    const outcome = await runBurstPhases(config, plan, { protocol: "graphile", target, batch: undefined, tracker, pids: {}, databaseUrl, hub: null });
    await target.stopRunner();
    const audit = [...pushTargetAudit(outcome.recorders), ...(await target.audit())];
    return { protocol: "graphile", phases: outcome.phases, ratios: burstRatios(outcome.phases), halfLoadRate: outcome.halfLoadRate, audit };
  });
}

async function runBurstProtocol(config: BenchConfig, protocol: BurstProtocol): Promise<BurstRun> {
  // No slow jobs here, so the lease is the burst mode's own (the stall timeout follows it).
  const burstConfig: BenchConfig = { ...config, slowJobs: 0, leaseSeconds: config.burst.leaseSeconds };
  const plan = planWorkload({ ...burstConfig, limits: [config.burst.limit] }, randomBytes(3).toString("hex"));
  return protocol === "graphile" ? runGraphileBurst(burstConfig, plan) : runHubBurst(burstConfig, plan, protocol);
}

const PROTOCOL_TITLES: Record<BurstProtocol, string> = {
  batched: "batched: POST /jobs/batch, claim-batch, complete-batch",
  single: "one job per request: POST /jobs, POST /jobs/claim, POST /jobs/{id}/complete",
  graphile: "peer: graphile-worker plain, add_job per job, its runner in this driver (so its CPU is in 'driver', not in 'machine')",
};

/** A count, or "–" where the figure does not apply (a peer has no hub `jobs` table). */
const count = (value: number) => (Number.isFinite(value) ? String(value) : "–");

export function renderBurst(report: BurstReport): string {
  const { config, machine } = report;
  const lines = [
    `Automation Hub benchmark (burst) — ${config.automations} automations × max_concurrent_jobs ${config.burst.limit}, ${config.creators} creators, ` +
      `batch ${config.batchSize}, claim-batch ${config.burst.claimBatch}, lease ${config.burst.leaseSeconds} s · ${machine.cpus} cores, ${(100 * machine.busyBeforeStart).toFixed(0)}% busy before the start`,
  ];
  const warning = busyWarning(machine);
  if (warning) lines.push(warning);
  for (const run of report.runs) {
    lines.push(
      "",
      `${PROTOCOL_TITLES[run.protocol]}${run.halfLoadRate === null ? "" : ` (half load paced at ${formatNumber(run.halfLoadRate)} jobs/s)`}`,
      table([
        [
          "phase",
          "jobs",
          "jobs/s",
          "wall jobs/s",
          "PG ms/job",
          "machine ms/job",
          "api",
          "dispatcher",
          "relay",
          "redis",
          "driver",
          "claims",
          "seq scans",
          "per claim",
          "sampler",
          "upd",
          "HOT",
          "rows",
          "dead",
          "autovac",
          "claim plan on jobs",
        ],
        ...run.phases.map((phase) => [
          `  ${phase.name}`,
          String(phase.created),
          formatNumber(phase.throughput),
          formatNumber(phase.wallThroughput),
          formatNumber(phase.postgresCpuMsPerJob),
          formatNumber(phase.machineCpuMsPerJob),
          formatNumber(phase.cpuMsPerJob.api),
          formatNumber(phase.cpuMsPerJob.dispatcher),
          formatNumber(phase.cpuMsPerJob.relay),
          formatNumber(phase.cpuMsPerJob.redis),
          formatNumber(phase.cpuMsPerJob.bench),
          count(phase.claims),
          count(phase.jobsSeqScans),
          formatNumber(phase.seqScansPerClaim),
          count(phase.samplerStatements),
          count(phase.jobsUpdates),
          count(phase.jobsHotUpdates),
          count(phase.jobsLiveRows),
          count(phase.jobsDeadRows),
          Number.isFinite(phase.autovacuums) ? `${phase.autovacuums}/${phase.autoanalyzes}` : "–",
          phase.claimPlan ? phase.claimPlan.jobsScans.join(", ") || "none" : "–",
        ]),
      ]),
    );
    const ratios = run.ratios;
    if (ratios) {
      const check = (met: boolean) => (met ? "✓" : "✗");
      lines.push(
        "  same-run ratios to the small burst (issue 29 targets; figures, not assertions):",
        `  ${check(ratios.throughputLargeToSmall >= 0.9)} jobs/s, large ÷ small burst: ${ratios.throughputLargeToSmall.toFixed(2)}× (≥ 0.9)`,
        `  ${check(ratios.postgresCpuLargeToSmall <= 1.2)} PostgreSQL CPU per job, large ÷ small burst: ${ratios.postgresCpuLargeToSmall.toFixed(2)}× (≤ 1.2)`,
        `  ${check(ratios.postgresCpuHalfToSmall <= 1.2)} PostgreSQL CPU per job, half load ÷ small burst: ${ratios.postgresCpuHalfToSmall.toFixed(2)}× (≤ 1.2)`,
        `  ${check(ratios.machineCpuHalfToSmall <= 1.2)} machine CPU per job, half load ÷ small burst: ${ratios.machineCpuHalfToSmall.toFixed(2)}× (≤ 1.2)`,
      );
      const seqScans = run.phases.reduce((sum, phase) => sum + phase.jobsSeqScans, 0);
      const claims = run.phases.reduce((sum, phase) => sum + phase.claims, 0);
      if (Number.isFinite(seqScans)) {
        lines.push(
          `  ${check(seqScans === 0)} sequential scans of jobs per claim statement over the run: ${formatNumber(claims > 0 ? seqScans / claims : Number.NaN)} (${seqScans} / ${claims}; issue 31: 0)`,
        );
      }
    }
    for (const phase of run.phases) {
      if (phase.topStatements.length === 0 || phase.name === "warm-up") continue;
      lines.push(`  where PostgreSQL's execution time went, ${phase.name} (pg_stat_statements; % of top-level time; nested: inside a function)`);
      for (const statement of phase.topStatements) {
        const perCall = (value: number) => formatNumber(value / statement.calls);
        lines.push(
          `    ${(100 * statement.share).toFixed(0).padStart(3)}%  ${formatNumber(statement.totalMs / 1000)} s  ${statement.calls} calls  ${perCall(statement.totalMs)} ms, ` +
            `${perCall(statement.blocksHit + statement.blocksRead)} blocks, ${perCall(statement.rows)} rows per call  ${statement.toplevel ? "" : "[nested] "}${statement.query.replace(/\s+/g, " ").slice(0, 110)}`,
        );
      }
    }
    lines.push(...auditLines(`audit (${run.protocol})`, run.audit));
  }
  const peer = report.runs.find((run) => run.protocol === "graphile");
  const hubs = report.runs.filter((run) => run.protocol !== "graphile");
  if (peer && hubs.length > 0) {
    const names: BurstPhaseName[] = ["small burst", "large burst", "half load"];
    const jobsPerSecond = (run: BurstRun, name: BurstPhaseName) => run.phases.find((phase) => phase.name === name)?.throughput;
    lines.push(
      "",
      "hub jobs/s ÷ graphile-worker plain jobs/s, same run (half load: each at half of its own large burst)",
      table([
        ["", ...names],
        ...hubs.map((run) => [`  ${run.protocol}`, ...names.map((name) => formatRatio(jobsPerSecond(run, name), jobsPerSecond(peer, name)))]),
      ]),
    );
  }
  lines.push(
    "",
    "ms/job columns: CPU per created job from /proc (PG: the run database's backends and the server's own processes; machine: the hub's",
    "processes, PostgreSQL and Redis; driver: this benchmark). claims: top-level statements calling the claim function (hub_claim_jobs_v4; pg_stat_statements);",
    "seq scans, upd, HOT, autovac(uum)/(auto)analyze: pg_stat_user_tables of jobs over the phase (every statement on jobs counts: sampler",
    "is how many the audit's concurrency sampler ran, at most that many of the scans are its own); rows, dead: at the phase's end.",
    "claim plan on jobs: the scans of jobs in the generic plan of the hub's claim statement (as @hub/db sends it, prepared and",
    "explained, not run) on the table as the phase ended; the function's own statements are planned apart and not shown.",
    `Each phase's statistics are read ${statsPublishMs(report.config.smoke) / 1000} s after it (backends publish late); the next phase starts then.`,
  );
  return lines.join("\n");
}

/** Runs every protocol of BENCH_BURST_PROTOCOLS, prints the report and writes it; true when every audit passed. */
export async function runBurstMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const machine = await describeMachine();
  const runs: BurstRun[] = [];
  for (const protocol of config.burst.protocols) runs.push(await runBurstProtocol(config, protocol));
  const { databaseServerUrl: _server, redisUrl: _redis, resultsDir: _dir, ...shownConfig } = config;
  const report: BurstReport = {
    mode: "burst",
    startedAt: startedAt.toISOString(),
    machine,
    config: shownConfig,
    runs,
    auditPassed: runs.every((run) => run.audit.every((check) => check.ok)),
  };
  console.log(renderBurst(report));
  console.log(`\nresults: ${writeReport(config.resultsDir, config.smoke ? "burst-smoke" : "burst", report, startedAt)}`);
  return report.auditPassed;
}
