/**
 * The load generator, shared by the hub and the baselines so that they face the same workload:
 * C creators (closed loop at peak, paced at a fixed rate for the latency phase) and, for pull
 * targets, one simulated worker per automation that long-polls claims, heartbeats slow jobs and
 * completes them. Timings are `performance.now()` milliseconds of this one process.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { PhaseKind, WorkloadPlan } from "./plan";
import { summarize, throughputOf, type LatencySummary } from "./stats";

export interface ClaimedJob {
  id: string;
  context: Record<string, unknown>;
}

/** One job to create: its automation (plan index) and context. */
export interface JobSpec {
  automation: number;
  context: Record<string, unknown>;
}

/** Something jobs can be created in. */
export interface JobTarget {
  createJob(automation: number, context: Record<string, unknown>): Promise<string>;
  /** Creates many jobs in one request; the ids in input order. Targets without it create one by one. */
  createJobs?(jobs: readonly JobSpec[]): Promise<string[]>;
}

/** A target whose workers pull: the hub over HTTP, or its transactions run directly in PostgreSQL. */
export interface PullTarget extends JobTarget {
  /** Resolves with a job, or null when none came within `waitSeconds` (or `signal` aborted). */
  claimJob(automation: number, waitSeconds: number, signal: AbortSignal): Promise<ClaimedJob | null>;
  heartbeat(automation: number, jobId: string): Promise<void>;
  completeJob(automation: number, jobId: string, result: Record<string, unknown>): Promise<void>;
  /**
   * Completes the job and, in the same request, claims the worker's next job without waiting
   * (the worker SDK's default: POST /jobs/{id}/complete-and-claim); null when none was ready.
   * Targets without it complete and claim with separate requests.
   */
  completeAndClaim?(automation: number, jobId: string, result: Record<string, unknown>): Promise<ClaimedJob | null>;
}

/** Per-item answer of a batch call (CONTRACT §6.6): `completed`/`ok`, `conflict` or `not_found`. */
export interface BatchItemStatus {
  id: string;
  status: string;
}

/** A pull target whose workers claim, heartbeat and complete many jobs per request (CONTRACT §6.6). */
export interface BatchPullTarget extends JobTarget {
  /** Up to `maxJobs` jobs; empty when none came within `waitSeconds` (the 204) or `signal` aborted. */
  claimBatch(automation: number, maxJobs: number, waitSeconds: number, signal: AbortSignal): Promise<ClaimedJob[]>;
  heartbeatBatch(automation: number, jobIds: readonly string[]): Promise<BatchItemStatus[]>;
  completeBatch(automation: number, items: readonly { id: string; result: Record<string, unknown> }[]): Promise<BatchItemStatus[]>;
}

/** Claim requests the workers made over a whole run, and how many found nothing (answered 204). */
export interface ClaimCounts {
  claims: number;
  empty: number;
}

/** The workers of a pull target, running for the whole run (idle window and both phases). */
export interface Workers {
  readonly claimCounts: ClaimCounts;
  start(): void;
  stop(): Promise<void>;
}

/** What one phase observed. Phases never overlap, so every claim and completion belongs to the current one. */
export class PhaseRecorder {
  readonly createdAt = new Map<string, number>();
  readonly claimedAt = new Map<string, number>();
  readonly completions = new Map<string, number>();
  /** Answer time of every first completion, for the throughput window. */
  readonly completionTimes: number[] = [];
  readonly createLatencies: number[] = [];
  readonly completeLatencies: number[] = [];
  readonly heartbeatLatencies: number[] = [];
  readonly errors = new Map<string, number>();
  firstCreateAt = Number.POSITIVE_INFINITY;
  lastCompletionAt = 0;
  lastProgressAt = performance.now();

  constructor(
    readonly kind: PhaseKind,
    readonly expected: number,
  ) {}

  created(id: string, startedAt: number, answeredAt: number): void {
    this.createdAt.set(id, startedAt);
    this.createLatencies.push(answeredAt - startedAt);
    this.lastProgressAt = answeredAt;
    if (startedAt < this.firstCreateAt) this.firstCreateAt = startedAt;
  }

  claimed(id: string, at: number): void {
    this.claimedAt.set(id, at);
    this.lastProgressAt = at;
  }

  heartbeated(startedAt: number, answeredAt: number): void {
    this.heartbeatLatencies.push(answeredAt - startedAt);
  }

  /** `startedAt` is when the complete request was sent; absent where completing is not a request. */
  completed(id: string, answeredAt: number, startedAt?: number): void {
    const times = this.completions.get(id) ?? 0;
    this.completions.set(id, times + 1);
    if (times === 0) this.completionTimes.push(answeredAt);
    if (startedAt !== undefined) this.completeLatencies.push(answeredAt - startedAt);
    this.lastCompletionAt = Math.max(this.lastCompletionAt, answeredAt);
    this.lastProgressAt = answeredAt;
  }

