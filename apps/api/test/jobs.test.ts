import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { adminId, eventsOf } from "./automation-fixtures";
import { useTestHub, type TestUser } from "./harness";
import { createAutomationWithWorker, createJob, eventTypesOf, readJob, waitFor, type AutomationWithWorker } from "./job-fixtures";

const hub = useTestHub();
let employee: TestUser;
let otherEmployee: TestUser;
let automation: AutomationWithWorker;
/** An automation whose jobs need `city` and `date`. */
let parameterised: AutomationWithWorker;

beforeAll(async () => {
  [employee, otherEmployee] = await Promise.all([hub.createUser("employee"), hub.createUser("employee")]);
  automation = await createAutomationWithWorker(hub);
  parameterised = await createAutomationWithWorker(hub, {
    parameters: [
      { name: "city", description: "Where" },
      { name: "date", description: "When" },
    ],
  });
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function jobCountOf(automationId: string): Promise<number> {
  const [row] = await hub.api.ctx.database.db.select({ total: count() }).from(schema.jobs).where(eq(schema.jobs.automationId, automationId));
  return row?.total ?? 0;
}

describe("POST /jobs", () => {
  it("when an admin creates a job, then 201 {id} and the job reads back queued with every field", async () => {
    const created = await hub.client.post(
      "/jobs",
      { automation_id: parameterised.automationId, context: { city: "Lisbon", date: "2026-11-22", extra: 1 } },
      { token: hub.adminToken },
    );

    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(["id"]);
    const job = await readJob(hub, created.body.id);
    expect(job).toEqual({
      id: created.body.id,
      automation_id: parameterised.automationId,
      status: "queued",
      context: { city: "Lisbon", date: "2026-11-22", extra: 1 },
      result: null,
      error: null,
      attempts: 0,
      created_by: await adminId(hub),
      created_at: expect.stringMatching(ISO),
      started_at: null,
      finished_at: null,
      lease_expires_at: null,
      // Its worker has not called the hub yet; the first job of the automation.
      waiting_reason: "worker_offline",
      queue_position: 1,
      resumes_at: null,
      available_at: expect.stringMatching(ISO),
      retry_of: null,
      run_at: null,
      priority: 0,
      schedule_id: null,
      fire_time: null,
      // No worker has reported progress (CONTRACT §6.12).
      progress: null,
      // Neither the automation nor the job asked for an approval (CONTRACT §6.17).
      approval: null,
      // No dependencies (CONTRACT §6.16).
      depends_on: [],
      on_dependency_failure: "cancel",
      pending_dependencies: 0,
    });
  });

  it("when a job is created, then exactly one job.created event holds its automation and context", async () => {
    const id = await createJob(hub, parameterised.automationId, hub.adminToken, { city: "Porto", date: "today" });

    const events = await eventsOf(hub, id);
    expect(events.map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
      ["job.created", await adminId(hub), { automation_id: parameterised.automationId, context: { city: "Porto", date: "today" } }],
    ]);
  });

  it("when the context is left out on an automation without parameters, then it defaults to {}", async () => {
    const created = await hub.client.post("/jobs", { automation_id: automation.automationId }, { token: hub.adminToken });

    expect(created.status).toBe(201);
    expect((await readJob(hub, created.body.id)).context).toEqual({});
  });

  it("when an employee creates a job, then it is created with the employee as created_by", async () => {
    const id = await createJob(hub, automation.automationId, employee.token);

    expect((await readJob(hub, id)).created_by).toBe(employee.id);
  });

  it("when the context breaks several parameter rules, then 422 lists every problem under body.context and nothing is created", async () => {
    const before = await jobCountOf(parameterised.automationId);

    const result = await hub.client.post("/jobs", { automation_id: parameterised.automationId, context: { city: 5 } }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ["body", "context", "city"], msg: "Input should be a valid string", type: "string_type" },
        { loc: ["body", "context", "date"], msg: "Field required", type: "missing" },
      ]),
    );
    expect(result.body.detail).toHaveLength(2);
    expect(await jobCountOf(parameterised.automationId)).toBe(before);
  });

  it("when the automation does not exist, then 422 value_error on body.automation_id", async () => {
    const result = await hub.client.post("/jobs", { automation_id: "00000000-0000-4000-8000-000000000000", context: {} }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body", "automation_id"], msg: expect.any(String), type: "value_error" }]);
  });

  it("when the body misses automation_id and context is not an object, then both problems are reported at once", async () => {
    const result = await hub.client.post("/jobs", { context: ["not", "an", "object"] }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ["body", "automation_id"], type: "missing" }),
        expect.objectContaining({ loc: ["body", "context"], type: "dict_type" }),
      ]),
    );
  });

  it("when automation_id is not a uuid, then 422 uuid_parsing", async () => {
    const result = await hub.client.post("/jobs", { automation_id: "nope" }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([expect.objectContaining({ loc: ["body", "automation_id"], type: "uuid_parsing" })]);
  });

  it("when the automation is deactivated, then 409 and no job is created", async () => {
    const inactive = await createAutomationWithWorker(hub);
    expect((await hub.client.delete(`/automations/${inactive.automationId}`, { token: hub.adminToken })).status).toBe(204);

    const result = await hub.client.post("/jobs", { automation_id: inactive.automationId }, { token: hub.adminToken });

    expect(result.status).toBe(409);
    expect(result.body).toEqual({ detail: expect.any(String) });
    expect(await jobCountOf(inactive.automationId)).toBe(0);
  });

  it("when a job is created while a deactivation is in progress, then the creation waits for it and answers 409", async () => {
    const subject = await createAutomationWithWorker(hub);
    const deactivation = await hub.api.ctx.database.pool.connect();
    try {
      await deactivation.query("begin");
      await deactivation.query("select 1 from automations where id = $1 for update", [subject.automationId]);

      const pending = hub.client.post("/jobs", { automation_id: subject.automationId }, { token: hub.adminToken });
      // Until the creating transaction blocks on the automation row (bounded by the test timeout).
      for (;;) {
        const waiting = await hub.api.ctx.database.pool.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
        );
        if (waiting.rows[0].n > 0) break;
      }
      await deactivation.query("update automations set is_active = false where id = $1", [subject.automationId]);
      await deactivation.query("commit");

      expect((await pending).status).toBe(409);
      expect(await jobCountOf(subject.automationId)).toBe(0);
    } finally {
      deactivation.release();
    }
  });

  it("when handing the job to the dispatch queue hangs, then the job is still created (201, queued) and the lost hand-off is counted", async () => {
    const queue = hub.api.ctx.dispatch.queue;
    const enqueue = queue.enqueue;
    queue.enqueue = () => new Promise<void>(() => undefined);
    try {
      const created = await hub.client.post("/jobs", { automation_id: automation.automationId }, { token: hub.adminToken });

      expect(created.status).toBe(201);
      expect((await readJob(hub, created.body.id)).status).toBe("queued");
      // The request does not wait for Redis: the hand-off is given up in the background, after its timeout.
      await waitFor(async () =>
        /hub_job_dispatch_signal_failures_total\{[^}]*operation="enqueue"[^}]*\} 1\b/.test(String((await hub.client.get("/metrics")).body)),
      );
    } finally {
      queue.enqueue = enqueue;
    }
  });

  it("when no credentials or a worker key are sent, then 401", async () => {
    expect((await hub.client.post("/jobs", { automation_id: automation.automationId })).status).toBe(401);
    expect((await hub.client.post("/jobs", { automation_id: automation.automationId }, { workerKey: automation.workerKey })).status).toBe(401);
  });
});

