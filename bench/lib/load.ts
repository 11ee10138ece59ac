/**
 * The load generator, shared by the hub and the baselines so that they face the same workload:
 * C creators (closed loop at peak, paced at a fixed rate for the latency phase) and, for pull
 * targets, one simulated worker per automation that long-polls claims, heartbeats slow jobs and
 * completes them. Timings are `performance.now()` milliseconds of this one process.
 */
import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { BenchConfig } from "./config";
import { HOLD_KEY, type PhaseKind, type WorkloadPlan } from "./plan";
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

/**
 * One simulated worker per automation, each running `slots` claim loops: long-poll a claim, hold
 * the job (heartbeating every third of a lease while it does), complete it — with the target's
 * `completeAndClaim` when it has one, whose next job the loop then holds without a claim request,
 * as the worker SDK's loop does.
 */
export class SimulatedWorkers implements Workers {
  readonly claimCounts: ClaimCounts = { claims: 0, empty: 0 };
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly target: PullTarget,
    private readonly plan: WorkloadPlan,
    private readonly tracker: PhaseTracker,
    private readonly config: Pick<BenchConfig, "claimWaitSeconds" | "leaseSeconds" | "workMs">,
  ) {}

  start(): void {
    // Every claim in flight listens to this one signal (through the worker client's fetch), so
    // the listener count follows the number of claim loops; 0 lifts the leak warning's limit.
    setMaxListeners(0, this.abort.signal);
    for (const automation of this.plan.automations) {
      for (let slot = 0; slot < automation.slots; slot++) this.loops.push(this.claimLoop(automation.index));
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
  }

  private async claimLoop(automation: number): Promise<void> {
    const signal = this.abort.signal;
    let next: ClaimedJob | null = null;
    while (next || !signal.aborted) {
      let job: ClaimedJob | null = next;
      next = null;
      if (!job) {
        try {
          job = await this.target.claimJob(automation, this.config.claimWaitSeconds, signal);
        } catch (error) {
          if (signal.aborted) return;
          this.tracker.current?.error("claim", error);
          await sleep(100);
          continue;
        }
        if (signal.aborted && !job) return;
        this.claimCounts.claims++;
        if (!job) {
          this.claimCounts.empty++;
          continue;
        }
      }
      const recorder = this.tracker.current;
      recorder?.claimed(job.id, performance.now());
      const holdMs = Number(job.context[HOLD_KEY] ?? 0) + this.config.workMs;
      if (holdMs > 0) await this.hold(automation, job.id, holdMs, recorder);
      const startedAt = performance.now();
      try {
        if (this.target.completeAndClaim && !signal.aborted) next = await this.target.completeAndClaim(automation, job.id, { outcome: "done" });
        else await this.target.completeJob(automation, job.id, { outcome: "done" });
        recorder?.completed(job.id, performance.now(), startedAt);
      } catch (error) {
        recorder?.error("complete", error);
      }
    }
  }

  private async hold(automation: number, jobId: string, holdMs: number, recorder: PhaseRecorder | undefined): Promise<void> {
    const heartbeatEveryMs = (this.config.leaseSeconds * 1000) / 3;
    const until = performance.now() + holdMs;
    for (;;) {
      const remaining = until - performance.now();
      if (remaining <= 0) return;
      if (remaining <= heartbeatEveryMs) return void (await sleep(remaining));
      await sleep(heartbeatEveryMs);
      const startedAt = performance.now();
      try {
        await this.target.heartbeat(automation, jobId);
        recorder?.heartbeated(startedAt, performance.now());
      } catch (error) {
        recorder?.error("heartbeat", error);
      }
    }
  }
}

/**
 * The batched counterpart of {@link SimulatedWorkers}: per automation, `1 + slotsOverLimit` claim
 * loops, each long-polling `claim-batch` for up to the automation's limit (so together they ask
 * for more than the limit and the hub must cap the batches), completing the batch's jobs with one
 * `complete-batch` at once. A slow job is handed to a holder that keeps its lease with
 * `heartbeat-batch` and completes it when its hold is over, while the loop claims on.
 */
