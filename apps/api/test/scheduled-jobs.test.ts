/**
 * Scheduled and prioritised jobs (CONTRACT §6.8): `run_at` and `priority` on POST /jobs and
 * POST /jobs/batch, claim order (priority, then available_at, then creation) in single claims,
 * claim-batch and the Redis ready sets, `waiting_reason: scheduled`, and the GET /jobs filters.
 * The API and a dispatcher run in-process on a real PostgreSQL and Redis.
 */
import { resolveSchema } from "./openapi-fixtures";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { eventsOf } from "./automation-fixtures";
import type { TestUser } from "./harness";
import { claim, createAutomationWithWorker, createJob, readJob, readyJobIds, useHubWithDispatcher, waitFor, type AutomationWithWorker } from "./job-fixtures";

const ms = (iso: string) => new Date(iso).getTime();
const DAY_MS = 86_400_000;

const hub = useHubWithDispatcher();
let employee: TestUser;

beforeAll(async () => {
  employee = await hub.createUser("employee");
});

/** POST /jobs with extra fields (run_at, priority) that must succeed; returns the new id. */
async function createScheduledJob(subject: AutomationWithWorker, fields: Record<string, unknown>): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/jobs", { automation_id: subject.automationId, ...fields }, { token: hub.adminToken });
  if (created.status !== 201) throw new Error(`job not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** Waits until the dispatcher has offered `count` jobs of the automation. */
async function offered(automationId: string, count: number): Promise<string[]> {
  await waitFor(async () => (await readyJobIds(hub, automationId)).length === count);
  return readyJobIds(hub, automationId);
}

const claimBatch = (subject: AutomationWithWorker, maxJobs: number) =>
  hub.client.post<{ jobs: Array<{ id: string; priority: number }> }>("/jobs/claim-batch", { max_jobs: maxJobs }, { workerKey: subject.workerKey });

/** Claims one job at a time, completing each, until none is left; returns the ids in claim order. */
async function drainOneByOne(subject: AutomationWithWorker): Promise<string[]> {
  const order: string[] = [];
  for (;;) {
    const claimed = await claim(hub, subject.workerKey, 0);
    if (claimed.status === 204) return order;
    order.push(claimed.body.id as string);
    await hub.client.post(`/jobs/${claimed.body.id}/complete`, { result: {} }, { workerKey: subject.workerKey });
  }
}

describe("run_at", () => {
  it("when a job has run_at 2 s ahead, then it is not handed out before it, and a waiting worker gets it within a second after", async () => {
    const subject = await createAutomationWithWorker(hub);
    const runAt = new Date(Date.now() + 2000).toISOString();
    const id = await createScheduledJob(subject, { run_at: runAt });

    const early = await claim(hub, subject.workerKey, 0);
    const job = await readJob(hub, id);
    const waited = await claim(hub, subject.workerKey, 10);

    expect(early.status).toBe(204);
    expect(job).toMatchObject({ status: "queued", run_at: runAt, available_at: runAt, priority: 0, waiting_reason: "scheduled", queue_position: null });
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({ id, run_at: runAt, available_at: runAt, schedule_id: null, fire_time: null });
    // Both on PostgreSQL's clock: never before available_at, and within the contract's second after it.
    const startedAt = ms(waited.body.started_at);
    expect(startedAt).toBeGreaterThanOrEqual(ms(runAt));
    expect(startedAt - ms(runAt)).toBeLessThan(1000);
  });

  it("when run_at is in the past, then the job is due at once: available_at is its creation time and run_at reads back as sent", async () => {
    const subject = await createAutomationWithWorker(hub);
    const runAt = "2020-01-01T00:00:00.000Z";

    const job = await readJob(hub, await createScheduledJob(subject, { run_at: runAt }));

    expect(job).toMatchObject({ run_at: runAt, available_at: job.created_at });
  });

  it("when run_at has an offset, then it reads back as the same instant in UTC", async () => {
    const subject = await createAutomationWithWorker(hub);
    const instant = new Date(Math.floor((Date.now() + DAY_MS) / 1000) * 1000);
    const wallClockAtPlusTwo = new Date(instant.getTime() + 2 * 3_600_000).toISOString().slice(0, 19);

    const job = await readJob(hub, await createScheduledJob(subject, { run_at: `${wallClockAtPlusTwo}+02:00` }));

    expect(job.run_at).toBe(instant.toISOString());
    expect(job.available_at).toBe(instant.toISOString());
  });

  it("when a job is scheduled, then its job.created event is the usual one", async () => {
    const subject = await createAutomationWithWorker(hub);
    const id = await createScheduledJob(subject, { run_at: new Date(Date.now() + DAY_MS).toISOString(), priority: 3 });

    expect((await eventsOf(hub, id)).map((event) => [event.eventType, event.payload])).toEqual([
      ["job.created", { automation_id: subject.automationId, context: {} }],
    ]);
  });

  it("when a job is due next month, then it costs Redis nothing: it is neither offered nor in the delayed set", async () => {
    const subject = await createAutomationWithWorker(hub);
    const id = await createScheduledJob(subject, { run_at: new Date(Date.now() + 30 * DAY_MS).toISOString() });
    // A job created after it, due now, shows the dispatcher has handled both hand-offs.
    const dueNow = await createJob(hub, subject.automationId);
    expect(await offered(subject.automationId, 1)).toEqual([dueNow]);
    await hub.dispatcher.reconcileNow();

    const delayed = await hub.api.ctx.redis.zrange(hub.api.ctx.keys.delayedJobs(0), 0, -1);
    expect(delayed.some((member) => member.includes(id))).toBe(false);
    expect(await readyJobIds(hub, subject.automationId)).toEqual([dueNow]);
  });
});

describe("claim order", () => {
  it("when a priority 10 job is created after five priority 0 jobs, then it is claimed first and the others follow in creation order", async () => {
    const subject = await createAutomationWithWorker(hub);
    const normal: string[] = [];
    for (let index = 0; index < 5; index += 1) normal.push(await createJob(hub, subject.automationId));
    const urgent = await createScheduledJob(subject, { priority: 10 });

    // The ready set holds them in claim order too, not in arrival order.
    expect(await offered(subject.automationId, 6)).toEqual([urgent, ...normal]);
    expect(await drainOneByOne(subject)).toEqual([urgent, ...normal]);
  });

  it("when claim-batch takes them, then it returns the same order: priority, then creation", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 10 });
    const low = await createScheduledJob(subject, { priority: -5 });
    const normal = [await createJob(hub, subject.automationId), await createJob(hub, subject.automationId)];
    const urgent = await createScheduledJob(subject, { priority: 10 });
    const high = await createScheduledJob(subject, { priority: 5 });
    await offered(subject.automationId, 5);

    const result = await claimBatch(subject, 10);

    expect(result.body.jobs.map((job) => job.id)).toEqual([urgent, high, ...normal, low]);
    expect(result.body.jobs.map((job) => job.priority)).toEqual([10, 5, 0, 0, -5]);
  });

  it("when a batch mixes priorities, then claims take them by priority and, within one, in input order", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 10 });
    const created = await hub.client.post<{ ids: string[] }>(
      "/jobs/batch",
      { jobs: [0, 5, 0, 5, 0].map((priority) => ({ automation_id: subject.automationId, priority })) },
      { token: hub.adminToken },
    );
    expect(created.status).toBe(201);
    const [a, b, c, d, e] = created.body.ids;
    await offered(subject.automationId, 5);

    expect(await readyJobIds(hub, subject.automationId)).toEqual([b, d, a, c, e]);
    expect((await claimBatch(subject, 10)).body.jobs.map((job) => job.id)).toEqual([b, d, a, c, e]);
  });

  it("when jobs share a priority, then the one whose available_at came first goes first, even if created later", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 10 });
    const createdFirst = await createJob(hub, subject.automationId);
    const createdSecond = await createScheduledJob(subject, { run_at: "2020-01-01T00:00:00Z" });
    // Moved back by an hour, as if it had waited for a run_at that came an hour ago.
    await hub.api.ctx.database.db.execute(sql`update jobs set available_at = now() - interval '1 hour' where id = ${createdSecond}`);
    await hub.dispatcher.reconcileNow();
    await offered(subject.automationId, 2);

    expect((await claimBatch(subject, 10)).body.jobs.map((job) => job.id)).toEqual([createdSecond, createdFirst]);
  });

  it("when a batch item has run_at ahead, then claim-batch leaves it and takes the due ones", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 10 });
    const created = await hub.client.post<{ ids: string[] }>(
      "/jobs/batch",
      {
        jobs: [
          { automation_id: subject.automationId, priority: 100, run_at: new Date(Date.now() + 3_600_000).toISOString() },
          { automation_id: subject.automationId },
        ],
      },
      { token: hub.adminToken },
    );
    const [later, now] = created.body.ids;
    await offered(subject.automationId, 1);

    expect((await claimBatch(subject, 10)).body.jobs.map((job) => job.id)).toEqual([now]);
    expect(await readJob(hub, later!)).toMatchObject({ status: "queued", priority: 100, waiting_reason: "scheduled" });
  });
});

describe("waiting_reason and queue_position", () => {
  it("when a job waits for its run_at, then scheduled and no position; due jobs ahead count by priority", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 1 });
    await claim(hub, subject.workerKey, 0); // the worker is seen: not worker_offline
    const scheduled = await createScheduledJob(subject, { run_at: new Date(Date.now() + 3_600_000).toISOString(), priority: 100 });
    const first = await createJob(hub, subject.automationId);
    const second = await createJob(hub, subject.automationId);
    const urgent = await createScheduledJob(subject, { priority: 1 });

    expect(await readJob(hub, scheduled)).toMatchObject({ waiting_reason: "scheduled", queue_position: null });
    expect(await readJob(hub, urgent)).toMatchObject({ waiting_reason: "next_in_line", queue_position: 1 });
    expect(await readJob(hub, first)).toMatchObject({ waiting_reason: "concurrency_limit", queue_position: 2 });
    expect(await readJob(hub, second)).toMatchObject({ queue_position: 3 });
    const stats = await hub.client.get(`/automations/${subject.automationId}/stats`, { token: hub.adminToken });
    expect(stats.body).toMatchObject({ queued: 3, scheduled: 1 });
  });
});

/** A schedule that never fires by itself, to stand behind jobs a test marks as made by it. */
async function createDisabledSchedule(automationId: string): Promise<string> {
  const created = await hub.client.post<{ id: string }>(
    `/automations/${automationId}/schedules`,
    { cron: "0 6 * * *", enabled: false },
    { token: hub.adminToken },
  );
  if (created.status !== 201) throw new Error(`schedule not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

describe("GET /jobs filters", () => {
  it("when filtering by scheduled, priority_min and schedule_id, then only the matching jobs are listed", async () => {
    const subject = await createAutomationWithWorker(hub);
    const scheduled = await createScheduledJob(subject, { run_at: new Date(Date.now() + DAY_MS).toISOString(), priority: 20 });
    const urgent = await createScheduledJob(subject, { priority: 50 });
    const normal = await createJob(hub, subject.automationId);
    const scheduleId = await createDisabledSchedule(subject.automationId);
    // Made as if by that schedule's fire (§6.9 fires are tested in schedules-firing.test.ts).
    await hub.api.ctx.database.db.execute(sql`update jobs set schedule_id = ${scheduleId} where id = ${normal}`);
    const list = async (query: string) =>
      ((await hub.client.get<Array<{ id: string }>>(`/jobs?automation_id=${subject.automationId}&${query}`, { token: hub.adminToken })).body ?? []).map(
        (job) => job.id,
      );

    expect(await list("scheduled=true")).toEqual([scheduled]);
    expect(await list("scheduled=false")).toEqual([normal, urgent]);
    expect(await list("priority_min=20")).toEqual([urgent, scheduled]);
    expect(await list("priority_min=21&scheduled=false")).toEqual([urgent]);
    expect(await list(`schedule_id=${scheduleId}`)).toEqual([normal]);
  });

  it("when the filters are malformed, then 422 names each", async () => {
    const result = await hub.client.get("/jobs?priority_min=high&scheduled=maybe&schedule_id=nope", { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail.map((issue: { loc: unknown[]; type: string }) => [issue.loc, issue.type])).toEqual([
      [["query", "priority_min"], "int_parsing"],
      [["query", "scheduled"], expect.stringMatching(/^bool_/)],
      [["query", "schedule_id"], "uuid_parsing"],
    ]);
  });
});

describe("validation", () => {
  async function jobCount(): Promise<number> {
    const [row] = (await hub.api.ctx.database.db.execute<{ total: number }>(sql`select count(*)::int as total from jobs`)).rows;
    return row!.total;
  }

  it("when run_at is more than 365 days ahead or priority is out of range, then 422 with every problem and nothing is created", async () => {
    const subject = await createAutomationWithWorker(hub);
    const before = await jobCount();

    const result = await hub.client.post(
      "/jobs",
      { automation_id: subject.automationId, run_at: new Date(Date.now() + 366 * DAY_MS).toISOString(), priority: 101 },
      { token: hub.adminToken },
    );

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "run_at"], msg: "Value error, run_at may be at most 365 days ahead", type: "value_error" },
      expect.objectContaining({ loc: ["body", "priority"], type: "less_than_equal" }),
    ]);
    expect(await jobCount()).toBe(before);
  });

  it("when run_at is not a time or priority not an integer, then 422 datetime_parsing and int_from_float, as pydantic names them", async () => {
    const subject = await createAutomationWithWorker(hub);

    const result = await hub.client.post("/jobs", { automation_id: subject.automationId, run_at: "tomorrow", priority: 1.5 }, { token: hub.adminToken });
    const tooLow = await hub.client.post("/jobs", { automation_id: subject.automationId, priority: -101 }, { token: hub.adminToken });

    expect(result.body.detail.map((issue: { loc: unknown[]; type: string }) => [issue.loc, issue.type])).toEqual([
      [["body", "run_at"], "datetime_parsing"],
      [["body", "priority"], "int_from_float"],
    ]);
    expect(tooLow.body.detail).toEqual([expect.objectContaining({ loc: ["body", "priority"], type: "greater_than_equal" })]);
  });

  it("when a batch item is invalid, then 422 under its index and no job of the batch is created", async () => {
    const subject = await createAutomationWithWorker(hub);
    const before = await jobCount();

    const result = await hub.client.post(
      "/jobs/batch",
      {
        jobs: [
          { automation_id: subject.automationId, priority: 5 },
          { automation_id: subject.automationId, run_at: new Date(Date.now() + 400 * DAY_MS).toISOString(), priority: 200 },
        ],
      },
      { token: hub.adminToken },
    );

    expect(result.status).toBe(422);
    expect(result.body.detail.map((issue: { loc: unknown[]; type: string }) => [issue.loc, issue.type])).toEqual([
      [["body", "jobs", 1, "run_at"], "value_error"],
      [["body", "jobs", 1, "priority"], "less_than_equal"],
    ]);
    expect(await jobCount()).toBe(before);
  });

  it("when an employee creates a job with run_at and priority, then it is accepted as from an admin", async () => {
    const subject = await createAutomationWithWorker(hub);
    const created = await hub.client.post(
      "/jobs",
      { automation_id: subject.automationId, run_at: new Date(Date.now() + DAY_MS).toISOString(), priority: -3 },
      { token: employee.token },
    );

    expect(created.status).toBe(201);
    expect(await readJob(hub, created.body.id)).toMatchObject({ priority: -3, created_by: employee.id });
  });
});

