/**
 * The simulated workers of a pull target (one per automation, per claim or per batch), which the
 * load generator (./load.ts) runs for the whole run and which report to its phase tracker.
 */
import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { BenchConfig } from "./config";
import type { BatchPullTarget, ClaimCounts, ClaimedJob, PhaseRecorder, PhaseTracker, PullTarget, Workers } from "./load";
import { HOLD_KEY, type WorkloadPlan } from "./plan";

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
