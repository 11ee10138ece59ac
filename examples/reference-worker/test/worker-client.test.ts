/**
 * The reference worker against the real API (in-process, with a dispatcher) on real PostgreSQL
 * and Redis: the protocol client, then the worker loop.
 */
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAutomationWithWorker,
  createJob,
  readJob,
  startHubWithDispatcher,
  type AutomationWithWorker,
  type DispatchingHub,
} from "../../../apps/api/test/job-fixtures";
import {
  HubUnreachableError,
  HubWorkerClient,
  LeaseLostError,
  RetryableJobError,
  runWorker,
  WorkerUnauthorizedError,
  type WorkerEvent,
} from "../src/index";

let hub: DispatchingHub;

beforeAll(async () => {
  hub = await startHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: "30", HUB_JOB_MAX_ATTEMPTS: "2" });
});

afterAll(async () => {
  await hub?.stop();
});

async function newWorker(body: Record<string, unknown> = {}): Promise<AutomationWithWorker & { client: HubWorkerClient }> {
  const automation = await createAutomationWithWorker(hub, body);
  return { ...automation, client: new HubWorkerClient({ baseUrl: hub.api.url, apiKey: automation.workerKey }) };
}

describe("HubWorkerClient", () => {
  it("when a job is queued, then claim hands it over running with a lease, heartbeat extends the lease and complete records the result", async () => {
    const { automationId, client } = await newWorker();
    const jobId = await createJob(hub, automationId, hub.adminToken, { order: 7 });

    const claimed = await client.claim(5);
    expect(claimed).toMatchObject({ id: jobId, automation_id: automationId, status: "running", context: { order: 7 }, attempts: 1 });
    const lease = await client.heartbeat(jobId);
    expect(Date.parse(lease.lease_expires_at)).toBeGreaterThanOrEqual(Date.parse(claimed!.lease_expires_at!));
    const completed = await client.complete(jobId, { total: 42 });

    expect(completed).toMatchObject({ id: jobId, status: "completed", result: { total: 42 } });
    expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", result: { total: 42 } });
  });

  it("when nothing is queued, then claim resolves null", async () => {
    const { client } = await newWorker();

    expect(await client.claim(0)).toBeNull();
  });

  it("when a long-polling claim is aborted, then it resolves null", async () => {
    const { client } = await newWorker();
    const controller = new AbortController();

    const claiming = client.claim(30, controller.signal);
    controller.abort();

    expect(await claiming).toBeNull();
  });

  it("when a result is reported twice, then the second is refused with LeaseLostError and the first stands", async () => {
    const { automationId, client } = await newWorker();
    const jobId = await createJob(hub, automationId);
    await client.claim(5);
    await client.complete(jobId, { attempt: "first" });

    const second = client.complete(jobId, { attempt: "second" });

    await expect(second).rejects.toBeInstanceOf(LeaseLostError);
    await expect(second).rejects.toMatchObject({ status: 409, jobId });
    expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", result: { attempt: "first" } });
  });

  it("when a failure is retryable and attempts remain, then fail answers the job queued again", async () => {
    const { automationId, client } = await newWorker();
    const jobId = await createJob(hub, automationId);
    await client.claim(5);

    const failed = await client.fail(jobId, { error: "upstream timed out", retryable: true });

    expect(failed).toMatchObject({ id: jobId, status: "queued", error: "upstream timed out" });
  });

  it("when the api key is wrong, then calls throw WorkerUnauthorizedError without revealing the key", async () => {
    const apiKey = "not-a-real-key-0123456789abcdef0123456789abcdef";
    const client = new HubWorkerClient({ baseUrl: hub.api.url, apiKey });

    const error = await client.claim(0).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(WorkerUnauthorizedError);
    expect(`${String(error)} ${inspect(error)} ${inspect(client)}`).not.toContain(apiKey);
  });

  it("when the hub is unreachable, then calls throw HubUnreachableError", async () => {
    const client = new HubWorkerClient({ baseUrl: "http://127.0.0.1:9", apiKey: "any-key", requestTimeoutMs: 2000 });

    await expect(client.heartbeat("00000000-0000-4000-8000-000000000000")).rejects.toBeInstanceOf(HubUnreachableError);
  });
});

