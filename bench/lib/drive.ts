/**
 * Runs the two phases against one target and audits it: the peak phase (closed loop, N jobs),
 * then the latency phase (paced at a rate decided from a peak), with the concurrency sampler
 * running throughout, the CPU of every process accounted per phase, and the servers' work
 * (transactions, statements, Redis commands) and the claims counted over the whole run.
 */
import pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import type { BenchConfig, ProfiledPhase } from "./config";
import { ConcurrencySampler } from "@hub/testing";
import { auditRun, relayLag, samplerReport, waitForRelayDrain, type AuditCheck } from "./audit";
import {
  countPg,
  enableStatementCounts,
  redisCommandCounts,
  redisDelta,
  snapshotStatements,
  statementCalls,
  type PgCounts,
  type StatementCounters,
} from "./counters";
import { cpuSecondsBetween, snapshotCpu } from "./cpu";
import { PhaseTracker, runPacedPhase, runPeakPhase, type ClaimCounts, type JobTarget, type PhaseRecorder, type PhaseSummary, type Workers } from "./load";
import type { WorkloadPlan } from "./plan";

import type { PhaseResult, RunCosts, TargetResult } from "./target-result";

export type { PhaseResult, RunCosts, TargetResult } from "./target-result";

/** Statements auditRun() runs. */
const AUDIT_QUERIES = 2;

/** How long without any progress before a phase counts as stalled. */
export function stallMs(config: BenchConfig): number {
  return (config.leaseSeconds + 10) * 1000;
}

/** The database name of a connection URL. */
export function databaseName(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
}

/**
 * Counts what the servers did for one target, from before its idle window until settleCosts()
 * after it stopped: transactions and statements of its database, Redis commands if it uses Redis.
 */
class CostMeter {
  /** Statements (and transactions) the benchmark itself ran on the database: sampler, drain, audit. */
  ownStatements = 0;
  claims: ClaimCounts | undefined;

  private constructor(
    private readonly databaseUrl: string | undefined,
    private readonly redisUrl: string | undefined,
    private readonly statements: boolean,
    private readonly pgBefore: PgCounts | undefined,
    private readonly statementsBefore: Map<string, StatementCounters> | undefined,
    private readonly redisBefore: Record<string, number> | undefined,
  ) {}

  static async start(databaseUrl: string | undefined, redisUrl: string | undefined): Promise<CostMeter> {
    const statements = databaseUrl ? await enableStatementCounts(databaseUrl) : false;
    const statementsBefore = databaseUrl && statements ? await snapshotStatements(databaseUrl) : undefined;
    const pgBefore = databaseUrl ? await countPg(databaseUrl, statements) : undefined;
    const redisBefore = redisUrl ? await redisCommandCounts(redisUrl) : undefined;
    return new CostMeter(databaseUrl, redisUrl, statements, pgBefore, statementsBefore, redisBefore);
  }

  async settle(jobs: number): Promise<RunCosts> {
    // A backend publishes its counts as it exits, a moment after its client disconnected.
    if (this.databaseUrl) await sleep(300);
    const pgAfter = this.databaseUrl ? await countPg(this.databaseUrl, this.statements) : undefined;
    const byStatement =
      this.databaseUrl && this.statementsBefore ? statementCalls(this.statementsBefore, await snapshotStatements(this.databaseUrl)) : undefined;
    const redis = this.redisUrl && this.redisBefore ? redisDelta(this.redisBefore, await redisCommandCounts(this.redisUrl)) : undefined;
    // The two counting connections ran one statement each (in a transaction of its own).
    const own = this.ownStatements + 2;
    const before = this.pgBefore;
    const perJob = (value: number) => value / jobs;
    const redisTotal = redis ? Object.values(redis).reduce((sum, calls) => sum + calls, 0) : null;
    const byName = redis ? Object.entries(redis).sort((a, b) => b[1] - a[1]) : [];
    return {
      transactionsPerJob: pgAfter && before ? perJob(pgAfter.committed + pgAfter.rolledBack - before.committed - before.rolledBack - own) : Number.NaN,
      rolledBackPerJob: pgAfter && before ? perJob(pgAfter.rolledBack - before.rolledBack) : Number.NaN,
      statementsPerJob: pgAfter?.statements != null && before?.statements != null ? perJob(pgAfter.statements - before.statements - own) : null,
      // Less the benchmark's own, as above (its few counting statements are within a rounding of a long run).
      topLevelStatementsPerJob: byStatement
        ? perJob(byStatement.filter((statement) => statement.toplevel).reduce((sum, statement) => sum + statement.calls, 0) - own)
        : null,
      statementsByCalls: (byStatement ?? []).slice(0, 20).map((statement) => ({
        query: statement.query.replace(/\s+/g, " ").slice(0, 160),
        toplevel: statement.toplevel,
        callsPerJob: perJob(statement.calls),
        msPerJob: perJob(statement.totalMs),
      })),
      redisCommandsPerJob: redisTotal === null ? null : perJob(redisTotal),
      redisTopCommands: Object.fromEntries(byName.slice(0, 6).map(([command, calls]) => [command, perJob(calls)])),
      redisCommandsByName: Object.fromEntries(byName.map(([command, calls]) => [command, perJob(calls)])),
      ...(this.claims ? { claimsPerJob: perJob(this.claims.claims), emptyClaimsPerJob: perJob(this.claims.empty) } : {}),
    };
  }
}