describe("POST /jobs with Idempotency-Key", () => {
  const withKey = (key: string, token = hub.adminToken) => ({ token, headers: { "idempotency-key": key } });

  it("when the same user repeats a key, then the first job's id comes back with 200 and nothing new is created", async () => {
    const subject = await createAutomationWithWorker(hub);
    const first = await hub.client.post("/jobs", { automation_id: subject.automationId }, withKey("order-42"));

    const second = await hub.client.post("/jobs", { automation_id: subject.automationId }, withKey("order-42"));

    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ id: first.body.id });
    expect(await jobCountOf(subject.automationId)).toBe(1);
    expect(await eventTypesOf(hub, first.body.id)).toEqual(["job.created"]);
  });

  it("when two users send the same key, then each gets its own job", async () => {
    const subject = await createAutomationWithWorker(hub);

    const mine = await hub.client.post("/jobs", { automation_id: subject.automationId }, withKey("shared-key", employee.token));
    const theirs = await hub.client.post("/jobs", { automation_id: subject.automationId }, withKey("shared-key", otherEmployee.token));

    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it("when the same key arrives in many concurrent requests, then exactly one job is created and all get its id", async () => {
    const subject = await createAutomationWithWorker(hub);

    const results = await Promise.all(Array.from({ length: 8 }, () => hub.client.post("/jobs", { automation_id: subject.automationId }, withKey("burst"))));

    expect(results.filter((result) => result.status === 201)).toHaveLength(1);
    expect(results.filter((result) => result.status === 200)).toHaveLength(7);
    expect(new Set(results.map((result) => result.body.id)).size).toBe(1);
    expect(await jobCountOf(subject.automationId)).toBe(1);
  });

  it("when a key was used more than 24 h ago, then it creates a new job", async () => {
    const subject = await createAutomationWithWorker(hub);
    const first = await hub.client.post("/jobs", { automation_id: subject.automationId }, withKey("yesterday"));
    await hub.api.ctx.database.pool.query("update idempotency_keys set created_at = now() - interval '25 hours' where key = 'yesterday'");

    const again = await hub.client.post("/jobs", { automation_id: subject.automationId }, withKey("yesterday"));
    const replay = await hub.client.post("/jobs", { automation_id: subject.automationId }, withKey("yesterday"));

    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
    expect(replay).toMatchObject({ status: 200, body: { id: again.body.id } });
  });

  it("when the key is 255 visible ASCII characters, then it is accepted", async () => {
    const result = await hub.client.post("/jobs", { automation_id: automation.automationId }, withKey("k".repeat(254) + "~"));

    expect(result.status).toBe(201);
  });

  it("when the key is too long or holds a space, then 422 on header.idempotency-key together with body problems", async () => {
    const tooLong = await hub.client.post("/jobs", { automation_id: automation.automationId }, withKey("k".repeat(256)));
    const withSpace = await hub.client.post("/jobs", {}, withKey("two words"));

    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail).toEqual([{ loc: ["header", "idempotency-key"], msg: "String should have at most 255 characters", type: "string_too_long" }]);
    expect(withSpace.status).toBe(422);
    expect(withSpace.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ["header", "idempotency-key"], type: "string_pattern_mismatch" }),
        expect.objectContaining({ loc: ["body", "automation_id"], type: "missing" }),
      ]),
    );
  });

  it("when the key is empty, then 422 string_too_short", async () => {
    const result = await hub.client.post("/jobs", { automation_id: automation.automationId }, withKey(""));

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([expect.objectContaining({ loc: ["header", "idempotency-key"], type: "string_too_short" })]);
  });

  it("when /openapi.json is read, then POST /jobs documents the optional Idempotency-Key header", async () => {
    const document = await hub.client.get("/openapi.json");

    expect(document.body.paths["/jobs"].post.parameters).toEqual([expect.objectContaining({ name: "idempotency-key", in: "header", required: false })]);
  });
});