  error(operation: string, error: unknown): void {
    const key = `${operation}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200);
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
  }

  /** Create→claim of every job whose creation and claim both were seen. */
  createToClaim(): number[] {
    const latencies: number[] = [];
    for (const [id, claimedAt] of this.claimedAt) {
      const createdAt = this.createdAt.get(id);
      if (createdAt !== undefined) latencies.push(claimedAt - createdAt);
    }
    return latencies;
  }

  summary(): PhaseSummary {
    const throughput = throughputOf(this.completionTimes, this.firstCreateAt);
    return {
      kind: this.kind,
      jobs: this.expected,
      created: this.createdAt.size,
      completed: this.completions.size,
      seconds: (this.lastCompletionAt - this.firstCreateAt) / 1000,
      throughput: throughput.steady,
      wallThroughput: throughput.wall,
      createToClaimMs: summarize(this.createToClaim()),
      createMs: summarize(this.createLatencies),
      completeMs: summarize(this.completeLatencies),
      heartbeats: this.heartbeatLatencies.length,
      errors: Object.fromEntries(this.errors),
    };
  }
}

export interface PhaseSummary {
  kind: PhaseKind;
  jobs: number;
  created: number;
  completed: number;
  /** First create request to last completion answer. */
  seconds: number;
  /** Steady-state jobs/s: between the 5th and the 95th percentile of the completion times (stats.ts). */
  throughput: number;
  /** Completed jobs ÷ `seconds`, stragglers included. */
  wallThroughput: number;
  createToClaimMs: LatencySummary;
  createMs: LatencySummary;
  completeMs: LatencySummary;
  heartbeats: number;
  errors: Record<string, number>;
  /** Jobs/s the paced phase asked for. */
  offeredRate?: number;
}

/** Holds the recorder of the phase in progress, which the long-lived workers report to. */
export class PhaseTracker {
  current: PhaseRecorder | undefined;

  begin(kind: PhaseKind, expected: number): PhaseRecorder {
    this.current = new PhaseRecorder(kind, expected);
    return this.current;
  }
}

async function createOne(target: JobTarget, plan: WorkloadPlan, recorder: PhaseRecorder, i: number): Promise<void> {
  const automation = plan.automationOfJob(i);
  const context = plan.contextOfJob(i, recorder.kind);
  const startedAt = performance.now();
  try {
    const id = await target.createJob(automation, context);
    recorder.created(id, startedAt, performance.now());
  } catch (error) {
    recorder.error("create", error);
  }
}

/**
 * Once every creation has answered: waits until each created job was completed. Fails the phase
 * when nothing progressed for `stallMs` (more than a lease plus a reconciliation pass, after which
 * a lost job would have been recovered).
 */
async function awaitCompletion(recorder: PhaseRecorder, stallMs: number): Promise<void> {
  while (recorder.completions.size < recorder.createdAt.size) {
    if (performance.now() - recorder.lastProgressAt > stallMs) {
      recorder.error("phase", new Error(`stalled: ${recorder.completions.size} of ${recorder.createdAt.size} created jobs completed`));
      return;
    }
    await sleep(20);
  }
}

/** Creates jobs `from` to `to − 1` in one request; each gets the request's start and answer times. */
async function createMany(
  target: JobTarget & Required<Pick<JobTarget, "createJobs">>,
  plan: WorkloadPlan,
  recorder: PhaseRecorder,
  from: number,
  to: number,
): Promise<void> {
  const jobs: JobSpec[] = [];
  for (let i = from; i < to; i++) jobs.push({ automation: plan.automationOfJob(i), context: plan.contextOfJob(i, recorder.kind) });
  const startedAt = performance.now();
  try {
    const ids = await target.createJobs(jobs);
    const answeredAt = performance.now();
    for (const id of ids) recorder.created(id, startedAt, answeredAt);
  } catch (error) {
    recorder.error("create batch", error);
  }
}

/**
 * Peak load: `creators` clients create `jobs` jobs back to back, as fast as the target answers;
 * `batch` jobs per request when given and the target creates in batches.
 */
export async function runPeakPhase(
  target: JobTarget,
  plan: WorkloadPlan,
  recorder: PhaseRecorder,
  options: { creators: number; stallMs: number; batch?: number },
): Promise<PhaseSummary> {
  let next = 0;
  const batch = options.batch;
  const creator =
    batch !== undefined && target.createJobs
      ? async () => {
          const batched = target as JobTarget & Required<Pick<JobTarget, "createJobs">>;
          for (let from = next; from < recorder.expected; from = next) {
            next = Math.min(recorder.expected, from + batch);
            await createMany(batched, plan, recorder, from, next);
          }
        }
      : async () => {
          for (let i = next++; i < recorder.expected; i = next++) await createOne(target, plan, recorder, i);
        };
  await Promise.all(Array.from({ length: options.creators }, creator));
  await awaitCompletion(recorder, options.stallMs);
  return recorder.summary();
}

/**
 * Latency phase: jobs are created at a fixed `rate` (open loop, at most `creators` requests in
 * flight), so create→claim measures the hub's dispatch path rather than a queue of our own making.
 * With `batch` (and a target that creates in batches), `batch` jobs per request, a request every
 * `batch / rate` seconds.
 */
export async function runPacedPhase(
  target: JobTarget,
  plan: WorkloadPlan,
  recorder: PhaseRecorder,
  options: { creators: number; rate: number; stallMs: number; batch?: number },
): Promise<PhaseSummary> {
  const intervalMs = 1000 / options.rate;
  const batched = options.batch !== undefined && target.createJobs ? (target as JobTarget & Required<Pick<JobTarget, "createJobs">>) : undefined;
  const step = batched ? options.batch! : 1;
  const inFlight = new Set<Promise<void>>();
  const startedAt = performance.now();
  for (let i = 0; i < recorder.expected; i += step) {
    const dueAt = startedAt + i * intervalMs;
    const wait = dueAt - performance.now();
    if (wait > 1) await sleep(wait);
    while (inFlight.size >= options.creators) await Promise.race(inFlight);
    const created = batched ? createMany(batched, plan, recorder, i, Math.min(recorder.expected, i + step)) : createOne(target, plan, recorder, i);
    const request = created.finally(() => inFlight.delete(request));
    inFlight.add(request);
  }
  await Promise.all(inFlight);
  await awaitCompletion(recorder, options.stallMs);
  return { ...recorder.summary(), offeredRate: options.rate };
}

export { BatchedWorkers, SimulatedWorkers } from "./workers";