const meters = new WeakMap<TargetResult, CostMeter>();

/** Sets `costs`; call once the target stopped and closed its connections. */
export async function settleCosts(result: TargetResult): Promise<void> {
  const meter = meters.get(result);
  if (meter) result.costs = await meter.settle(result.jobsCreated);
}

export interface PullTargetRun {
  name: string;
  target: JobTarget;
  /** The target's workers (created with the tracker the phases report to). */
  workers: (tracker: PhaseTracker) => Workers;
  databaseUrl: string;
  /** Redis the target uses, whose commands are counted; none for PostgreSQL-only targets. */
  redisUrl?: string;
  /** Automation uuid of each plan index. */
  automationIds: readonly string[];
  /** Whether something stamps `dispatched_at` (the relay is audited and measured only then). */
  relays: boolean;
  /** Pids to account CPU for, by label. */
  pids: Record<string, number | undefined>;
  /** Jobs per create request (batched modes); one when absent. */
  batch?: number;
  /**
   * Once the peak phase has created this many jobs, `ANALYZE` the target's database (none when
   * absent): the statistics a running hub has, see {@link analyzeOnceCreated}.
   */
  analyzeAfterCreated?: number;
}

type MeasuredPhase = PhaseSummary & Pick<PhaseResult, "cpuMsPerJob" | "redisCommandsPerJob">;

interface PhasesOutcome {
  peak: MeasuredPhase;
  paced: MeasuredPhase | null;
  recorders: PhaseRecorder[];
}

/** CPU of each accounted process over `ms` of idling, in % of one core. */
async function measureIdleCpu(pids: Record<string, number | undefined>, database: string | undefined, ms: number): Promise<Record<string, number>> {
  const before = snapshotCpu(pids, database);
  await sleep(ms);
  const seconds = cpuSecondsBetween(before, snapshotCpu(pids, database));
  return Object.fromEntries(Object.entries(seconds).map(([name, value]) => [name, (100 * value * 1000) / ms]));
}

/** CPU milliseconds per job of each accounted process over one phase. */
export async function withCpu<T extends PhaseSummary>(
  pids: Record<string, number | undefined>,
  database: string | undefined,
  phase: () => Promise<T>,
): Promise<T & { cpuMsPerJob: Record<string, number> }> {
  const before = snapshotCpu(pids, database);
  const summary = await phase();
  const seconds = cpuSecondsBetween(before, snapshotCpu(pids, database));
  const cpuMsPerJob = Object.fromEntries(Object.entries(seconds).map(([name, value]) => [name, (value * 1000) / summary.created]));
  return { ...summary, cpuMsPerJob };
}

/** {@link withCpu}, and the Redis commands per job over the phase when `redisUrl` is given. */
async function measured<T extends PhaseSummary>(
  pids: Record<string, number | undefined>,
  database: string | undefined,
  redisUrl: string | undefined,
  phase: () => Promise<T>,
): Promise<T & Pick<PhaseResult, "cpuMsPerJob" | "redisCommandsPerJob">> {
  const before = redisUrl ? await redisCommandCounts(redisUrl) : undefined;
  const summary = await withCpu(pids, database, phase);
  if (!redisUrl || !before) return summary;
  const delta = Object.entries(redisDelta(before, await redisCommandCounts(redisUrl))).sort((a, b) => b[1] - a[1]);
  return { ...summary, redisCommandsPerJob: Object.fromEntries(delta.map(([command, calls]) => [command, calls / summary.created])) };
}

/**
 * With BENCH_CPU_PROF_PHASE, the profiled hub processes record that phase only: the preload
 * (cpu-profile-preload.mjs) restarts its profile on the first SIGUSR2 and writes it on the second.
 */
