/**
 * createWorker against the real API (in-process, with a dispatcher) on real PostgreSQL and Redis:
 * completing, failing, retrying, leases kept by heartbeats, graceful shutdown, 503 back-off.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ABANDONED_AT_SHUTDOWN,
  createWorker,
  JobAbortedError,
  RetryableError,
  WorkerUnauthorizedError,
  type WorkerEvent,
  type WorkerOptions,
} from "../src/index";
import { capturingLogger, createJob, newAutomation, readJob, signalled, sleep, startFaultProxy, startHubWithDispatcher, type DispatchingHub } from "./support";

/** Short, so a handler can outlive its lease within a test; heartbeats come every second. */
const LEASE_SECONDS = 3;

let hub: DispatchingHub;
const log = capturingLogger();
const workerKeys: string[] = [];

beforeAll(async () => {
  hub = await startHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: String(LEASE_SECONDS), HUB_JOB_MAX_ATTEMPTS: "2" });
});

afterAll(async () => {
  await hub?.stop();
});

/** A worker on a new automation; its log lines go to `log`. */
async function newWorker<Context>(automation: Record<string, unknown>, options: Omit<WorkerOptions<Context>, "url" | "apiKey" | "logger"> & { url?: string }) {
  const { automationId, workerKey } = await newAutomation(hub, automation);
  workerKeys.push(workerKey);
  const worker = createWorker<Context>({ url: hub.api.url, apiKey: workerKey, logger: log.logger, handleSignals: false, waitSeconds: 1, ...options });
  return { automationId, workerKey, worker };
}

