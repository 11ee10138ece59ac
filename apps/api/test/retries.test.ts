/**
 * Retries, back-off and timeouts (CONTRACT §6.4), through the API with a dispatcher running
 * in-process: per-automation settings, back-off that dispatch honours exactly, timeouts that free
 * the slot, and POST /jobs/{job_id}/retry.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createSector, eventsOf } from "./automation-fixtures";
import type { TestUser } from "./harness";
import { claim, createAutomationWithWorker, createJob, readJob, useHubWithDispatcher, waitFor, type AutomationWithWorker } from "./job-fixtures";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ms = (iso: string | Date) => new Date(iso).getTime();

const hub = useHubWithDispatcher();
let employee: TestUser;
let otherEmployee: TestUser;

beforeAll(async () => {
  [employee, otherEmployee] = await Promise.all([hub.createUser("employee"), hub.createUser("employee")]);
});

const asAdmin = () => ({ token: hub.adminToken });

/** Creates a job and claims it (the dispatcher offers it); returns its id. */
async function claimedJob(subject: AutomationWithWorker, token = hub.adminToken): Promise<string> {
  const id = await createJob(hub, subject.automationId, token);
  const claimed = await claim(hub, subject.workerKey, 10);
  if (claimed.status !== 200 || claimed.body.id !== id) throw new Error(`could not claim ${id}: ${claimed.status}`);
  return id;
}

async function failRetryably(subject: AutomationWithWorker, id: string) {
  return hub.client.post(`/jobs/${id}/fail`, { error: "flaky", retryable: true }, { workerKey: subject.workerKey });
}

describe("automation retry settings", () => {
  it("when an automation is created with retry settings, then the record shows them and automation.created carries them", async () => {
    const sector = await createSector(hub);
    const created = await hub.client.post(
      "/automations",
      { name: "Flaky", slug: `flaky-${process.pid}-1`, sector_id: sector.id, max_attempts: 5, retry_backoff_seconds: 30, timeout_seconds: 600 },
      asAdmin(),
    );

    expect(created.status).toBe(201);
    const record = await hub.client.get(`/automations/${created.body.id}`, asAdmin());
    expect(record.body).toMatchObject({ max_attempts: 5, retry_backoff_seconds: 30, timeout_seconds: 600 });
    const [event] = await eventsOf(hub, created.body.id);
    expect(event!.payload).toMatchObject({ max_attempts: 5, retry_backoff_seconds: 30, timeout_seconds: 600 });
  });

  it.each([
    ["max_attempts", 0],
    ["max_attempts", 101],
    ["retry_backoff_seconds", -1],
    ["retry_backoff_seconds", 3601],
    ["timeout_seconds", 0],
    ["timeout_seconds", 86_401],
    ["max_attempts", 2.5],
  ])("when %s is %s, then 422 on that field and nothing is created", async (field, value) => {
    const sector = await createSector(hub);
    const slug = `bad-${field.replaceAll("_", "-")}-${process.pid}-${String(value).replace(/\W/g, "")}`;

    const created = await hub.client.post("/automations", { name: "Bad", slug, sector_id: sector.id, [field]: value }, asAdmin());

    expect(created.status).toBe(422);
    expect(created.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([["body", field]]);
    const listed = await hub.client.get(`/automations?sector_id=${sector.id}`, asAdmin());
    expect(listed.body).toEqual([]);
  });

  it("when a PUT omits the retry settings, then they stay as they were; when it changes one, then automation.updated carries only that one", async () => {
    const subject = await createAutomationWithWorker(hub, { max_attempts: 7, retry_backoff_seconds: 5, timeout_seconds: 120 });
    const current = (await hub.client.get(`/automations/${subject.automationId}`, asAdmin())).body;
    const replacement = {
      name: current.name,
      description: current.description,
      sector_id: current.sector.id,
      max_concurrent_jobs: current.max_concurrent_jobs,
      parameters: [],
    };

    const kept = await hub.client.put(`/automations/${subject.automationId}`, { ...replacement, name: "Renamed" }, asAdmin());
    const changed = await hub.client.put(`/automations/${subject.automationId}`, { ...replacement, name: "Renamed", timeout_seconds: null }, asAdmin());

    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ name: "Renamed", max_attempts: 7, retry_backoff_seconds: 5, timeout_seconds: 120 });
    expect(changed.body).toMatchObject({ max_attempts: 7, retry_backoff_seconds: 5, timeout_seconds: null });
    const updates = (await eventsOf(hub, subject.automationId)).filter((event) => event.eventType === "automation.updated");
    expect(updates.map((event) => event.payload)).toEqual([{ name: "Renamed" }, { timeout_seconds: null }]);
  });
});