export function signalProfiled(config: BenchConfig, pids: Record<string, number | undefined>, kind: ProfiledPhase): void {
  if (config.cpuProfilePhase !== kind) return;
  // Only profiled processes handle SIGUSR2; it would end any other.
  for (const app of config.cpuProfile) {
    const pid = pids[app];
    if (pid) process.kill(pid, "SIGUSR2");
  }
}

/** The peak phase, then the latency phase at the rate the peak decides (none when null). */
async function runPhases(
  target: JobTarget,
  tracker: PhaseTracker,
  plan: WorkloadPlan,
  config: BenchConfig,
  accounting: { pids: Record<string, number | undefined>; database: string | undefined; redisUrl?: string; batch: number | undefined },
  pacedRate: (peak: PhaseSummary) => number | null,
): Promise<PhasesOutcome> {
  const accounted = { ...accounting.pids, bench: process.pid };
  const peakRecorder = tracker.begin("peak", config.jobs);
  signalProfiled(config, accounting.pids, "peak");
  const peak = await measured(accounted, accounting.database, accounting.redisUrl, () =>
    runPeakPhase(target, plan, peakRecorder, { creators: config.creators, stallMs: stallMs(config), batch: accounting.batch }),
  );
  signalProfiled(config, accounting.pids, "peak");
  const rate = pacedRate(peak);
  if (rate === null) return { peak, paced: null, recorders: [peakRecorder] };
  const pacedRecorder = tracker.begin("paced", config.latencyJobs);
  signalProfiled(config, accounting.pids, "paced");
  const paced = await measured(accounted, accounting.database, accounting.redisUrl, () =>
    runPacedPhase(target, plan, pacedRecorder, { creators: config.creators, rate, stallMs: stallMs(config) }),
  );
  signalProfiled(config, accounting.pids, "paced");
  return { peak, paced, recorders: [peakRecorder, pacedRecorder] };
}

const jobsCreatedBy = (recorders: readonly PhaseRecorder[]) => recorders.reduce((sum, recorder) => sum + recorder.createdAt.size, 0);

/**
 * `ANALYZE` of the whole database once the peak phase has created `created` jobs, in the
 * background. A hub's database has statistics in production; a run's fresh one has those of its
 * empty tables (migration 0020 analyses jobs while it is empty) until autovacuum's first analyse, a
 * minute or more into a real hub's life and after the end of a bench run. On those statistics a
 * statement prepared early keeps a plan made for an empty table: the tracing relay's per-event
 * probe of jobs by primary key, for one, became a sequential scan of the table, 100 buffers per
 * event and 3 ms per batch against 0.4 (bench/runs/2026-12-07-2330-tracing-statistics.md). The
 * analyse invalidates the processes' cached plans, so what follows is planned on the statistics
 * autovacuum would have given them. `done` waits for it (and ends the wait when the phase ended first).
 */