describe("GET /jobs and GET /jobs/{job_id}", () => {
  it("when jobs are listed by automation, then they come newest first and honour limit", async () => {
    const subject = await createAutomationWithWorker(hub);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push(await createJob(hub, subject.automationId));

    const all = await hub.client.get(`/jobs?automation_id=${subject.automationId}`, { token: employee.token });
    const limited = await hub.client.get(`/jobs?automation_id=${subject.automationId}&limit=2`, { token: employee.token });

    expect(all.status).toBe(200);
    expect(all.body.map((job: { id: string }) => job.id)).toEqual([...ids].reverse());
    expect(limited.body.map((job: { id: string }) => job.id)).toEqual([ids[2], ids[1]]);
  });

  it("when jobs are filtered by status, then only jobs in that status come back", async () => {
    const subject = await createAutomationWithWorker(hub);
    const kept = await createJob(hub, subject.automationId);
    const cancelled = await createJob(hub, subject.automationId);
    await hub.client.post(`/jobs/${cancelled}/cancel`, undefined, { token: hub.adminToken });

    const queued = await hub.client.get(`/jobs?automation_id=${subject.automationId}&status=queued`, { token: hub.adminToken });
    const cancelledList = await hub.client.get(`/jobs?automation_id=${subject.automationId}&status=cancelled`, { token: hub.adminToken });

    expect(queued.body.map((job: { id: string }) => job.id)).toEqual([kept]);
    expect(cancelledList.body.map((job: { id: string }) => job.id)).toEqual([cancelled]);
  });

  it("when the filters are invalid, then 422 lists each of them", async () => {
    const result = await hub.client.get("/jobs?status=done&limit=0&automation_id=x", { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ["query", "status"], type: "enum" }),
        expect.objectContaining({ loc: ["query", "limit"], type: "greater_than_equal" }),
        expect.objectContaining({ loc: ["query", "automation_id"], type: "uuid_parsing" }),
      ]),
    );
    expect((await hub.client.get("/jobs?limit=1001", { token: hub.adminToken })).status).toBe(422);
  });

  it("when a job id is unknown or not a uuid, then 404 or 422", async () => {
    const unknown = await hub.client.get("/jobs/00000000-0000-4000-8000-000000000000", { token: employee.token });
    const malformed = await hub.client.get("/jobs/not-a-uuid", { token: employee.token });

    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "Job not found" });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail).toEqual([expect.objectContaining({ loc: ["path", "job_id"], type: "uuid_parsing" })]);
  });
});