describe("back-off", () => {
  it("when a job fails retryably, then it is re-queued with available_at after the back-off, not handed out before it, and handed out soon after", async () => {
    const subject = await createAutomationWithWorker(hub, { retry_backoff_seconds: 2 });
    const id = await claimedJob(subject);

    const failed = await failRetryably(subject, id);

    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: "queued", attempts: 1, available_at: expect.stringMatching(ISO) });
    const requeued = (await eventsOf(hub, id)).find((event) => event.eventType === "job.requeued")!;
    expect(requeued.payload).toEqual({ automation_id: subject.automationId, reason: "retryable_failure", attempts: 1, available_at: failed.body.available_at });
    // 2 s × 2^0, ±20 %, measured on PostgreSQL's clock (the event's time is the failing transaction's now()).
    const backoff = ms(failed.body.available_at) - ms(requeued.createdAt);
    expect(backoff).toBeGreaterThanOrEqual(1600 - 1);
    expect(backoff).toBeLessThanOrEqual(2400 + 1);
    // Waiting in the delayed set, not in the ready set where claims would take it to PostgreSQL.
    const keys = hub.api.ctx.keys;
    expect((await hub.api.ctx.dispatch.ready.candidates(subject.automationId, 100)).map((offered) => offered.id)).not.toContain(id);
    expect(await hub.api.ctx.redis.zcard(keys.delayedJobs(0))).toBeGreaterThan(0);

    const early = await claim(hub, subject.workerKey, 0);
    const reclaimed = await claim(hub, subject.workerKey, 10);

    expect(early.status).toBe(204);
    expect(reclaimed.status).toBe(200);
    expect(reclaimed.body).toMatchObject({ id, attempts: 2 });
    const startedAt = ms(reclaimed.body.started_at);
    expect(startedAt).toBeGreaterThanOrEqual(ms(failed.body.available_at));
    // Contract: within 1 s of available_at; a wide margin for a loaded machine.
    expect(startedAt - ms(failed.body.available_at)).toBeLessThan(3000);
  });

  it("when the second attempt fails too, then the back-off doubles", async () => {
    const subject = await createAutomationWithWorker(hub, { retry_backoff_seconds: 1 });
    const id = await claimedJob(subject);
    await failRetryably(subject, id);
    expect((await claim(hub, subject.workerKey, 10)).body).toMatchObject({ id, attempts: 2 });

    const failed = await failRetryably(subject, id);

    const requeued = (await eventsOf(hub, id)).filter((event) => event.eventType === "job.requeued")[1]!;
    const backoff = ms(failed.body.available_at) - ms(requeued.createdAt);
    expect(backoff).toBeGreaterThanOrEqual(1600 - 1);
    expect(backoff).toBeLessThanOrEqual(2400 + 1);
  });

  it("when the automation's max_attempts are used, then a retryable failure ends failed, whatever HUB_JOB_MAX_ATTEMPTS says", async () => {
    const subject = await createAutomationWithWorker(hub, { max_attempts: 2, retry_backoff_seconds: 0 });
    const id = await claimedJob(subject);
    expect((await failRetryably(subject, id)).body).toMatchObject({ status: "queued", attempts: 1 });
    expect((await claim(hub, subject.workerKey, 10)).body).toMatchObject({ id, attempts: 2 });

    const last = await failRetryably(subject, id);

    expect(hub.env.HUB_JOB_MAX_ATTEMPTS).toBeGreaterThan(2);
    expect(last.body).toMatchObject({ status: "failed", attempts: 2, error: "flaky" });
    expect((await eventsOf(hub, id)).at(-1)).toMatchObject({
      eventType: "job.failed",
      payload: { automation_id: subject.automationId, error: "flaky", attempts: 2 },
    });
  });
});

