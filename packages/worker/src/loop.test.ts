/** The worker loop's lease keeping against a stand-in hub whose heartbeats succeed, go unanswered or are refused. */
import { describe, expect, it } from "vitest";
import { HubUnreachableError, LeaseLostError } from "./errors";
import type { WorkerEvent } from "./events";
import type { HubJob } from "./hub-client";
import { LogBudget } from "./job-log";
import { runWorkerLoop, type WorkerLoopOptions, type WorkerProtocol } from "./loop";
import { outcomeOf } from "./outcome";
import { CancelListeners } from "./signals";

const LEASE_MS = 300;

function leasedJob(leaseMs = LEASE_MS): HubJob {
  const now = Date.now();
  return {
    id: "6f1c1a56-34a4-4c39-9a1c-5a0c3f0d2b10",
    automation_id: "0b7a4a3e-9f57-4d4e-8d51-3f1e8c2a9d11",
    status: "running",
    context: {},
    result: null,
    error: null,
    attempts: 1,
    created_by: null,
    created_at: new Date(now - 1000).toISOString(),
    started_at: new Date(now).toISOString(),
    finished_at: null,
    lease_expires_at: new Date(now + leaseMs).toISOString(),
  };
}

/** Hands out one job, then long-polls until stopped; `heartbeat` decides whether the lease is kept. */
function standInHub(heartbeat: WorkerProtocol["heartbeat"], leaseMs = LEASE_MS) {
  let handedOut = false;
  const completed: string[] = [];
  const client: WorkerProtocol = {
    claim: async (_waitSeconds, signal) => {
      if (!handedOut) {
        handedOut = true;
        return leasedJob(leaseMs);
      }
      await new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
      return null;
    },
    heartbeat,
    complete: async (jobId) => {
      completed.push(jobId);
      return { ...leasedJob(), status: "completed" };
    },
    fail: async () => {
      throw new Error("fail is not expected here");
    },
    claimBatch: async () => {
      throw new Error("claimBatch is not expected here");
    },
    completeBatch: async () => {
      throw new Error("completeBatch is not expected here");
    },
    appendLogs: async () => {
      throw new Error("appendLogs is not expected here");
    },
  };
  return { client, completed };
}

/** Runs the loop with one slot until `stop` aborts. */
function runOneSlot(
  client: WorkerProtocol,
  stop: AbortController,
  events: WorkerEvent[],
  handler: (job: HubJob, signal: AbortSignal) => Promise<Record<string, unknown>>,
  cancels?: CancelListeners,
): Promise<void> {
  const options: WorkerLoopOptions = {
    client,
    run: (job, { signal }) => outcomeOf(() => handler(job, signal)),
    concurrency: 1,
    batch: 1,
    waitSeconds: 20,
    stopClaiming: stop.signal,
    abandon: new AbortController().signal,
    emit: (event) => events.push(event),
    logBudget: new LogBudget(1024, (event) => events.push(event)),
    cancels,
  };
  return runWorkerLoop(options);
}

describe("runWorkerLoop lease keeping", () => {
  it("when heartbeats renew the lease, then a job working past its first lease is completed", async () => {
    const hub = standInHub(async () => ({ lease_expires_at: new Date(Date.now() + LEASE_MS).toISOString() }));
    const stop = new AbortController();
    const events: WorkerEvent[] = [];

    await runOneSlot(hub.client, stop, events, async () => {
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3));
      stop.abort();
      return { done: true };
    });

    expect(hub.completed).toHaveLength(1);
    expect(events.map((event) => event.type)).toEqual(["claimed", "completed"]);
  });

  it("when no heartbeat is answered within the lease, then the handler's signal aborts and nothing is reported", async () => {
    const hub = standInHub(
      () => new Promise((_, reject) => setTimeout(() => reject(new HubUnreachableError("heartbeat", new Error("timeout"))), LEASE_MS * 2)),
    );
    const stop = new AbortController();
    const events: WorkerEvent[] = [];
    let aborted = false;

    await runOneSlot(hub.client, stop, events, async (_job, signal) => {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      aborted = true;
      stop.abort();
      return { never: "reported" };
    });

    expect(aborted).toBe(true);
    expect(hub.completed).toEqual([]);
    expect(events.find((event) => event.type === "lease_lost")).toMatchObject({ during: "expired" });
  });

  it("when the signals stream opens again after it dropped, then every job in hand heartbeats at once, and a 409 there aborts its handler", async () => {
    // A ten-minute lease: the periodic heartbeat would come 200 s later, long after this test's timeout.
    const hub = standInHub(async (jobId) => {
      throw new LeaseLostError("heartbeat", jobId, "The job is not running under this worker's lease", "cancelled");
    }, 600_000);
    const cancels = new CancelListeners();
    const stop = new AbortController();
    const events: WorkerEvent[] = [];
    let reason: unknown;

    await runOneSlot(
      hub.client,
      stop,
      events,
      async (_job, signal) => {
        cancels.reopened();
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        reason = signal.reason;
        stop.abort();
        return { never: "reported" };
      },
      cancels,
    );

    expect(reason).toMatchObject({ why: "lease_lost", hubReason: "cancelled" });
    expect(events.find((event) => event.type === "lease_lost")).toMatchObject({ during: "heartbeat", reason: "cancelled" });
    expect(hub.completed).toEqual([]);
  });
});