export class BatchedWorkers implements Workers {
  readonly claimCounts: ClaimCounts = { claims: 0, empty: 0 };
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private readonly holders = new Set<Promise<void>>();

  constructor(
    private readonly target: BatchPullTarget,
    private readonly plan: WorkloadPlan,
    private readonly tracker: PhaseTracker,
    private readonly config: Pick<BenchConfig, "claimWaitSeconds" | "leaseSeconds" | "workMs" | "slotsOverLimit">,
    /** `max_jobs` of every claim-batch; the automation's limit (at most 100) when absent. */
    private readonly maxJobs?: number,
  ) {}

  start(): void {
    setMaxListeners(0, this.abort.signal);
    for (const automation of this.plan.automations) {
      const maxJobs = this.maxJobs ?? Math.min(100, automation.limit);
      for (let loop = 0; loop < 1 + this.config.slotsOverLimit; loop++) this.loops.push(this.claimLoop(automation.index, maxJobs));
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    await Promise.all(this.holders);
  }

  private async claimLoop(automation: number, maxJobs: number): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      let jobs: ClaimedJob[];
      try {
        jobs = await this.target.claimBatch(automation, maxJobs, this.config.claimWaitSeconds, signal);
      } catch (error) {
        if (signal.aborted) return;
        this.tracker.current?.error("claim-batch", error);
        await sleep(100);
        continue;
      }
      if (signal.aborted && jobs.length === 0) return;
      this.claimCounts.claims++;
      if (jobs.length === 0) {
        this.claimCounts.empty++;
        continue;
      }
      const recorder = this.tracker.current;
      const claimedAt = performance.now();
      const now: ClaimedJob[] = [];
      for (const job of jobs) {
        recorder?.claimed(job.id, claimedAt);
        const holdMs = Number(job.context[HOLD_KEY] ?? 0);
        if (holdMs > 0) this.holdAside(automation, job.id, holdMs, recorder);
        else now.push(job);
      }
      if (this.config.workMs > 0) await sleep(this.config.workMs);
      if (now.length > 0)
        await this.complete(
          automation,
          now.map((job) => job.id),
          recorder,
        );
    }
  }

  private async complete(automation: number, ids: readonly string[], recorder: PhaseRecorder | undefined): Promise<void> {
    const startedAt = performance.now();
    try {
      const results = await this.target.completeBatch(
        automation,
        ids.map((id) => ({ id, result: { outcome: "done" } })),
      );
      const answeredAt = performance.now();
      recorder?.completeLatencies.push(answeredAt - startedAt);
      for (const item of results) {
        if (item.status === "completed") recorder?.completed(item.id, answeredAt);
        else recorder?.error("complete-batch", new Error(`item ${item.status}`));
      }
    } catch (error) {
      recorder?.error("complete-batch", error);
    }
  }

  private holdAside(automation: number, jobId: string, holdMs: number, recorder: PhaseRecorder | undefined): void {
    const holder = this.hold(automation, jobId, holdMs, recorder).finally(() => this.holders.delete(holder));
    this.holders.add(holder);
  }

  private async hold(automation: number, jobId: string, holdMs: number, recorder: PhaseRecorder | undefined): Promise<void> {
    const heartbeatEveryMs = (this.config.leaseSeconds * 1000) / 3;
    const until = performance.now() + holdMs + this.config.workMs;
    for (;;) {
      const remaining = until - performance.now();
      if (remaining <= heartbeatEveryMs) {
        if (remaining > 0) await sleep(remaining);
        return this.complete(automation, [jobId], recorder);
      }
      await sleep(heartbeatEveryMs);
      const startedAt = performance.now();
      try {
        const [item] = await this.target.heartbeatBatch(automation, [jobId]);
        if (item?.status === "ok") recorder?.heartbeated(startedAt, performance.now());
        else recorder?.error("heartbeat-batch", new Error(`item ${item?.status ?? "missing"}`));
      } catch (error) {
        recorder?.error("heartbeat-batch", error);
      }
    }
  }
}