describe("timeouts", () => {
  it("when a job runs past timeout_seconds, then it is re-queued with error timeout, its slot goes to the next job, and the worker's late calls get 409", async () => {
    const subject = await createAutomationWithWorker(hub, { timeout_seconds: 1, retry_backoff_seconds: 60, max_concurrent_jobs: 1 });
    const first = await claimedJob(subject);
    const second = await createJob(hub, subject.automationId);
    // Heartbeats do not keep a job past its timeout.
    expect((await hub.client.post(`/jobs/${first}/heartbeat`, undefined, { workerKey: subject.workerKey })).status).toBe(200);

    const next = await claim(hub, subject.workerKey, 15);

    expect(next.status).toBe(200);
    expect(next.body.id).toBe(second);
    const timedOut = await readJob(hub, first);
    expect(timedOut).toMatchObject({ status: "queued", error: "timeout", attempts: 1, lease_expires_at: null });
    expect(ms(timedOut.available_at)).toBeGreaterThan(Date.now() + 30_000);
    const late = await Promise.all([
      hub.client.post(`/jobs/${first}/complete`, { result: { late: true } }, { workerKey: subject.workerKey }),
      hub.client.post(`/jobs/${first}/heartbeat`, undefined, { workerKey: subject.workerKey }),
      hub.client.post(`/jobs/${first}/fail`, { error: "late" }, { workerKey: subject.workerKey }),
    ]);
    expect(late.map((response) => response.status)).toEqual([409, 409, 409]);
    expect((await readJob(hub, first)).status).toBe("queued");
    const requeued = (await eventsOf(hub, first)).find((event) => event.eventType === "job.requeued")!;
    expect(requeued.payload).toEqual({ automation_id: subject.automationId, reason: "timeout", attempts: 1, available_at: timedOut.available_at });
  });

  it("when a job times out on its last attempt, then it ends failed with error timeout", async () => {
    const subject = await createAutomationWithWorker(hub, { timeout_seconds: 1, max_attempts: 1 });
    const id = await claimedJob(subject);

    await waitFor(async () => (await readJob(hub, id)).status !== "running");

    expect(await readJob(hub, id)).toMatchObject({ status: "failed", error: "timeout", attempts: 1 });
    expect((await eventsOf(hub, id)).at(-1)).toMatchObject({ eventType: "job.failed", payload: { error: "timeout", attempts: 1 } });
  });
});

