import { jobs } from "@hub/db";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { countAllEvents, eventsOf } from "./automation-fixtures";
import {
  claim,
  createAutomationWithWorker,
  createJob,
  queueJobs,
  eventTypesOf,
  readJob,
  sleep,
  startHubWithDispatcher,
  type AutomationWithWorker,
  type DispatchingHub,
} from "./job-fixtures";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("worker protocol", () => {
  let hub: DispatchingHub;
  beforeAll(async () => {
    hub = await startHubWithDispatcher();
  });
  afterAll(async () => {
    await hub?.stop();
  });

  async function claimedJob(subject: AutomationWithWorker): Promise<string> {
    const [id] = await queueJobs(hub, subject.automationId, 1);
    const claimed = await claim(hub, subject.workerKey, 5);
    if (claimed.status !== 200 || claimed.body.id !== id) throw new Error(`could not claim ${id}: ${claimed.status}`);
    return id!;
  }

  describe("POST /jobs/claim", () => {
    it("when nothing is queued and wait_seconds is 0, then 204 with no body", async () => {
      const subject = await createAutomationWithWorker(hub);

      const result = await claim(hub, subject.workerKey, 0);

      expect(result.status).toBe(204);
      expect(result.body).toBeUndefined();
    });

    it("when the body is absent, then it means wait_seconds 0", async () => {
      const subject = await createAutomationWithWorker(hub);

      const result = await hub.client.post("/jobs/claim", undefined, { workerKey: subject.workerKey });

      expect(result.status).toBe(204);
    });

    it("when wait_seconds is out of range or not an integer, then 422 on body.wait_seconds", async () => {
      const subject = await createAutomationWithWorker(hub);

      const tooLong = await hub.client.post("/jobs/claim", { wait_seconds: 31 }, { workerKey: subject.workerKey });
      const negative = await hub.client.post("/jobs/claim", { wait_seconds: -1 }, { workerKey: subject.workerKey });
      const text = await hub.client.post("/jobs/claim", { wait_seconds: "soon" }, { workerKey: subject.workerKey });

      expect(tooLong.body.detail).toEqual([expect.objectContaining({ loc: ["body", "wait_seconds"], type: "less_than_equal" })]);
      expect(negative.body.detail).toEqual([expect.objectContaining({ loc: ["body", "wait_seconds"], type: "greater_than_equal" })]);
      expect(text.status).toBe(422);
    });

    it("when a bearer token or no key is sent, then 401", async () => {
      const withBearer = await hub.client.post("/jobs/claim", {}, { token: hub.adminToken });
      const withoutKey = await hub.client.post("/jobs/claim", {});
      const wrongKey = await hub.client.post("/jobs/claim", {}, { workerKey: "not-a-registered-key" });

      expect([withBearer.status, withoutKey.status, wrongKey.status]).toEqual([401, 401, 401]);
    });

    it("when a job is queued, then the claim returns it running under a lease and job.started is written", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await createJob(hub, subject.automationId, hub.adminToken);

      const result = await claim(hub, subject.workerKey, 5);

      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({
        id,
        automation_id: subject.automationId,
        status: "running",
        attempts: 1,
        started_at: expect.stringMatching(ISO),
        lease_expires_at: expect.stringMatching(ISO),
        finished_at: null,
        result: null,
      });
      expect(Date.parse(result.body.lease_expires_at)).toBeGreaterThan(Date.parse(result.body.started_at));
      const events = await eventsOf(hub, id);
      expect(events.map((event) => event.eventType)).toEqual(["job.created", "job.started"]);
      expect(events[1]).toMatchObject({ actorId: null, payload: { automation_id: subject.automationId, worker_id: subject.workerId, attempt: 1 } });
    });

    it("when a job is created while a claim long-polls, then that claim receives it", async () => {
      const subject = await createAutomationWithWorker(hub);

      const waiting = claim(hub, subject.workerKey, 5);
      await sleep(300);
      const id = await createJob(hub, subject.automationId, hub.adminToken);
      const result = await waiting;

      expect(result.status).toBe(200);
      expect(result.body.id).toBe(id);
    });

    it("when several jobs are queued, then claims hand them out oldest first", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 5 });
      const ids = await queueJobs(hub, subject.automationId, 4);

      const claimed: string[] = [];
      for (let index = 0; index < ids.length; index += 1) claimed.push((await claim(hub, subject.workerKey, 0)).body.id);

      expect(claimed).toEqual(ids);
    });

    it("when another automation has queued jobs, then this worker never receives them", async () => {
      const owner = await createAutomationWithWorker(hub);
      const stranger = await createAutomationWithWorker(hub);
      const [id] = await queueJobs(hub, owner.automationId, 1);

      const strangerClaim = await claim(hub, stranger.workerKey, 1);
      const ownerClaim = await claim(hub, owner.workerKey, 0);

      expect(strangerClaim.status).toBe(204);
      expect(ownerClaim.body.id).toBe(id);
    });

    it("when 8 claims race for 10 jobs with max_concurrent_jobs 2, then exactly 2 jobs start; completing one lets the next claim in", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
      const ids = await queueJobs(hub, subject.automationId, 10);

      const results = await Promise.all(Array.from({ length: 8 }, () => claim(hub, subject.workerKey, 0)));

      const started = results.filter((result) => result.status === 200).map((result) => result.body.id as string);
      expect(started.sort()).toEqual(ids.slice(0, 2).sort());
      expect(results.filter((result) => result.status === 204)).toHaveLength(6);
      const running = await hub.client.get(`/jobs?automation_id=${subject.automationId}&status=running`, { token: hub.adminToken });
      expect(running.body).toHaveLength(2);

      expect((await claim(hub, subject.workerKey, 0)).status).toBe(204);
      await hub.client.post(`/jobs/${started[0]}/complete`, { result: {} }, { workerKey: subject.workerKey });
      const next = await claim(hub, subject.workerKey, 0);
      expect(next.status).toBe(200);
      expect(next.body.id).toBe(ids[2]);
    });

    it("when a claim waits at the concurrency limit and a running job completes, then the waiting claim gets the next job", async () => {
      const subject = await createAutomationWithWorker(hub);
      const [first, second] = await queueJobs(hub, subject.automationId, 2);
      expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(first);

      const waiting = claim(hub, subject.workerKey, 10);
      await sleep(200);
      await hub.client.post(`/jobs/${first}/complete`, { result: {} }, { workerKey: subject.workerKey });
      const result = await waiting;

      expect(result.status).toBe(200);
      expect(result.body.id).toBe(second);
    });

    it("when a claim waits at the limit and the running job is cancelled, then the freed slot goes to the waiting claim", async () => {
      const subject = await createAutomationWithWorker(hub);
      const [first, second] = await queueJobs(hub, subject.automationId, 2);
      await claim(hub, subject.workerKey, 0);

      const waiting = claim(hub, subject.workerKey, 10);
      await sleep(200);
      const cancelled = await hub.client.post(`/jobs/${first}/cancel`, undefined, { token: hub.adminToken });
      const result = await waiting;

      expect(cancelled.body.status).toBe("cancelled");
      expect(result.body.id).toBe(second);
    });

    it("when a queued job is cancelled, then no claim ever receives it", async () => {
      const subject = await createAutomationWithWorker(hub);
      const [id] = await queueJobs(hub, subject.automationId, 1);

      await hub.client.post(`/jobs/${id}/cancel`, undefined, { token: hub.adminToken });
      const result = await claim(hub, subject.workerKey, 1);

      expect(result.status).toBe(204);
      expect((await readJob(hub, id!)).status).toBe("cancelled");
    });

    it("when the automation is in development mode, then claims get nothing; leaving it releases the jobs in order", async () => {
      const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 3 });
      await hub.client.post(`/automations/${subject.automationId}/development-mode`, undefined, { token: hub.adminToken });
      const ids = await queueJobs(hub, subject.automationId, 3);

      const held = await claim(hub, subject.workerKey, 1);
      expect(held.status).toBe(204);
      expect((await readJob(hub, ids[0]!)).status).toBe("queued");

      const waiting = claim(hub, subject.workerKey, 10);
      await sleep(200);
      await hub.client.delete(`/automations/${subject.automationId}/development-mode`, { token: hub.adminToken });
      const released = [(await waiting).body.id, (await claim(hub, subject.workerKey, 0)).body.id, (await claim(hub, subject.workerKey, 0)).body.id];

      expect(released).toEqual(ids);
    });

    it("when a long-polling client goes away, then its claim stops waiting", async () => {
      const subject = await createAutomationWithWorker(hub);
      const abort = new AbortController();
      const gauge = async () => {
        const metrics = await hub.client.get("/metrics");
        return Number(/^hub_job_claims_waiting\{[^}]*\} (\d+)/m.exec(String(metrics.body))?.[1]);
      };

      const abandoned = fetch(`${hub.api.url}/jobs/claim`, {
        method: "POST",
        headers: { "x-worker-api-key": subject.workerKey, "content-type": "application/json" },
        body: JSON.stringify({ wait_seconds: 30 }),
        signal: abort.signal,
      }).catch(() => "aborted");
      while ((await gauge()) === 0) await sleep(20);
      abort.abort();

      expect(await abandoned).toBe("aborted");
      // Bounded by the test timeout (30 s), well below the claim's own 30 s wait plus start-up.
      while ((await gauge()) !== 0) await sleep(50);
      expect(await gauge()).toBe(0);
    });

    it("when a long-poll's wait runs out with no wake-up, then it answers 204 after a single look at the ready set", async () => {
      const subject = await createAutomationWithWorker(hub);
      const looks = vi.spyOn(hub.api.ctx.dispatch.ready, "candidates");
      try {
        const started = Date.now();
        const answer = await claim(hub, subject.workerKey, 1);

        expect(answer.status).toBe(204);
        expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
        // One look when the claim arrived; the deadline itself reads nothing (an idle worker's
        // renewal used to read the ready set twice).
        expect(looks.mock.calls.filter(([automationId]) => automationId === subject.automationId)).toHaveLength(1);
      } finally {
        looks.mockRestore();
      }
    });

    it("when claims are answered, then /metrics counts them by outcome", async () => {
      const metrics = await hub.client.get("/metrics");

      expect(String(metrics.body)).toMatch(/hub_job_claims_total\{[^}]*outcome="claimed"[^}]*\} [1-9]/);
      expect(String(metrics.body)).toMatch(/hub_job_claims_total\{[^}]*outcome="empty"[^}]*\} [1-9]/);
      expect(String(metrics.body)).toContain("hub_job_queue_wait_seconds_bucket");
    });
  });

  describe("POST /jobs/{job_id}/heartbeat", () => {
    it("when the worker holds the lease, then the lease is extended and the job shows it", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await claimedJob(subject);
      const before = (await readJob(hub, id)).lease_expires_at as string;
      await sleep(20);

      const result = await hub.client.post(`/jobs/${id}/heartbeat`, undefined, { workerKey: subject.workerKey });

      expect(result.status).toBe(200);
      expect(Object.keys(result.body)).toEqual(["lease_expires_at"]);
      expect(Date.parse(result.body.lease_expires_at)).toBeGreaterThan(Date.parse(before));
      expect((await readJob(hub, id)).lease_expires_at).toBe(result.body.lease_expires_at);
      expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.started"]);
    });

    it("when the job is still queued, then 409", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await createJob(hub, subject.automationId, hub.adminToken);

      const result = await hub.client.post(`/jobs/${id}/heartbeat`, undefined, { workerKey: subject.workerKey });

      expect(result.status).toBe(409);
    });
  });

  describe("POST /jobs/{job_id}/complete", () => {
    it("when the worker holds the lease, then the job is completed with its result and one job.completed event", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await claimedJob(subject);

      const result = await hub.client.post(`/jobs/${id}/complete`, { result: { rows: 12 } }, { workerKey: subject.workerKey });

      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ id, status: "completed", result: { rows: 12 }, finished_at: expect.stringMatching(ISO), lease_expires_at: null });
      const events = await eventsOf(hub, id);
      expect(events.map((event) => event.eventType)).toEqual(["job.created", "job.started", "job.completed"]);
      expect(events[2]).toMatchObject({ actorId: null, payload: { automation_id: subject.automationId, worker_id: subject.workerId, result: { rows: 12 } } });
    });

    it("when result is missing or not an object, then 422 and the job keeps running", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await claimedJob(subject);

      const missing = await hub.client.post(`/jobs/${id}/complete`, {}, { workerKey: subject.workerKey });
      const list = await hub.client.post(`/jobs/${id}/complete`, { result: [1] }, { workerKey: subject.workerKey });

      expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ["body", "result"], type: "missing" })]);
      expect(list.body.detail).toEqual([expect.objectContaining({ loc: ["body", "result"], type: "dict_type" })]);
      expect((await readJob(hub, id)).status).toBe("running");
    });

    it("when the job is completed twice, then the second is 409 and the first result stays", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await claimedJob(subject);
      await hub.client.post(`/jobs/${id}/complete`, { result: { first: true } }, { workerKey: subject.workerKey });
      const eventsBefore = await countAllEvents(hub);

      const second = await hub.client.post(`/jobs/${id}/complete`, { result: { second: true } }, { workerKey: subject.workerKey });

      expect(second.status).toBe(409);
      expect((await readJob(hub, id)).result).toEqual({ first: true });
      expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.started", "job.completed"]);
      expect(await countAllEvents(hub)).toBe(eventsBefore);
    });

    it("when the job was cancelled while running, then completing it is 409 and it stays cancelled", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await claimedJob(subject);
      await hub.client.post(`/jobs/${id}/cancel`, undefined, { token: hub.adminToken });

      const result = await hub.client.post(`/jobs/${id}/complete`, { result: { late: true } }, { workerKey: subject.workerKey });

      expect(result.status).toBe(409);
      expect(await readJob(hub, id)).toMatchObject({ status: "cancelled", result: null });
      expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.started", "job.cancelled"]);
    });

    it("when another automation's worker completes the job, then 404 and the job keeps running", async () => {
      const owner = await createAutomationWithWorker(hub);
      const stranger = await createAutomationWithWorker(hub);
      const id = await claimedJob(owner);

      const completed = await hub.client.post(`/jobs/${id}/complete`, { result: {} }, { workerKey: stranger.workerKey });
      const heartbeat = await hub.client.post(`/jobs/${id}/heartbeat`, undefined, { workerKey: stranger.workerKey });
      const failed = await hub.client.post(`/jobs/${id}/fail`, { error: "not mine" }, { workerKey: stranger.workerKey });

      expect([completed.status, heartbeat.status, failed.status]).toEqual([404, 404, 404]);
      expect((await readJob(hub, id)).status).toBe("running");
      expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.started"]);
    });

    it("when the job does not exist, then 404", async () => {
      const subject = await createAutomationWithWorker(hub);

      const result = await hub.client.post("/jobs/00000000-0000-4000-8000-000000000000/complete", { result: {} }, { workerKey: subject.workerKey });

      expect(result.status).toBe(404);
    });
  });

  describe("POST /jobs/{job_id}/fail", () => {
    it("when a failure is not retryable, then the job fails at once with its error and one job.failed event", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await claimedJob(subject);

      const result = await hub.client.post(`/jobs/${id}/fail`, { error: "bad input" }, { workerKey: subject.workerKey });

      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ status: "failed", error: "bad input", attempts: 1, finished_at: expect.stringMatching(ISO) });
      const events = await eventsOf(hub, id);
      expect(events.map((event) => event.eventType)).toEqual(["job.created", "job.started", "job.failed"]);
      expect(events[2]!.payload).toEqual({ automation_id: subject.automationId, error: "bad input", attempts: 1 });
    });

    it("when failures are retryable, then the job is re-queued and claimed again until HUB_JOB_MAX_ATTEMPTS, then fails", async () => {
      // No back-off: this test is about attempts; back-off has its own tests (retries.test.ts).
      const subject = await createAutomationWithWorker(hub, { retry_backoff_seconds: 0 });
      const id = await claimedJob(subject);
      const maxAttempts = hub.env.HUB_JOB_MAX_ATTEMPTS;

      const reports: Array<{ status: string; attempts: number }> = [];
      for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
        if (attempt > 1) {
          const reclaimed = await claim(hub, subject.workerKey, 5);
          expect(reclaimed.body).toMatchObject({ id, attempts: attempt });
        }
        const failed = await hub.client.post(`/jobs/${id}/fail`, { error: `try ${attempt}`, retryable: true }, { workerKey: subject.workerKey });
        reports.push({ status: failed.body.status, attempts: failed.body.attempts });
      }

      expect(reports).toEqual(
        Array.from({ length: maxAttempts }, (_, index) => ({ status: index + 1 < maxAttempts ? "queued" : "failed", attempts: index + 1 })),
      );
      expect(await readJob(hub, id)).toMatchObject({ status: "failed", error: `try ${maxAttempts}`, lease_expires_at: null });
      const events = await eventsOf(hub, id);
      expect(events.map((event) => event.eventType)).toEqual([
        "job.created",
        ...Array.from({ length: maxAttempts - 1 }, () => ["job.started", "job.requeued"]).flat(),
        "job.started",
        "job.failed",
      ]);
      expect(events[2]!.payload).toEqual({
        automation_id: subject.automationId,
        reason: "retryable_failure",
        attempts: 1,
        available_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(await claim(hub, subject.workerKey, 0)).toMatchObject({ status: 204 });
    });

    it("when the error is empty or too long, then 422 on body.error and the job keeps running", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await claimedJob(subject);

      const empty = await hub.client.post(`/jobs/${id}/fail`, { error: "" }, { workerKey: subject.workerKey });
      const long = await hub.client.post(`/jobs/${id}/fail`, { error: "x".repeat(10_001), retryable: "maybe" }, { workerKey: subject.workerKey });

      expect(empty.body.detail).toEqual([expect.objectContaining({ loc: ["body", "error"], type: "string_too_short" })]);
      expect(long.body.detail).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ loc: ["body", "error"], type: "string_too_long" }),
          expect.objectContaining({ loc: ["body", "retryable"] }),
        ]),
      );
      expect((await readJob(hub, id)).status).toBe("running");
    });

    it("when the job already finished, then failing it is 409 and nothing changes", async () => {
      const subject = await createAutomationWithWorker(hub);
      const id = await claimedJob(subject);
      await hub.client.post(`/jobs/${id}/complete`, { result: { ok: true } }, { workerKey: subject.workerKey });

      const result = await hub.client.post(`/jobs/${id}/fail`, { error: "too late", retryable: true }, { workerKey: subject.workerKey });

      expect(result.status).toBe(409);
      expect(await readJob(hub, id)).toMatchObject({ status: "completed", error: null, result: { ok: true } });
      expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.started", "job.completed"]);
    });
  });
});