function analyzeOnceCreated(pool: pg.Pool, tracker: PhaseTracker, created: number): { done: () => Promise<void> } {
  let stopped = false;
  const analysis = (async () => {
    while (!stopped && !(tracker.current?.kind === "peak" && tracker.current.createdAt.size >= created)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (!stopped) await pool.query("analyze");
  })();
  return {
    done: () => {
      stopped = true;
      return analysis;
    },
  };
}

/** Drives a pull target (the hub, the PostgreSQL ceiling): creators, simulated workers, sampler, audit. */
export async function drivePullTarget(
  run: PullTargetRun,
  plan: WorkloadPlan,
  config: BenchConfig,
  pacedRate: (peak: PhaseSummary) => number | null,
): Promise<TargetResult> {
  const auditPool = new pg.Pool({ connectionString: run.databaseUrl, max: 2, application_name: "bench-audit" });
  const database = databaseName(run.databaseUrl);
  try {
    const automationsById = new Map(plan.automations.map((automation) => [run.automationIds[automation.index]!, automation]));
    const limits = new Map([...automationsById].map(([id, automation]) => [id, automation.limit]));
    const sampler = new ConcurrencySampler(auditPool, { limits });
    const tracker = new PhaseTracker();
    const workers = run.workers(tracker);
    const meter = await CostMeter.start(run.databaseUrl, run.redisUrl);
    sampler.start();
    workers.start();
    const idleCpuPercent = await measureIdleCpu({ ...run.pids, bench: process.pid }, database, config.smoke ? 1000 : 3000);
    const analysis = run.analyzeAfterCreated === undefined ? undefined : analyzeOnceCreated(auditPool, tracker, run.analyzeAfterCreated);
    const { peak, paced, recorders } = await runPhases(
      run.target,
      tracker,
      plan,
      config,
      { pids: run.pids, database, redisUrl: run.redisUrl, batch: run.batch },
      pacedRate,
    );
    await analysis?.done();
    await workers.stop();
    const drain = run.relays ? await waitForRelayDrain(auditPool, 10_000) : null;
    const sampled = samplerReport(await sampler.stop(), automationsById);
    const audit = await auditRun(auditPool, recorders, sampled, drain?.left ?? null);
    // The sampler's statements, the drain polls, the audit's and the relay-lag queries.
    meter.ownStatements = sampled.samples + (drain?.polls ?? 0) + AUDIT_QUERIES + recorders.length;
    meter.claims = workers.claimCounts;
    const withLag = async (summary: MeasuredPhase, recorder: PhaseRecorder): Promise<PhaseResult> => ({
      ...summary,
      relayLagMs: run.relays ? await relayLag(auditPool, [...recorder.createdAt.keys()]) : null,
    });
    const result: TargetResult = {
      name: run.name,
      peak: await withLag(peak, recorders[0]!),
      paced: paced ? await withLag(paced, recorders[1]!) : null,
      audit,
      idleCpuPercent,
      jobsCreated: jobsCreatedBy(recorders),
    };
    meters.set(result, meter);
    return result;
  } finally {
    await auditPool.end();
  }
}

export interface PushTargetRun {
  name: string;
  target: JobTarget;
  tracker: PhaseTracker;
  /** The target's own database (its transactions and statements are counted, its backends' CPU accounted). */
  databaseUrl?: string;
  /** Redis the target uses, whose commands are counted. */
  redisUrl?: string;
  /** Jobs per create request (batched modes); one when absent. */
  batch?: number;
  /** Checks of the target's own state once the phases are over (e.g. every job completed in its tables). */
  audit?: () => Promise<AuditCheck[]>;
}

/** What the driver itself saw of a push target's phases: every job created, each processed once, no request failed. */
export function pushTargetAudit(recorders: readonly PhaseRecorder[]): AuditCheck[] {
  const lost = recorders.reduce((sum, recorder) => sum + recorder.createdAt.size - recorder.completions.size, 0);
  const twice = recorders.reduce((sum, recorder) => sum + [...recorder.completions.values()].filter((count) => count > 1).length, 0);
  const errors = recorders.flatMap((recorder) => [...recorder.errors].map(([key, count]) => `${count}× ${key}`));
  const expected = recorders.reduce((sum, recorder) => sum + recorder.expected, 0);
  const created = jobsCreatedBy(recorders);
  return [
    { name: "every job created", ok: created === expected, detail: `${created} of ${expected}` },
    { name: "every job processed once", ok: lost === 0 && twice === 0, detail: `${lost} not processed, ${twice} twice` },
    { name: "no request failed", ok: errors.length === 0, detail: errors.length === 0 ? "none" : errors.slice(0, 5).join("; ") },
  ];
}

/** Drives a push target (raw BullMQ, graphile-worker, pg-boss), whose consumer is its own: creators only. */
export async function drivePushTarget(run: PushTargetRun, plan: WorkloadPlan, config: BenchConfig, rate: number | null): Promise<TargetResult> {
  const meter = await CostMeter.start(run.databaseUrl, run.redisUrl);
  const database = run.databaseUrl ? databaseName(run.databaseUrl) : undefined;
  const { peak, paced, recorders } = await runPhases(
    run.target,
    run.tracker,
    plan,
    config,
    { pids: {}, database, redisUrl: run.redisUrl, batch: run.batch },
    () => rate,
  );
  const result: TargetResult = {
    name: run.name,
    peak: { ...peak, relayLagMs: null },
    paced: paced ? { ...paced, relayLagMs: null } : null,
    audit: [...pushTargetAudit(recorders), ...(run.audit ? await run.audit() : [])],
    jobsCreated: jobsCreatedBy(recorders),
  };
  meter.ownStatements = run.audit ? 1 : 0;
  meters.set(result, meter);
  return result;
}

/** The result of a target that could not run, with the reason. */
export function skippedTarget(name: string, reason: string): TargetResult {
  const empty = { count: 0, p50: Number.NaN, p95: Number.NaN, p99: Number.NaN, max: Number.NaN, mean: Number.NaN };
  return {
    name,
    skipped: reason,
    peak: {
      kind: "peak",
      jobs: 0,
      created: 0,
      completed: 0,
      seconds: Number.NaN,
      throughput: Number.NaN,
      wallThroughput: Number.NaN,
      createToClaimMs: empty,
      createMs: empty,
      completeMs: empty,
      heartbeats: 0,
      errors: {},
      relayLagMs: null,
      cpuMsPerJob: {},
    },
    paced: null,
    audit: [],
    jobsCreated: 0,
  };
}