describe("retry", () => {
  it("when a scheduled, prioritised job is cancelled and retried, then the retry keeps the priority and runs now", async () => {
    const subject = await createAutomationWithWorker(hub);
    const original = await createScheduledJob(subject, { run_at: new Date(Date.now() + DAY_MS).toISOString(), priority: 7 });
    const scheduleId = await createDisabledSchedule(subject.automationId);
    await hub.api.ctx.database.db.execute(sql`update jobs set schedule_id = ${scheduleId}, fire_time = now() where id = ${original}`);
    expect((await hub.client.post(`/jobs/${original}/cancel`, undefined, { token: hub.adminToken })).status).toBe(200);

    const retried = await hub.client.post(`/jobs/${original}/retry`, undefined, { token: hub.adminToken });
    const retry = await readJob(hub, retried.body.id);

    expect(retry).toMatchObject({ retry_of: original, priority: 7, run_at: null, schedule_id: null, fire_time: null, available_at: retry.created_at });
  });
});

describe("OpenAPI", () => {
  it("when /openapi.json is read, then run_at, priority, the new filters and the job record fields are described with examples", async () => {
    const document = (await hub.client.get("/openapi.json")).body;
    const createBody = resolveSchema(document, document.paths["/jobs"].post.requestBody.content["application/json"].schema);
    const listParameters = document.paths["/jobs"].get.parameters.map((parameter: { name: string }) => parameter.name);
    const record = resolveSchema(document, document.paths["/jobs/{job_id}"].get.responses["200"].content["application/json"].schema);

    expect(document.paths["/jobs"].post.description).toContain("run_at");
    expect(JSON.stringify(createBody.properties.run_at)).toContain("2026-12-24T06:00:00Z");
    // Request defaults are stated in the description (CONTRACT §6.21: not `required` for generated clients).
    expect(createBody.properties.priority).toMatchObject({ minimum: -100, maximum: 100, examples: [10] });
    expect(createBody.properties.priority.description).toContain("Default: `0`");
    expect(listParameters).toEqual(expect.arrayContaining(["priority_min", "scheduled", "schedule_id"]));
    expect(Object.keys(record.properties)).toEqual(expect.arrayContaining(["run_at", "priority", "schedule_id", "fire_time"]));
    expect(record.properties.run_at.description).toContain("as sent");
  });
});
