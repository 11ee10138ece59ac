/** HubWorkerClient, the worker protocol's calls, against the real API (in-process, with a dispatcher) on real PostgreSQL and Redis. */
import { inspect } from "node:util";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAutomationWithWorker, createJob, readJob, startHubWithDispatcher, type AutomationWithWorker, type DispatchingHub } from "@hub/api/testing";
import { createWorker, HubUnreachableError, HubWorkerClient, LeaseLostError, WorkerUnauthorizedError } from "../src/index";
import { startFaultProxy, type FaultProxy } from "./support";

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

describe("HubWorkerClient batch calls", () => {
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
});

describe("HubWorkerClient.completeAndClaim", () => {
  const proxies: FaultProxy[] = [];
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) await proxy.close();
  });

  it("when a job is queued behind the one completed, then one request records the result and hands over that job running", async () => {
    const { automationId, client } = await newWorker();
    const first = await createJob(hub, automationId, hub.adminToken);
    const second = await createJob(hub, automationId, hub.adminToken);
    // Offered before the first claim, so the second is ready when the first is completed.
    await hub.dispatcher.reconcileNow();
    expect((await client.claim(5))?.id).toBe(first);

    const { job, next } = await client.completeAndClaim(first, { total: 1 }, { attempt: 1 });

    expect(job).toMatchObject({ id: first, status: "completed", result: { total: 1 } });
    expect(next).toMatchObject({ id: second, status: "running", attempts: 1 });
    expect((await client.completeAndClaim(second, {})).next).toBeNull();
  });

  it("when the job is no longer this worker's, then LeaseLostError and nothing is claimed", async () => {
    const { automationId, client } = await newWorker();
    const first = await createJob(hub, automationId, hub.adminToken);
    const second = await createJob(hub, automationId, hub.adminToken);
    await client.claim(5);
    await client.complete(first, {});

    const refused = await client.completeAndClaim(first, { again: true }).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(LeaseLostError);
    expect(await readJob(hub, second)).toMatchObject({ status: "queued" });
  });

  it("when the hub has no complete-and-claim route (404 Not Found), then it completes and claims with two requests, and from then on skips the route", async () => {
    const { automationId, workerKey } = await createAutomationWithWorker(hub);
    const proxy = await startFaultProxy(hub.api.url);
    proxies.push(proxy);
    proxy.outage = { paths: /\/complete-and-claim$/, retryAfterSeconds: 0, status: 404, detail: "Not Found" };
    const client = new HubWorkerClient({ baseUrl: proxy.url, apiKey: workerKey });
    const [first, second, third] = [
      await createJob(hub, automationId, hub.adminToken),
      await createJob(hub, automationId, hub.adminToken),
      await createJob(hub, automationId, hub.adminToken),
    ];
    await hub.dispatcher.reconcileNow();
    expect((await client.claim(5))?.id).toBe(first);

    const once = await client.completeAndClaim(first, { n: 1 }, { attempt: 1 });
    const twice = await client.completeAndClaim(second, { n: 2 });

    expect(once.job).toMatchObject({ id: first, status: "completed", result: { n: 1 } });
    expect(once.next).toMatchObject({ id: second, status: "running" });
    expect(twice.next).toMatchObject({ id: third, status: "running" });
    expect(await readJob(hub, second)).toMatchObject({ status: "completed", result: { n: 2 } });
    const paths = proxy.requests.map((request) => request.path.replace(/[0-9a-f-]{36}/, ":id"));
    expect(paths).toEqual(["/jobs/claim", "/jobs/:id/complete-and-claim", "/jobs/:id/complete", "/jobs/claim", "/jobs/:id/complete", "/jobs/claim"]);
  });
});

describe("createWorker with one job per claim", () => {
  it("when jobs wait, then each result goes with complete-and-claim, whose next job the slot works without a claim request", async () => {
    const { automationId, workerKey } = await createAutomationWithWorker(hub);
    const proxy = await startFaultProxy(hub.api.url);
    const jobIds = [
      await createJob(hub, automationId, hub.adminToken),
      await createJob(hub, automationId, hub.adminToken),
      await createJob(hub, automationId, hub.adminToken),
    ];
    await hub.dispatcher.reconcileNow();
    const completed: string[] = [];
    const worker = createWorker({
      url: proxy.url,
      apiKey: workerKey,
      handleSignals: false,
      logger: pino({ level: "silent" }),
      waitSeconds: 1,
      concurrency: 1,
      handler: async () => ({}),
      onEvent: (event) => {
        if (event.type !== "completed") return;
        completed.push(event.job.id);
        if (completed.length === jobIds.length) void worker.stop();
      },
    });
    try {
      await worker.run();
    } finally {
      await proxy.close();
    }

    expect(completed).toEqual(jobIds);
    const jobCalls = proxy.requests.filter((request) => request.path.startsWith("/jobs")).map((request) => request.path.replace(/[0-9a-f-]{36}/, ":id"));
    expect(jobCalls).toEqual(["/jobs/claim", "/jobs/:id/complete-and-claim", "/jobs/:id/complete-and-claim", "/jobs/:id/complete-and-claim"]);
  });
});
