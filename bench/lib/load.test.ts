import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { loadBenchConfig } from "./config";
import { BatchedWorkers, PhaseTracker, runPeakPhase, type BatchItemStatus, type BatchPullTarget, type ClaimedJob, type JobSpec } from "./load";
import { planWorkload } from "./plan";

/**
 * An in-memory hub with the batch endpoints' semantics (CONTRACT §6.6): claim-batch never exceeds
 * the automation's limit and answers empty after `waitSeconds`, complete-batch and heartbeat-batch
 * answer per item. It records what the batched workers did, so the driver's logic can be checked
 * without a hub.
 */
class FakeBatchHub implements BatchPullTarget {
  private nextId = 0;
  readonly queued = new Map<number, ClaimedJob[]>();
  readonly running = new Map<string, number>();
  readonly completed = new Map<string, number>();
  readonly maxRunning = new Map<number, number>();
  heartbeats = 0;
  createRequests = 0;

  constructor(private readonly limits: readonly number[]) {}

  private runningOf(automation: number): number {
    return [...this.running.values()].filter((owner) => owner === automation).length;
  }

  async createJob(automation: number, context: Record<string, unknown>): Promise<string> {
    const [id] = await this.createJobs([{ automation, context }]);
    return id!;
  }

  async createJobs(jobs: readonly JobSpec[]): Promise<string[]> {
    this.createRequests++;
    return jobs.map((job) => {
      const id = `job-${this.nextId++}`;
      this.queued.set(job.automation, [...(this.queued.get(job.automation) ?? []), { id, context: job.context }]);
      return id;
    });
  }

  async claimBatch(automation: number, maxJobs: number, waitSeconds: number, signal: AbortSignal): Promise<ClaimedJob[]> {
    const deadline = Date.now() + waitSeconds * 1000;
    while (!signal.aborted && Date.now() < deadline) {
      const free = this.limits[automation]! - this.runningOf(automation);
      const queue = this.queued.get(automation) ?? [];
      if (free > 0 && queue.length > 0) {
        const taken = queue.splice(0, Math.min(free, maxJobs));
        for (const job of taken) this.running.set(job.id, automation);
        this.maxRunning.set(automation, Math.max(this.maxRunning.get(automation) ?? 0, this.runningOf(automation)));
        return taken;
      }
      await sleep(2);
    }
    return [];
  }

  async heartbeatBatch(_automation: number, jobIds: readonly string[]): Promise<BatchItemStatus[]> {
    this.heartbeats += jobIds.length;
    return jobIds.map((id) => ({ id, status: this.running.has(id) ? "ok" : "conflict" }));
  }

  async completeBatch(_automation: number, items: readonly { id: string }[]): Promise<BatchItemStatus[]> {
    return items.map(({ id }) => {
      if (!this.running.delete(id)) return { id, status: "conflict" };
      this.completed.set(id, (this.completed.get(id) ?? 0) + 1);
      return { id, status: "completed" };
    });
  }
}

describe("BatchedWorkers", () => {
  it("when 120 jobs are created in batches of 25 with one slow job, then each is completed once, the slow one after heartbeats, within every limit", async () => {
    // Lease 0.3 s: the slow job is held 0.45 s and heartbeated every 0.1 s.
    const config = { ...loadBenchConfig([], { BENCH_N: "120", BENCH_A: "2", BENCH_LIMITS: "2,4", BENCH_SLOW_JOBS: "1" }), leaseSeconds: 0.3 };
    const plan = planWorkload(config, "t");
    const hub = new FakeBatchHub([2, 4]);
    const tracker = new PhaseTracker();
    const workers = new BatchedWorkers(hub, plan, tracker, { ...config, claimWaitSeconds: 1 });
    workers.start();

    const recorder = tracker.begin("peak", 120);
    const summary = await runPeakPhase(hub, plan, recorder, { creators: 2, stallMs: 10_000, batch: 25 });
    await workers.stop();

    expect(hub.createRequests).toBe(5);
    expect(summary.created).toBe(120);
    expect(summary.completed).toBe(120);
    expect([...hub.completed.values()].every((times) => times === 1)).toBe(true);
    expect(hub.completed.size).toBe(120);
    expect(summary.errors).toEqual({});
    expect(hub.heartbeats).toBeGreaterThanOrEqual(1);
    expect(hub.maxRunning.get(0)).toBeLessThanOrEqual(2);
    expect(hub.maxRunning.get(1)).toBeLessThanOrEqual(4);
    expect(workers.claimCounts.claims).toBeGreaterThan(0);
  });
});