describe("runWorker", () => {
  it("when jobs are queued, then every one is completed once with the handler's result, and stopping lets the job in hand finish", async () => {
    const { automationId, client } = await newWorker({ max_concurrent_jobs: 2 });
    const jobIds = await Promise.all([1, 2, 3, 4].map((n) => createJob(hub, automationId, hub.adminToken, { n })));
    const stop = new AbortController();
    const events: WorkerEvent[] = [];
    let lastJobStarted: () => void = () => undefined;
    const lastJobInHand = new Promise<void>((resolve) => (lastJobStarted = resolve));
    let handled = 0;

    const running = runWorker({
      client,
      concurrency: 2,
      waitSeconds: 1,
      signal: stop.signal,
      onEvent: (event) => events.push(event),
      handler: async (job) => {
        handled += 1;
        if (handled === jobIds.length) lastJobStarted();
        await new Promise((resolve) => setTimeout(resolve, 100));
        return { doubled: Number(job.context.n) * 2 };
      },
    });
    await lastJobInHand;
    stop.abort();
    await running;

    const completed = events.flatMap((event) => (event.type === "completed" ? [event] : []));
    expect(completed.map((event) => event.job.id).sort()).toEqual([...jobIds].sort());
    for (const [index, jobId] of jobIds.entries()) {
      expect(await readJob(hub, jobId)).toMatchObject({ status: "completed", result: { doubled: (index + 1) * 2 } });
    }
  });

  it("when a handler throws a RetryableJobError, then the job is re-queued, retried, and fails after its last attempt", async () => {
    const { automationId, client } = await newWorker();
    const jobId = await createJob(hub, automationId);
    const stop = new AbortController();
    const events: WorkerEvent[] = [];

    const running = runWorker({
      client,
      waitSeconds: 1,
      signal: stop.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "failed" && event.job.status === "failed") stop.abort();
      },
      handler: async () => {
        throw new RetryableJobError("upstream unavailable");
      },
    });
    await running;

    expect(events.flatMap((event) => (event.type === "failed" ? [event.job.status] : []))).toEqual(["queued", "failed"]);
    expect(await readJob(hub, jobId)).toMatchObject({ status: "failed", attempts: 2, error: "upstream unavailable" });
  });

  it("when the api key stops working, then runWorker rejects with WorkerUnauthorizedError", async () => {
    const client = new HubWorkerClient({ baseUrl: hub.api.url, apiKey: "revoked-key-0123456789abcdef0123456789abcdef" });

    const running = runWorker({ client, waitSeconds: 0, signal: new AbortController().signal, handler: async () => ({}) });

    await expect(running).rejects.toBeInstanceOf(WorkerUnauthorizedError);
  });
});

