/**
 * Runs the two phases against one target and audits it: the peak phase (closed loop, N jobs),
 * then the latency phase (paced at a rate decided from a peak), with the concurrency sampler
 * running throughout and the CPU of every process accounted.
 */
import pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import type { BenchConfig } from "./config";
import { auditRun, ConcurrencySampler, countTransactions, relayLag, waitForRelayDrain, type AuditCheck } from "./audit";
import { cpuSecondsBetween, snapshotCpu } from "./cpu";
import { PhaseTracker, runPacedPhase, runPeakPhase, SimulatedWorkers, type JobTarget, type PhaseRecorder, type PhaseSummary, type PullTarget } from "./load";
import type { WorkloadPlan } from "./plan";
import type { LatencySummary } from "./stats";

export interface PhaseResult extends PhaseSummary {
  /** Relay lag of this phase's events; null where nothing relays. */
  relayLagMs: LatencySummary | null;
  /**
   * CPU milliseconds per job of the hub's processes (by name), this driver (`bench`), and all of
   * PostgreSQL and Redis, over the phase.
   */
  cpuMsPerJob: Record<string, number>;
}

export interface TargetResult {
  name: string;
  peak: PhaseResult;
  paced: PhaseResult | null;
  audit: AuditCheck[];
  /**
   * CPU of each process while nothing happens but the workers' long-polls, the relay's polling
   * and the dispatcher's sweeps (and this benchmark's sampler), in % of one core: the fixed cost
   * that the latency phase's per-job CPU figures include.
   */
  idleCpuPercent?: Record<string, number>;
  /** Peak resident set of each hub process (VmHWM), MiB. */
  peakRssMiB?: Record<string, number>;
  /**
   * PostgreSQL transactions per job over both phases, everything included (claims that found
   * nothing, relay polls), less the benchmark's own sampling. Set once the target has stopped.
   */
  transactionsPerJob?: number;
  /** Transactions counted in the database before the phases; for transactionsPerJob. */
  transactionsBefore: number;
  /** Transactions the benchmark itself ran on the database (sampler, audit); for transactionsPerJob. */
  ownTransactions: number;
  /** Jobs created over both phases. */
  jobsCreated: number;
}

/** Statements auditRun() runs. */
const AUDIT_QUERIES = 2;

/** How long without any progress before a phase counts as stalled. */
function stallMs(config: BenchConfig): number {
  return (config.leaseSeconds + 10) * 1000;
}

export interface PullTargetRun {
  name: string;
  target: PullTarget;
  databaseUrl: string;
  /** Automation uuid of each plan index. */
  automationIds: readonly string[];
  /** Whether something stamps `dispatched_at` (the relay is audited and measured only then). */
  relays: boolean;
  /** Pids to account CPU for, by label. */
  pids: Record<string, number | undefined>;
}

interface PhasesOutcome {
  peak: PhaseSummary & { cpuMsPerJob: Record<string, number> };
  paced: (PhaseSummary & { cpuMsPerJob: Record<string, number> }) | null;
  recorders: PhaseRecorder[];
}

/** CPU of each accounted process over `ms` of idling, in % of one core. */
async function measureIdleCpu(pids: Record<string, number | undefined>, ms: number): Promise<Record<string, number>> {
  const before = snapshotCpu(pids);
  await sleep(ms);
  const seconds = cpuSecondsBetween(before, snapshotCpu(pids));
  return Object.fromEntries(Object.entries(seconds).map(([name, value]) => [name, (100 * value * 1000) / ms]));
}

/** CPU milliseconds per job of each accounted process over one phase. */
async function withCpu<T extends PhaseSummary>(
  pids: Record<string, number | undefined>,
  phase: () => Promise<T>,
): Promise<T & { cpuMsPerJob: Record<string, number> }> {
  const before = snapshotCpu(pids);
  const summary = await phase();
  const seconds = cpuSecondsBetween(before, snapshotCpu(pids));
  const cpuMsPerJob = Object.fromEntries(Object.entries(seconds).map(([name, value]) => [name, (value * 1000) / summary.created]));
  return { ...summary, cpuMsPerJob };
}

