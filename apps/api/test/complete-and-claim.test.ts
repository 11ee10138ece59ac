/**
 * POST /jobs/{job_id}/complete-and-claim: the result recorded as POST /jobs/{job_id}/complete
 * records it (same fence, same answers when refused, nothing claimed then), and the next job
 * claimed as POST /jobs/claim claims it (claim order, max_concurrent_jobs, limits per key).
 */
import { jobs } from "@hub/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claim,
  createAutomationWithWorker,
  createJob,
  eventTypesOf,
  queueJobs,
  readJob,
  sleep,
  startHubWithDispatcher,
  type AutomationWithWorker,
  type DispatchingHub,
} from "./job-fixtures";

function completeAndClaim(hub: DispatchingHub, subject: AutomationWithWorker, jobId: string, body: Record<string, unknown>) {
  return hub.client.post<any>(`/jobs/${jobId}/complete-and-claim`, body, { workerKey: subject.workerKey });
}

async function runningIds(hub: DispatchingHub, automationId: string): Promise<string[]> {
  const running = await hub.client.get<Array<{ id: string }>>(`/jobs?automation_id=${automationId}&status=running`, { token: hub.adminToken });
  return running.body.map((job) => job.id).sort();
}

describe("POST /jobs/{job_id}/complete-and-claim", () => {
  let hub: DispatchingHub;
  beforeAll(async () => {
    hub = await startHubWithDispatcher();
  });
  afterAll(async () => {
    await hub?.stop();
  });

  it("when the worker holds the lease and jobs are queued, then the result is recorded once and the oldest queued job comes back running", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [first, second, third] = await queueJobs(hub, subject.automationId, 3);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(first);

    const answer = await completeAndClaim(hub, subject, first!, { result: { rows: 42 }, attempt: 1 });

    expect(answer.status).toBe(200);
    expect(answer.body.job).toEqual(await readJob(hub, first!));
    expect(answer.body.job).toMatchObject({ id: first, status: "completed", result: { rows: 42 } });
    expect(answer.body.next).toMatchObject({ id: second, status: "running", attempts: 1 });
    // As a claim hands it out: the record, no trace context while the API does not trace, and no dependencies.
    expect(answer.body.next).toEqual({ ...(await readJob(hub, second!)), traceparent: null, tracestate: null, dependencies: [] });
    expect(await eventTypesOf(hub, first!)).toEqual(["job.created", "job.started", "job.completed"]);
    expect(await eventTypesOf(hub, second!)).toEqual(["job.created", "job.started"]);
    expect(await readJob(hub, third!)).toMatchObject({ status: "queued" });
  });

  it("when nothing is queued and wait_seconds is 0 or absent, then the result is recorded and next is null", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [only] = await queueJobs(hub, subject.automationId, 1);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(only);

    const answer = await completeAndClaim(hub, subject, only!, { result: {} });

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ job: await readJob(hub, only!), next: null });
    expect(answer.body.job.status).toBe("completed");
  });

  it("when a job is created while it long-polls, then next is that job", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [first] = await queueJobs(hub, subject.automationId, 1);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(first);

    const answering = completeAndClaim(hub, subject, first!, { result: {}, wait_seconds: 10 });
    await sleep(300);
    const created = await createJob(hub, subject.automationId);
    const answer = await answering;

    expect(answer.status).toBe(200);
    expect(answer.body.job).toMatchObject({ id: first, status: "completed" });
    expect(answer.body.next).toMatchObject({ id: created, status: "running" });
  });

  it("when the client goes away while it long-polls, then its result stays recorded and a job created afterwards is not claimed for it", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [first] = await queueJobs(hub, subject.automationId, 1);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(first);
    const abort = new AbortController();

    const abandoned = fetch(`${hub.api.url}/jobs/${first}/complete-and-claim`, {
      method: "POST",
      headers: { "x-worker-api-key": subject.workerKey, "content-type": "application/json" },
      body: JSON.stringify({ result: { rows: 7 }, wait_seconds: 30 }),
      signal: abort.signal,
    }).catch(() => "aborted");
    // The result is recorded at the claim's first look, before it waits.
    while ((await readJob(hub, first!)).status !== "completed") await sleep(20);
    abort.abort();
    expect(await abandoned).toBe("aborted");
    await sleep(100);
    const later = await createJob(hub, subject.automationId);
    await sleep(300);

    expect(await readJob(hub, first!)).toMatchObject({ status: "completed", result: { rows: 7 } });
    expect(await readJob(hub, later)).toMatchObject({ status: "queued" });
    expect((await claim(hub, subject.workerKey, 1)).body.id).toBe(later);
  });

  it("when jobs of several priorities wait, then next follows the claim order of POST /jobs/claim", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [running] = await queueJobs(hub, subject.automationId, 1);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(running);
    const low = (await hub.client.post<{ id: string }>("/jobs", { automation_id: subject.automationId, context: {}, priority: 0 }, { token: hub.adminToken }))
      .body.id;
    const high = (await hub.client.post<{ id: string }>("/jobs", { automation_id: subject.automationId, context: {}, priority: 5 }, { token: hub.adminToken }))
      .body.id;
    await hub.dispatcher.reconcileNow();

    const answer = await completeAndClaim(hub, subject, running!, { result: {} });

    expect(answer.body.next).toMatchObject({ id: high, status: "running" });
    expect(await readJob(hub, low)).toMatchObject({ status: "queued" });
  });

  it("when the automation runs its limit per key, then next skips the key value at its limit as a claim does", async () => {
    const subject = await createAutomationWithWorker(hub, {
      parameters: [{ name: "customer", description: "Whose job" }],
      max_concurrent_jobs: 2,
      concurrency_key: "customer",
      max_concurrent_per_key: 1,
    });
    const acme = await createJob(hub, subject.automationId, hub.adminToken, { customer: "acme" });
    const globex = await createJob(hub, subject.automationId, hub.adminToken, { customer: "globex" });
    await hub.dispatcher.reconcileNow();
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(acme);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(globex);
    // Oldest first would be another globex job; globex is at its limit while its first job runs.
    const globexAgain = await createJob(hub, subject.automationId, hub.adminToken, { customer: "globex" });
    const acmeAgain = await createJob(hub, subject.automationId, hub.adminToken, { customer: "acme" });
    await hub.dispatcher.reconcileNow();

    const answer = await completeAndClaim(hub, subject, acme, { result: {} });

    expect(answer.body.next).toMatchObject({ id: acmeAgain, status: "running" });
    expect(await readJob(hub, globexAgain)).toMatchObject({ status: "queued" });
    expect(await runningIds(hub, subject.automationId)).toEqual([acmeAgain, globex].sort());
  });

  it("when another claim waits at the limit, then the freed slot goes to next and the limit holds", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 1 });
    const [first, second] = await queueJobs(hub, subject.automationId, 2);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(first);
    const waiting = claim(hub, subject.workerKey, 2);
    await sleep(300);

    const answer = await completeAndClaim(hub, subject, first!, { result: {} });

    expect(answer.body.next).toMatchObject({ id: second, status: "running" });
    expect((await waiting).status).toBe(204);
    expect(await runningIds(hub, subject.automationId)).toEqual([second]);
  });

  it("when the limit is full after the result, then next is null and the waiting claim gets the job once the slot frees", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 1 });
    const [first] = await queueJobs(hub, subject.automationId, 1);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(first);
    // A long-poll waiting for room: it must still learn of the slot the result frees.
    const waiting = claim(hub, subject.workerKey, 10);
    await sleep(300);

    const answer = await completeAndClaim(hub, subject, first!, { result: {} });
    const created = await createJob(hub, subject.automationId);
    const claimed = await waiting;

    expect(answer.body.next).toBeNull();
    expect(claimed.status).toBe(200);
    expect(claimed.body.id).toBe(created);
  });

  it("when the job is completed twice, then the second is 409 with the job's status, its result is not stored and nothing is claimed", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [first, second] = await queueJobs(hub, subject.automationId, 2);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(first);
    await hub.client.post(`/jobs/${first}/complete`, { result: { n: 1 } }, { workerKey: subject.workerKey });

    const again = await completeAndClaim(hub, subject, first!, { result: { n: 2 } });

    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: expect.any(String), status: "completed" });
    expect(await readJob(hub, first!)).toMatchObject({ status: "completed", result: { n: 1 } });
    expect(await readJob(hub, second!)).toMatchObject({ status: "queued" });
  });

  it("when another automation's worker sends it, then 404, the job keeps running and that worker claims nothing", async () => {
    const owner = await createAutomationWithWorker(hub);
    const stranger = await createAutomationWithWorker(hub);
    const [job] = await queueJobs(hub, owner.automationId, 1);
    const [strangersJob] = await queueJobs(hub, stranger.automationId, 1);
    expect((await claim(hub, owner.workerKey, 0)).body.id).toBe(job);

    const answer = await completeAndClaim(hub, stranger, job!, { result: {} });

    expect(answer.status).toBe(404);
    expect(await readJob(hub, job!)).toMatchObject({ status: "running" });
    expect(await readJob(hub, strangersJob!)).toMatchObject({ status: "queued" });
  });

  it("when result is missing or wait_seconds out of range, then 422 listing both, and nothing changes", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [first, second] = await queueJobs(hub, subject.automationId, 2);
    const claimed = await claim(hub, subject.workerKey, 0);

    const answer = await completeAndClaim(hub, subject, first!, { wait_seconds: 31 });

    expect(answer.status).toBe(422);
    expect(answer.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ["body", "result"],
      ["body", "wait_seconds"],
    ]);
    expect({ ...(await readJob(hub, first!)), traceparent: null, tracestate: null, dependencies: [] }).toEqual(claimed.body);
    expect(await readJob(hub, second!)).toMatchObject({ status: "queued" });
  });
});