describe("batch mode (--batch N)", () => {
  it("when jobs are queued, then claimBatch hands out up to N in creation order and completeBatch gives a verdict per item", async () => {
    const { automationId, client } = await newWorker({ max_concurrent_jobs: 5 });
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push(await createJob(hub, automationId, hub.adminToken, { index }));
    await hub.dispatcher.reconcileNow();

    const claimed = await client.claimBatch(2, 5);
    expect(claimed.map((job) => job.id)).toEqual(ids.slice(0, 2));
    const verdicts = await client.completeBatch([
      { id: claimed[1]!.id, result: { n: 1 }, attempt: 1 },
      { id: ids[2]!, result: {} },
    ]);

    expect(verdicts).toEqual([
      { id: claimed[1]!.id, status: "completed" },
      { id: ids[2], status: "conflict" },
    ]);
    expect(await readJob(hub, claimed[1]!.id)).toMatchObject({ status: "completed", result: { n: 1 } });
    expect(await client.claimBatch(5, 0)).toMatchObject([{ id: ids[2] }]);
  });

  it("when runWorker runs with batch 8, then every job is completed once, in far fewer calls than jobs", async () => {
    const { automationId, client } = await newWorker({ max_concurrent_jobs: 8 });
    const ids: string[] = [];
    for (let index = 0; index < 40; index += 1) ids.push(await createJob(hub, automationId, hub.adminToken, { index }));
    const calls = { claimBatch: 0, completeBatch: 0, claim: 0, complete: 0 };
    const counting = {
      claim: (...args: Parameters<typeof client.claim>) => ((calls.claim += 1), client.claim(...args)),
      complete: (...args: Parameters<typeof client.complete>) => ((calls.complete += 1), client.complete(...args)),
      heartbeat: client.heartbeat.bind(client),
      fail: client.fail.bind(client),
      claimBatch: (...args: Parameters<typeof client.claimBatch>) => ((calls.claimBatch += 1), client.claimBatch(...args)),
      completeBatch: (...args: Parameters<typeof client.completeBatch>) => ((calls.completeBatch += 1), client.completeBatch(...args)),
    };
    const stop = new AbortController();
    const completed: string[] = [];

    await runWorker({
      client: counting,
      batch: 8,
      waitSeconds: 1,
      signal: stop.signal,
      onEvent: (event) => {
        if (event.type !== "completed") return;
        expect(event.job).toMatchObject({ status: "completed", result: { echo: event.job.context } });
        completed.push(event.job.id);
        if (completed.length === ids.length) stop.abort();
      },
      handler: async (job) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { echo: job.context };
      },
    });

    expect([...completed].sort()).toEqual([...ids].sort());
    for (const id of ids) expect(await readJob(hub, id)).toMatchObject({ status: "completed", attempts: 1 });
    expect(calls.claim + calls.complete).toBe(0);
    expect(calls.completeBatch).toBeLessThan(ids.length / 2);
    expect(calls.claimBatch).toBeLessThan(ids.length / 2);
  });
});

describe("runWorker with short leases", () => {
  let shortLeaseHub: DispatchingHub;

  beforeAll(async () => {
    shortLeaseHub = await startHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: "2" });
  });

  afterAll(async () => {
    await shortLeaseHub?.stop();
  });

  async function shortLeaseWorker() {
    const automation = await createAutomationWithWorker(shortLeaseHub);
    return { ...automation, client: new HubWorkerClient({ baseUrl: shortLeaseHub.api.url, apiKey: automation.workerKey }) };
  }

  it("when a job takes longer than its lease, then the heartbeats keep it and it completes on its first attempt", async () => {
    const { automationId, client } = await shortLeaseWorker();
    const jobId = await createJob(shortLeaseHub, automationId);
    const stop = new AbortController();

    await runWorker({
      client,
      waitSeconds: 1,
      signal: stop.signal,
      handler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        stop.abort();
        return { slow: true };
      },
    });

    expect(await readJob(shortLeaseHub, jobId)).toMatchObject({ status: "completed", attempts: 1, result: { slow: true } });
    const requeued = await shortLeaseHub.client.get(`/events?aggregate_id=${jobId}&event_type=job.requeued`, { token: shortLeaseHub.adminToken });
    expect(requeued.body).toEqual([]);
  });

  it("when the job is cancelled while it is worked, then the handler's signal aborts and no result is reported", async () => {
    const { automationId, client } = await shortLeaseWorker();
    const jobId = await createJob(shortLeaseHub, automationId);
    const stop = new AbortController();
    const events: WorkerEvent[] = [];
    let handlerAborted = false;

    await runWorker({
      client,
      waitSeconds: 1,
      signal: stop.signal,
      onEvent: (event) => events.push(event),
      handler: async (job, { signal }) => {
        await shortLeaseHub.client.post(`/jobs/${job.id}/cancel`, undefined, { token: shortLeaseHub.adminToken });
        await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
        handlerAborted = true;
        stop.abort();
        return { never: "reported" };
      },
    });

    expect(handlerAborted).toBe(true);
    expect(events.map((event) => event.type)).toEqual(["claimed", "lease_lost"]);
    expect(await readJob(shortLeaseHub, jobId)).toMatchObject({ status: "cancelled", result: null });
  });
});