/** The peak phase, then the latency phase at the rate the peak decides (none when null). */
async function runPhases(
  target: JobTarget,
  tracker: PhaseTracker,
  plan: WorkloadPlan,
  config: BenchConfig,
  pids: Record<string, number | undefined>,
  pacedRate: (peak: PhaseSummary) => number | null,
): Promise<PhasesOutcome> {
  const accounted = { ...pids, bench: process.pid };
  const peakRecorder = tracker.begin("peak", config.jobs);
  const peak = await withCpu(accounted, () => runPeakPhase(target, plan, peakRecorder, { creators: config.creators, stallMs: stallMs(config) }));
  const rate = pacedRate(peak);
  if (rate === null) return { peak, paced: null, recorders: [peakRecorder] };
  const pacedRecorder = tracker.begin("paced", config.latencyJobs);
  const paced = await withCpu(accounted, () =>
    runPacedPhase(target, plan, pacedRecorder, { creators: config.creators, rate, stallMs: stallMs(config) }),
  );
  return { peak, paced, recorders: [peakRecorder, pacedRecorder] };
}

const jobsCreatedBy = (recorders: readonly PhaseRecorder[]) => recorders.reduce((sum, recorder) => sum + recorder.createdAt.size, 0);

/** Drives a pull target (the hub, the PostgreSQL ceiling): creators, simulated workers, sampler, audit. */
export async function drivePullTarget(
  run: PullTargetRun,
  plan: WorkloadPlan,
  config: BenchConfig,
  pacedRate: (peak: PhaseSummary) => number | null,
): Promise<TargetResult> {
  const auditPool = new pg.Pool({ connectionString: run.databaseUrl, max: 2, application_name: "bench-audit" });
  try {
    const limits = new Map(plan.automations.map((automation) => [run.automationIds[automation.index]!, automation]));
    const sampler = new ConcurrencySampler(auditPool, limits);
    const tracker = new PhaseTracker();
    const workers = new SimulatedWorkers(run.target, plan, tracker, config);
    const transactionsBefore = await countTransactions(run.databaseUrl);
    sampler.start();
    workers.start();
    const idleCpuPercent = await measureIdleCpu({ ...run.pids, bench: process.pid }, config.smoke ? 1000 : 3000);
    const { peak, paced, recorders } = await runPhases(run.target, tracker, plan, config, run.pids, pacedRate);
    await workers.stop();
    const drain = run.relays ? await waitForRelayDrain(auditPool, 10_000) : null;
    const samplerReport = await sampler.stop();
    const audit = await auditRun(auditPool, recorders, samplerReport, drain?.left ?? null);
    // The sampler's statements, the drain polls, the audit's and the relay-lag queries.
    const ownTransactions = samplerReport.samples + (drain?.polls ?? 0) + AUDIT_QUERIES + recorders.length;
    const withLag = async (summary: PhaseSummary & { cpuMsPerJob: Record<string, number> }, recorder: PhaseRecorder): Promise<PhaseResult> => ({
      ...summary,
      relayLagMs: run.relays ? await relayLag(auditPool, [...recorder.createdAt.keys()]) : null,
    });
    return {
      name: run.name,
      peak: await withLag(peak, recorders[0]!),
      paced: paced ? await withLag(paced, recorders[1]!) : null,
      audit,
      idleCpuPercent,
      transactionsBefore,
      ownTransactions,
      jobsCreated: jobsCreatedBy(recorders),
    };
  } finally {
    await auditPool.end();
  }
}

/** Drives a push target (raw BullMQ), whose consumer is its own: creators only, no database audit. */
export async function drivePushTarget(
  name: string,
  target: JobTarget,
  tracker: PhaseTracker,
  plan: WorkloadPlan,
  config: BenchConfig,
  rate: number | null,
): Promise<TargetResult> {
  const { peak, paced, recorders } = await runPhases(target, tracker, plan, config, {}, () => rate);
  const lost = recorders.reduce((sum, recorder) => sum + recorder.createdAt.size - recorder.completions.size, 0);
  const errors = recorders.flatMap((recorder) => [...recorder.errors].map(([key, count]) => `${count}× ${key}`));
  return {
    name,
    peak: { ...peak, relayLagMs: null },
    paced: paced ? { ...paced, relayLagMs: null } : null,
    audit: [
      { name: "every job processed", ok: lost === 0, detail: `${lost} not processed` },
      { name: "no request failed", ok: errors.length === 0, detail: errors.length === 0 ? "none" : errors.slice(0, 5).join("; ") },
    ],
    transactionsBefore: Number.NaN,
    ownTransactions: 0,
    jobsCreated: jobsCreatedBy(recorders),
  };
}

/** Sets `transactionsPerJob`; call once the target stopped and closed its connections. */
export async function settleTransactions(result: TargetResult, databaseUrl: string): Promise<void> {
  // A backend publishes its counts as it exits, a moment after its client disconnected.
  await sleep(300);
  const after = await countTransactions(databaseUrl);
  // The two counting connections are the benchmark's own as well.
  result.transactionsPerJob = (after - result.transactionsBefore - result.ownTransactions - 2) / result.jobsCreated;
}