describe("POST /jobs/{job_id}/cancel", () => {
  it("when an employee cancels its own queued job, then 200 with the job cancelled and one job.cancelled event", async () => {
    const id = await createJob(hub, automation.automationId, employee.token);

    const result = await hub.client.post(`/jobs/${id}/cancel`, undefined, { token: employee.token });

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id, status: "cancelled", finished_at: expect.stringMatching(ISO), lease_expires_at: null });
    const events = await eventsOf(hub, id);
    expect(events.map((event) => event.eventType)).toEqual(["job.created", "job.cancelled"]);
    expect(events[1]).toMatchObject({ actorId: employee.id, payload: { automation_id: automation.automationId, reason: "cancelled_by_user" } });
  });

  it("when an employee cancels another user's job, then 403 and the job stays queued with no event", async () => {
    const id = await createJob(hub, automation.automationId, otherEmployee.token);

    const result = await hub.client.post(`/jobs/${id}/cancel`, undefined, { token: employee.token });

    expect(result.status).toBe(403);
    expect((await readJob(hub, id)).status).toBe("queued");
    expect(await eventTypesOf(hub, id)).toEqual(["job.created"]);
  });

  it("when an admin cancels an employee's job, then it is cancelled", async () => {
    const id = await createJob(hub, automation.automationId, employee.token);

    const result = await hub.client.post(`/jobs/${id}/cancel`, undefined, { token: hub.adminToken });

    expect(result.status).toBe(200);
    expect(result.body.status).toBe("cancelled");
  });

  it("when a finished job is cancelled again, then 409 and no second event", async () => {
    const id = await createJob(hub, automation.automationId);
    await hub.client.post(`/jobs/${id}/cancel`, undefined, { token: hub.adminToken });

    const again = await hub.client.post(`/jobs/${id}/cancel`, undefined, { token: hub.adminToken });

    expect(again.status).toBe(409);
    expect(await eventTypesOf(hub, id)).toEqual(["job.created", "job.cancelled"]);
  });

  it("when the job does not exist, then 404", async () => {
    const result = await hub.client.post("/jobs/00000000-0000-4000-8000-000000000000/cancel", undefined, { token: hub.adminToken });

    expect(result.status).toBe(404);
  });
});