describe("worker protocol when a lease lapses (HUB_JOB_LEASE_SECONDS=1, lease sweeper idle)", () => {
  let hub: DispatchingHub;
  beforeAll(async () => {
    // The sweeper is slowed down so the test sees a lapsed lease before it is swept.
    hub = await startHubWithDispatcher({ HUB_JOB_LEASE_SECONDS: "1" }, { leaseSweepIntervalMs: 600_000 });
  });
  afterAll(async () => {
    await hub?.stop();
  });

  it("when the lease lapsed but was not yet swept, then complete, heartbeat and fail are 409 and the job is unchanged", async () => {
    const subject = await createAutomationWithWorker(hub);
    const id = await createJob(hub, subject.automationId, hub.adminToken);
    const claimed = await claim(hub, subject.workerKey, 5);
    expect(claimed.body.id).toBe(id);
    await sleep(1500);

    const completed = await hub.client.post(`/jobs/${id}/complete`, { result: { late: true } }, { workerKey: subject.workerKey });
    const heartbeat = await hub.client.post(`/jobs/${id}/heartbeat`, undefined, { workerKey: subject.workerKey });
    const failed = await hub.client.post(`/jobs/${id}/fail`, { error: "late" }, { workerKey: subject.workerKey });

    expect([completed.status, heartbeat.status, failed.status]).toEqual([409, 409, 409]);
    expect({ ...(await readJob(hub, id)), traceparent: null, tracestate: null, dependencies: [] }).toEqual(claimed.body);
    expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.started"]);
  });

  it("when a lapsed job was re-queued, then the old lease stays refused and the next claim's lease works", async () => {
    const subject = await createAutomationWithWorker(hub, { retry_backoff_seconds: 0 }); // re-claimable at once
    const id = await createJob(hub, subject.automationId, hub.adminToken);
    expect((await claim(hub, subject.workerKey, 5)).body.id).toBe(id);
    await sleep(1500);
    await jobs.expireLapsedLeases(hub.api.ctx.database.pool, { maxAttempts: hub.env.HUB_JOB_MAX_ATTEMPTS, batchSize: 100 });
    await hub.dispatcher.reconcileNow();

    const stale = await hub.client.post(`/jobs/${id}/complete`, { result: { from: "first lease" } }, { workerKey: subject.workerKey });
    const reclaimed = await claim(hub, subject.workerKey, 5);
    const fresh = await hub.client.post(`/jobs/${id}/complete`, { result: { from: "second lease" } }, { workerKey: subject.workerKey });

    expect(stale.status).toBe(409);
    expect(reclaimed.body).toMatchObject({ id, attempts: 2, status: "running" });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ status: "completed", result: { from: "second lease" } });
    expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.started", "job.requeued", "job.started", "job.completed"]);
  });
  it("when a worker names its attempt, then a late call of the earlier attempt is refused even after it re-claimed the job", async () => {
    const subject = await createAutomationWithWorker(hub, { retry_backoff_seconds: 0 }); // re-claimable at once
    const id = await createJob(hub, subject.automationId, hub.adminToken);
    const first = await claim(hub, subject.workerKey, 5);
    expect(first.body).toMatchObject({ id, attempts: 1 });
    await sleep(1500);
    await jobs.expireLapsedLeases(hub.api.ctx.database.pool, { maxAttempts: hub.env.HUB_JOB_MAX_ATTEMPTS, batchSize: 100 });
    await hub.dispatcher.reconcileNow();
    const second = await claim(hub, subject.workerKey, 5);
    expect(second.body).toMatchObject({ id, attempts: 2 });

    const lateHeartbeat = await hub.client.post(`/jobs/${id}/heartbeat`, { attempt: 1 }, { workerKey: subject.workerKey });
    const lateComplete = await hub.client.post(`/jobs/${id}/complete`, { result: { from: "attempt 1" }, attempt: 1 }, { workerKey: subject.workerKey });
    const lateFail = await hub.client.post(`/jobs/${id}/fail`, { error: "attempt 1 gave up", attempt: 1 }, { workerKey: subject.workerKey });
    const current = await hub.client.post(`/jobs/${id}/complete`, { result: { from: "attempt 2" }, attempt: 2 }, { workerKey: subject.workerKey });

    expect([lateHeartbeat.status, lateComplete.status, lateFail.status]).toEqual([409, 409, 409]);
    expect(current.status).toBe(200);
    expect(current.body).toMatchObject({ status: "completed", result: { from: "attempt 2" }, attempts: 2 });
    expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.started", "job.requeued", "job.started", "job.completed"]);
  });
});
