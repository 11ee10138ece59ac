/**
 * POST /jobs/{job_id}/reschedule (CONTRACT §6.8): a queued job gets a new run_at and/or priority,
 * with job.rescheduled, and the next claims follow the new order at once (Redis ready and delayed
 * sets updated). The API and a dispatcher run in-process on a real PostgreSQL and Redis.
 */
import { resolveSchema } from "./openapi-fixtures";
import { beforeAll, describe, expect, it } from "vitest";
import { eventsOf } from "./automation-fixtures";
import type { TestUser } from "./harness";
import { claim, createAutomationWithWorker, createJob, readJob, readyJobIds, useHubWithDispatcher, waitFor, type AutomationWithWorker } from "./job-fixtures";

const UNKNOWN_JOB = "00000000-0000-4000-8000-000000000000";
const HOUR_MS = 3_600_000;

const hub = useHubWithDispatcher();
let employee: TestUser;

beforeAll(async () => {
  employee = await hub.createUser("employee");
});

const reschedule = (jobId: string, body: unknown, token = hub.adminToken) => hub.client.post(`/jobs/${jobId}/reschedule`, body, { token });

/** Creates `count` jobs and waits until the dispatcher has offered them all. */
async function queueJobs(subject: AutomationWithWorker, count: number, token = hub.adminToken): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) ids.push(await createJob(hub, subject.automationId, token));
  await waitFor(async () => (await readyJobIds(hub, subject.automationId)).length === count);
  return ids;
}