describe("createWorker", () => {
  it("when jobs are queued, then each is completed with the handler's result, its context checked and typed by the zod schema", async () => {
    const completed: string[] = [];
    let expected = 0;
    const { automationId, worker } = await newWorker(
      { max_concurrent_jobs: 2 },
      {
        concurrency: 2,
        contextSchema: z.object({ n: z.number().int() }),
        // job.context.n is a number here: the schema's output type.
        handler: async (job) => ({ doubled: job.context.n * 2 }),
        onEvent: (event) => {
          if (event.type !== "completed") return;
          completed.push(event.job.id);
          if (completed.length === expected) void worker.stop();
        },
      },
    );
    const jobIds = await Promise.all([1, 2, 3, 4].map((n) => createJob(hub, automationId, hub.adminToken, { n })));
    expected = jobIds.length;

    await worker.run();

    expect([...completed].sort()).toEqual([...jobIds].sort());
    for (const [index, jobId] of jobIds.entries()) {
      expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", attempts: 1, result: { doubled: (index + 1) * 2 } });
    }
  });

  it("when a context does not match the schema, then the job fails for good naming each problem, and the handler never runs", async () => {
    let handled = 0;
    const { automationId, worker } = await newWorker(
      {},
      {
        contextSchema: z.object({ month: z.string().regex(/^\d{4}-\d{2}$/), rows: z.number() }),
        handler: async () => {
          handled += 1;
          return {};
        },
        onEvent: (event) => event.type === "failed" && void worker.stop(),
      },
    );
    const jobId = await createJob(hub, automationId, hub.adminToken, { month: "October" });

    await worker.run();

    const job = await readJob(hub, jobId);
    expect(job).toMatchObject({ status: "failed", attempts: 1 });
    expect(job.error).toContain("does not match the worker's schema");
    expect(job.error).toMatch(/month: .*; rows: /);
    expect(handled).toBe(0);
  });

  it("when a handler throws a RetryableError, then the job is queued again and fails after its last attempt", async () => {
    const failures: WorkerEvent[] = [];
    const { automationId, worker } = await newWorker(
      { max_attempts: 2 },
      {
        handler: async () => {
          throw new RetryableError("upstream unavailable");
        },
        onEvent: (event) => {
          if (event.type !== "failed") return;
          failures.push(event);
          if (event.job.status === "failed") void worker.stop();
        },
      },
    );
    const jobId = await createJob(hub, automationId);

    await worker.run();

    expect(failures.map((event) => event.type === "failed" && [event.retryable, event.job.status])).toEqual([
      [true, "queued"],
      [true, "failed"],
    ]);
    expect(await readJob(hub, jobId)).toMatchObject({ status: "failed", attempts: 2, error: "upstream unavailable" });
  });

  it("when a handler throws any other error, then the job fails at once, with attempts left", async () => {
    const { automationId, worker } = await newWorker(
      { max_attempts: 3 },
      {
        handler: async () => {
          throw new TypeError("cannot read the invoice");
        },
        onEvent: (event) => event.type === "failed" && void worker.stop(),
      },
    );
    const jobId = await createJob(hub, automationId);

    await worker.run();

    expect(await readJob(hub, jobId)).toMatchObject({ status: "failed", attempts: 1, error: "cannot read the invoice" });
  });

  it("when a handler works longer than the lease, then heartbeats keep the job and it completes on its first attempt", async () => {
    const { automationId, worker } = await newWorker(
      {},
      {
        handler: async () => {
          await sleep(LEASE_SECONDS * 1000 * 2);
          return { slow: true };
        },
        onEvent: (event) => event.type === "completed" && void worker.stop(),
      },
    );
    const jobId = await createJob(hub, automationId);

    await worker.run();

    expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", attempts: 1, result: { slow: true } });
    const requeued = await hub.client.get(`/events?aggregate_id=${jobId}&event_type=job.requeued`, { token: hub.adminToken });
    expect(requeued.body).toEqual([]);
  });

  it("when the job is cancelled while it is worked, then the handler's signal aborts and nothing is reported", async () => {
    const events: WorkerEvent[] = [];
    let reason: unknown;
    const { automationId, worker } = await newWorker(
      {},
      {
        onEvent: (event) => events.push(event),
        handler: async (job, { signal }) => {
          await hub.client.post(`/jobs/${job.id}/cancel`, undefined, { token: hub.adminToken });
          // The signals stream may have aborted it before the cancel's answer arrived.
          if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
          reason = signal.reason;
          void worker.stop();
          return { never: "reported" };
        },
      },
    );
    const jobId = await createJob(hub, automationId);

    await worker.run();

    expect(reason).toBeInstanceOf(JobAbortedError);
    expect(reason).toMatchObject({ why: "lease_lost" });
    // The job's own events: the signals stream's opening is the worker's.
    expect(events.filter((event) => event.type !== "signals_connected").map((event) => event.type)).toEqual(["claimed", "lease_lost"]);
    expect(await readJob(hub, jobId)).toMatchObject({ status: "cancelled", result: null });
  });
});

describe("createWorker shutdown", () => {
  it("when SIGTERM arrives mid-job, then it claims no more, the running handler finishes and is reported, and queued jobs stay queued", async () => {
    const started = signalled();
    const { automationId, worker } = await newWorker(
      {},
      {
        handleSignals: true,
        handler: async () => {
          started.resolve();
          await sleep(500);
          return { finished: true };
        },
      },
    );
    const [first, second] = [await createJob(hub, automationId), await createJob(hub, automationId)];

    const listenersBefore = process.listenerCount("SIGTERM");
    const running = worker.run();
    await started.promise;
    // As the operating system would deliver it, to the listeners the worker installed.
    process.emit("SIGTERM", "SIGTERM");
    await running;

    expect(await readJob(hub, first)).toMatchObject({ status: "completed", result: { finished: true } });
    expect(await readJob(hub, second)).toMatchObject({ status: "queued", attempts: 0 });
    expect(process.listenerCount("SIGTERM")).toBe(listenersBefore);
  });

  it("when a handler outlives the shutdown deadline, then its job is failed as retryable and its signal aborts", async () => {
    const started = signalled();
    let reason: unknown;
    const { automationId, worker } = await newWorker(
      { max_attempts: 3 },
      {
        shutdownTimeoutMs: 300,
        handler: async (_job, { signal }) => {
          started.resolve();
          await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
          reason = signal.reason;
          return { never: "reported" };
        },
      },
    );
    const jobId = await createJob(hub, automationId);

    const running = worker.run();
    await started.promise;
    await worker.stop();
    await running;

    expect(reason).toMatchObject({ why: "shutdown" });
    expect(await readJob(hub, jobId)).toMatchObject({ status: "queued", attempts: 1, error: ABANDONED_AT_SHUTDOWN });
  });
});