describe("POST /jobs/{job_id}/retry", () => {
  async function failedJob(subject: AutomationWithWorker, token = hub.adminToken): Promise<string> {
    const id = await claimedJob(subject, token);
    await hub.client.post(`/jobs/${id}/fail`, { error: "broken" }, { workerKey: subject.workerKey });
    return id;
  }

  it("when an admin retries a failed job, then 201 {id} of a new queued job linked to it, with its job.created event", async () => {
    const subject = await createAutomationWithWorker(hub);
    const original = await createJob(hub, subject.automationId, hub.adminToken, { city: "Porto" });
    const claimed = await claim(hub, subject.workerKey, 10);
    expect(claimed.body.id).toBe(original);
    await hub.client.post(`/jobs/${original}/fail`, { error: "broken" }, { workerKey: subject.workerKey });

    const retried = await hub.client.post(`/jobs/${original}/retry`, undefined, asAdmin());

    expect(retried.status).toBe(201);
    expect(Object.keys(retried.body)).toEqual(["id"]);
    const retry = await readJob(hub, retried.body.id);
    expect(retry).toMatchObject({
      automation_id: subject.automationId,
      status: "queued",
      context: { city: "Porto" },
      attempts: 0,
      retry_of: original,
      error: null,
    });
    const [created] = await eventsOf(hub, retried.body.id);
    expect(created).toMatchObject({
      eventType: "job.created",
      payload: { automation_id: subject.automationId, context: { city: "Porto" }, retry_of: original },
    });
    // The original is untouched, and the retry is dispatched like any new job.
    expect(await readJob(hub, original)).toMatchObject({ status: "failed", retry_of: null });
    expect((await claim(hub, subject.workerKey, 10)).body).toMatchObject({ id: retried.body.id, retry_of: original });
  });

  it("when a job was retried twice, then GET /jobs?retry_of= lists its two retries newest first, and nothing else", async () => {
    const subject = await createAutomationWithWorker(hub);
    const original = await failedJob(subject);
    const other = await failedJob(subject);
    const first = (await hub.client.post(`/jobs/${original}/retry`, undefined, asAdmin())).body.id as string;
    await hub.client.post(`/jobs/${other}/retry`, undefined, asAdmin());
    const second = (await hub.client.post(`/jobs/${original}/retry`, undefined, asAdmin())).body.id as string;

    const retries = await hub.client.get(`/jobs?retry_of=${original}`, asAdmin());
    const none = await hub.client.get(`/jobs?retry_of=${first}`, asAdmin());
    const malformed = await hub.client.get("/jobs?retry_of=nope", asAdmin());

    expect(retries.status).toBe(200);
    expect(retries.body.map((job: { id: string }) => job.id)).toEqual([second, first]);
    expect(none.body).toEqual([]);
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(["query", "retry_of"]);
  });

  it("when a cancelled job is retried, then 201", async () => {
    const subject = await createAutomationWithWorker(hub);
    const id = await createJob(hub, subject.automationId);
    await hub.client.post(`/jobs/${id}/cancel`, undefined, asAdmin());

    const retried = await hub.client.post(`/jobs/${id}/retry`, undefined, asAdmin());

    expect(retried.status).toBe(201);
  });

  it("when the job is queued, running or completed, then 409 and nothing is created", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 2 });
    const completed = await claimedJob(subject);
    await hub.client.post(`/jobs/${completed}/complete`, { result: {} }, { workerKey: subject.workerKey });
    const running = await claimedJob(subject);
    const queued = await createJob(hub, subject.automationId);
    await hub.client.post(`/automations/${subject.automationId}/development-mode`, undefined, asAdmin());

    const answers = await Promise.all([completed, running, queued].map((id) => hub.client.post(`/jobs/${id}/retry`, undefined, asAdmin())));

    expect(answers.map((answer) => answer.status)).toEqual([409, 409, 409]);
    const listed = await hub.client.get(`/jobs?automation_id=${subject.automationId}`, asAdmin());
    expect(listed.body).toHaveLength(3);
  });

  it("when an employee retries a job another user created, then 403; its own job, then 201", async () => {
    const subject = await createAutomationWithWorker(hub);
    const own = await failedJob(subject, employee.token);
    const others = await failedJob(subject, otherEmployee.token);

    const refused = await hub.client.post(`/jobs/${others}/retry`, undefined, { token: employee.token });
    const accepted = await hub.client.post(`/jobs/${own}/retry`, undefined, { token: employee.token });

    expect(refused.status).toBe(403);
    expect(accepted.status).toBe(201);
    expect((await readJob(hub, accepted.body.id)).created_by).toBe(employee.id);
  });

  it("when the automation is deactivated, then 409; when the job is unknown, then 404", async () => {
    const subject = await createAutomationWithWorker(hub);
    const id = await failedJob(subject);
    await hub.client.delete(`/automations/${subject.automationId}`, asAdmin());

    const inactive = await hub.client.post(`/jobs/${id}/retry`, undefined, asAdmin());
    const unknown = await hub.client.post(`/jobs/00000000-0000-4000-8000-000000000000/retry`, undefined, asAdmin());

    expect(inactive.status).toBe(409);
    expect(unknown.status).toBe(404);
  });
});