describe("POST /jobs/{job_id}/complete-and-claim when a lease lapses (HUB_JOB_LEASE_SECONDS=1, lease sweeper idle)", () => {
  let hub: DispatchingHub;
  beforeAll(async () => {
    hub = await startHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: "1" }, { leaseSweepIntervalMs: 600_000 });
  });
  afterAll(async () => {
    await hub?.stop();
  });

  it("when the lease lapsed, then 409, the job is unchanged and the queued job is not claimed", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [first, second] = await queueJobs(hub, subject.automationId, 2);
    const claimed = await claim(hub, subject.workerKey, 0);
    expect(claimed.body.id).toBe(first);
    await sleep(1500);

    const answer = await completeAndClaim(hub, subject, first!, { result: { late: true }, wait_seconds: 1 });

    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ detail: expect.any(String), status: "running" });
    expect({ ...(await readJob(hub, first!)), traceparent: null, tracestate: null, dependencies: [] }).toEqual(claimed.body);
    expect(await eventTypesOf(hub, first!)).toEqual(["job.created", "job.started"]);
    expect(await readJob(hub, second!)).toMatchObject({ status: "queued" });
  });

  it("when the worker names an earlier attempt of a re-claimed job, then 409 and the current attempt keeps running", async () => {
    const subject = await createAutomationWithWorker(hub, { retry_backoff_seconds: 0 });
    const id = await createJob(hub, subject.automationId, hub.adminToken);
    expect((await claim(hub, subject.workerKey, 5)).body).toMatchObject({ id, attempts: 1 });
    await sleep(1500);
    await jobs.expireLapsedLeases(hub.api.ctx.database.pool, { maxAttempts: hub.env.HUB_JOB_MAX_ATTEMPTS, batchSize: 100 });
    await hub.dispatcher.reconcileNow();
    const reclaimed = await claim(hub, subject.workerKey, 5);
    expect(reclaimed.body).toMatchObject({ id, attempts: 2 });

    const late = await completeAndClaim(hub, subject, id, { result: { from: "attempt 1" }, attempt: 1 });

    expect(late.status).toBe(409);
    expect(await readJob(hub, id)).toMatchObject({ status: "running", attempts: 2, result: null });
  });
});