describe("createWorker against an unavailable hub", () => {
  it("when claims answer 503 with Retry-After, then the worker waits at least that long between tries and works the job once the hub is back", async () => {
    const proxy = await startFaultProxy(hub.api.url);
    proxy.outage = { paths: /^\/jobs\/claim$/, retryAfterSeconds: 1 };
    try {
      const { automationId, worker } = await newWorker(
        {},
        { url: proxy.url, handler: async () => ({ ok: true }), onEvent: (event) => event.type === "completed" && void worker.stop() },
      );
      const jobId = await createJob(hub, automationId);

      const running = worker.run();
      while (proxy.requests.filter((request) => request.answeredStatus === 503).length < 2) await sleep(100);
      proxy.outage = undefined;
      await running;

      const claims = proxy.requests.filter((request) => request.path === "/jobs/claim");
      const refused = claims.filter((request) => request.answeredStatus === 503);
      for (const [index, request] of refused.entries()) {
        const next = claims[claims.indexOf(request) + 1];
        if (next) expect(next.atMs - request.atMs, `retry ${index + 1} came too early`).toBeGreaterThanOrEqual(1000);
      }
      expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", result: { ok: true } });
    } finally {
      await proxy.close();
    }
  });

  it("when the api key is not valid, then run() rejects with WorkerUnauthorizedError", async () => {
    const apiKey = "revoked-key-0123456789abcdef0123456789abcdef";
    workerKeys.push(apiKey);
    const worker = createWorker({ url: hub.api.url, apiKey, logger: log.logger, handleSignals: false, waitSeconds: 0, handler: async () => ({}) });

    await expect(worker.run()).rejects.toBeInstanceOf(WorkerUnauthorizedError);
  });
});

describe("createWorker in batch mode", () => {
  it("when batch is 8, then every job is completed once, with claim-batch and complete-batch calls far fewer than jobs", async () => {
    const proxy = await startFaultProxy(hub.api.url);
    try {
      const completed = new Set<string>();
      const { automationId, worker } = await newWorker(
        { max_concurrent_jobs: 8 },
        {
          url: proxy.url,
          batch: 8,
          handler: async (job) => {
            await sleep(20);
            return { echo: job.context };
          },
          onEvent: (event) => {
            if (event.type !== "completed") return;
            completed.add(event.job.id);
            if (completed.size === 40) void worker.stop();
          },
        },
      );
      const ids: string[] = [];
      for (let index = 0; index < 40; index += 1) ids.push(await createJob(hub, automationId, hub.adminToken, { index }));

      await worker.run();

      expect([...completed].sort()).toEqual([...ids].sort());
      for (const id of ids) expect(await readJob(hub, id)).toMatchObject({ status: "completed", attempts: 1, result: { echo: { index: ids.indexOf(id) } } });
      const calls = (path: string) => proxy.requests.filter((request) => request.path === path).length;
      expect(calls("/jobs/claim")).toBe(0);
      expect(calls("/jobs/claim-batch")).toBeLessThan(ids.length / 2);
      expect(calls("/jobs/complete-batch")).toBeLessThan(ids.length / 2);
    } finally {
      await proxy.close();
    }
  });
});

describe("what the worker logs", () => {
  it("when the tests above ran, then their log lines name jobs and outcomes but never an api key", () => {
    expect(log.lines.some((line) => line.includes('"job completed"'))).toBe(true);
    for (const key of workerKeys) expect(log.lines.filter((line) => line.includes(key))).toEqual([]);
  });
});