describe("POST /jobs/{job_id}/reschedule", () => {
  it("when a queued job gets a higher priority, then 200 the job, job.rescheduled, and it is claimed before the jobs ahead of it", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [first, second, last] = await queueJobs(subject, 3);

    const result = await reschedule(last!, { priority: 20 });

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id: last, status: "queued", priority: 20, run_at: null });
    const event = (await eventsOf(hub, last!)).at(-1)!;
    expect([event.eventType, event.actorId, event.payload]).toEqual([
      "job.rescheduled",
      expect.any(String),
      { automation_id: subject.automationId, run_at: null, priority: 20, available_at: result.body.available_at },
    ]);
    expect(await readyJobIds(hub, subject.automationId)).toEqual([last, first, second]);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(last);
  });

  it("when a due job is moved an hour ahead, then it leaves the ready set, waits as scheduled, and the next job is claimed instead", async () => {
    const subject = await createAutomationWithWorker(hub);
    await claim(hub, subject.workerKey, 0); // the worker is seen, so the job's reason is its time
    const [moved, other] = await queueJobs(subject, 2);
    const runAt = new Date(Date.now() + HOUR_MS).toISOString();

    const result = await reschedule(moved!, { run_at: runAt });

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ run_at: runAt, available_at: runAt, waiting_reason: "scheduled", queue_position: null });
    expect(await readyJobIds(hub, subject.automationId)).toEqual([other]);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(other);
  });

  it("when a scheduled job is rescheduled with run_at null, then it is due now and a waiting worker gets it", async () => {
    const subject = await createAutomationWithWorker(hub);
    const runAt = new Date(Date.now() + HOUR_MS);
    const created = await hub.client.post("/jobs", { automation_id: subject.automationId, run_at: runAt.toISOString() }, { token: hub.adminToken });
    const id = created.body.id as string;
    const waiting = claim(hub, subject.workerKey, 10);

    const result = await reschedule(id, { run_at: null });

    expect(result.status).toBe(200);
    expect(result.body.run_at).toBeNull();
    expect(new Date(result.body.available_at).getTime()).toBeLessThan(runAt.getTime());
    expect((await waiting).body).toMatchObject({ id, status: "running" });
    const rescheduled = (await eventsOf(hub, id)).find((event) => event.eventType === "job.rescheduled");
    expect(rescheduled?.payload).toEqual({ automation_id: subject.automationId, run_at: null, priority: 0, available_at: result.body.available_at });
  });

  it("when a job is rescheduled a few seconds ahead, then it waits in the delayed set and is handed out once due, not before", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [id] = await queueJobs(subject, 1);
    const runAt = new Date(Date.now() + 1500).toISOString();

    await reschedule(id!, { run_at: runAt, priority: 3 });
    const early = await claim(hub, subject.workerKey, 0);
    const late = await claim(hub, subject.workerKey, 10);

    expect(early.status).toBe(204);
    expect(late.body).toMatchObject({ id, priority: 3, run_at: runAt });
    expect(new Date(late.body.started_at).getTime()).toBeGreaterThanOrEqual(new Date(runAt).getTime());
  });

  it("when the job is running or finished, then 409 and nothing changes", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [id] = await queueJobs(subject, 1);
    expect((await claim(hub, subject.workerKey, 0)).body.id).toBe(id);

    const whileRunning = await reschedule(id!, { priority: 5 });
    await hub.client.post(`/jobs/${id}/complete`, { result: {} }, { workerKey: subject.workerKey });
    const whenCompleted = await reschedule(id!, { run_at: null });

    expect(whileRunning.status).toBe(409);
    expect(whenCompleted.status).toBe(409);
    expect(await readJob(hub, id!)).toMatchObject({ status: "completed", priority: 0 });
    expect((await eventsOf(hub, id!)).map((event) => event.eventType)).not.toContain("job.rescheduled");
  });

  it("when an employee reschedules another user's job, then 403; its own job, then 200", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [adminsJob] = await queueJobs(subject, 1);
    const ownJob = await createJob(hub, subject.automationId, employee.token);

    const foreign = await reschedule(adminsJob!, { priority: 9 }, employee.token);
    const own = await reschedule(ownJob, { priority: 9 }, employee.token);

    expect(foreign.status).toBe(403);
    expect((await readJob(hub, adminsJob!)).priority).toBe(0);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: ownJob, priority: 9 });
    expect((await eventsOf(hub, ownJob)).at(-1)).toMatchObject({ eventType: "job.rescheduled", actorId: employee.id });
  });

  it("when the job does not exist, then 404", async () => {
    expect((await reschedule(UNKNOWN_JOB, { priority: 1 })).status).toBe(404);
  });

  it("when neither field is given or a value is out of range, then 422 and the job is unchanged", async () => {
    const subject = await createAutomationWithWorker(hub);
    const [id] = await queueJobs(subject, 1);

    const empty = await reschedule(id!, {});
    const bad = await reschedule(id!, { run_at: new Date(Date.now() + 400 * 24 * HOUR_MS).toISOString(), priority: -500 });
    const notAnId = await reschedule("nope", { priority: 1 });

    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([{ loc: ["body"], msg: "Value error, give run_at, priority or both", type: "value_error" }]);
    expect(bad.body.detail.map((issue: { loc: unknown[]; type: string }) => [issue.loc, issue.type])).toEqual([
      [["body", "run_at"], "value_error"],
      [["body", "priority"], "greater_than_equal"],
    ]);
    expect(notAnId.body.detail).toEqual([expect.objectContaining({ loc: ["path", "job_id"], type: "uuid_parsing" })]);
    expect(await readJob(hub, id!)).toMatchObject({ priority: 0, run_at: null });
    expect((await eventsOf(hub, id!)).map((event) => event.eventType)).toEqual(["job.created"]);
  });

  it("when /openapi.json is read, then the route is documented with its body, roles and answers", async () => {
    const document = (await hub.client.get("/openapi.json")).body;
    const operation = document.paths["/jobs/{job_id}/reschedule"].post;

    expect(operation.description).toContain("job.rescheduled");
    expect(Object.keys(resolveSchema(document, operation.requestBody.content["application/json"].schema).properties)).toEqual(["run_at", "priority"]);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "403", "404", "409", "422"]));
  });
});
