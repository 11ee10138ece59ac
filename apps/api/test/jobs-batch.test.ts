import { count, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { claim, createAutomationWithWorker, eventTypesOf, readJob, useHubWithDispatcher, type AutomationWithWorker } from "./job-fixtures";
import type { TestUser } from "./harness";

const hub = useHubWithDispatcher();
let employee: TestUser;
let plain: AutomationWithWorker;
/** An automation whose jobs need `city` and `date`. */
let parameterised: AutomationWithWorker;

beforeAll(async () => {
  employee = await hub.createUser("employee");
  plain = await createAutomationWithWorker(hub);
  parameterised = await createAutomationWithWorker(hub, {
    parameters: [
      { name: "city", description: "Where" },
      { name: "date", description: "When" },
    ],
  });
});

const UNKNOWN_AUTOMATION = "00000000-0000-4000-8000-000000000000";

async function jobCountOf(...automationIds: string[]): Promise<number> {
  const [row] = await hub.api.ctx.database.db.select({ total: count() }).from(schema.jobs).where(inArray(schema.jobs.automationId, automationIds));
  return row?.total ?? 0;
}

const postBatch = (items: unknown[], options: { token?: string; key?: string } = {}) =>
  hub.client.post("/jobs/batch", { jobs: items }, { token: options.token ?? hub.adminToken, headers: options.key ? { "idempotency-key": options.key } : {} });

describe("POST /jobs/batch", () => {
  it("when an employee sends a valid batch, then 201 {ids} in input order, each job queued with its own context and one job.created event", async () => {
    const items = [
      { automation_id: parameterised.automationId, context: { city: "Lisbon", date: "2026-11-22" } },
      { automation_id: plain.automationId },
      { automation_id: parameterised.automationId, context: { city: "Porto", date: "2026-11-23", extra: [1] } },
    ];

    const created = await postBatch(items, { token: employee.token });

    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(["ids"]);
    expect(created.body.ids).toHaveLength(3);
    const read = await Promise.all(created.body.ids.map((id: string) => readJob(hub, id)));
    expect(read.map((job) => [job.automation_id, job.context, job.status, job.created_by])).toEqual([
      [parameterised.automationId, { city: "Lisbon", date: "2026-11-22" }, "queued", employee.id],
      [plain.automationId, {}, "queued", employee.id],
      [parameterised.automationId, { city: "Porto", date: "2026-11-23", extra: [1] }, "queued", employee.id],
    ]);
    for (const [index, id] of created.body.ids.entries()) {
      const [event] = await hub.api.ctx.database.db.select().from(schema.events).where(eq(schema.events.aggregateId, id));
      expect(await eventTypesOf(hub, id)).toEqual(["job.created"]);
      expect(event!.payload).toEqual({ automation_id: items[index]!.automation_id, context: items[index]!.context ?? {} });
    }
  });

  it("when a batch is created, then its worker claims the jobs in input order", async () => {
    const subject = await createAutomationWithWorker(hub, { max_concurrent_jobs: 10 });
    const created = await postBatch(Array.from({ length: 5 }, (_, index) => ({ automation_id: subject.automationId, context: { n: index } })));
    expect(created.status).toBe(201);

    const claimed: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const answer = await claim(hub, subject.workerKey, 10);
      expect(answer.status).toBe(200);
      claimed.push(answer.body.id);
    }

    expect(claimed).toEqual(created.body.ids);
  });

  it("when several items are invalid, then 422 lists every problem under body.jobs[i] and nothing is created", async () => {
    const before = await jobCountOf(plain.automationId, parameterised.automationId);

    const result = await postBatch([
      { automation_id: plain.automationId },
      { automation_id: UNKNOWN_AUTOMATION },
      { automation_id: parameterised.automationId, context: { city: 5 } },
      { automation_id: parameterised.automationId, context: { city: "Faro", date: "today" } },
    ]);

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "jobs", 1, "automation_id"], msg: expect.any(String), type: "value_error" },
      { loc: ["body", "jobs", 2, "context", "city"], msg: "Input should be a valid string", type: "string_type" },
      { loc: ["body", "jobs", 2, "context", "date"], msg: "Field required", type: "missing" },
    ]);
    expect(await jobCountOf(plain.automationId, parameterised.automationId)).toBe(before);
  });

  it("when one item is invalid, then none of the valid items is created", async () => {
    const subject = await createAutomationWithWorker(hub);

    const result = await postBatch([{ automation_id: subject.automationId }, { automation_id: subject.automationId }, { automation_id: UNKNOWN_AUTOMATION }]);

    expect(result.status).toBe(422);
    expect(await jobCountOf(subject.automationId)).toBe(0);
  });

  it("when the body's shape is wrong, then 422 names each item's field", async () => {
    const empty = await postBatch([]);
    const badItems = await postBatch([{ context: {} }, { automation_id: "nope", context: [] }]);
    const tooMany = await postBatch(Array.from({ length: 501 }, () => ({ automation_id: plain.automationId })));

    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([expect.objectContaining({ loc: ["body", "jobs"], type: "too_short" })]);
    expect(badItems.status).toBe(422);
    expect(badItems.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ["body", "jobs", 0, "automation_id"], type: "missing" }),
        expect.objectContaining({ loc: ["body", "jobs", 1, "automation_id"], type: "uuid_parsing" }),
        expect.objectContaining({ loc: ["body", "jobs", 1, "context"], type: "dict_type" }),
      ]),
    );
    expect(badItems.body.detail).toHaveLength(3);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.detail).toEqual([expect.objectContaining({ loc: ["body", "jobs"], type: "too_long" })]);
  });

  it("when the batch holds 500 jobs, then all 500 are created", async () => {
    const subject = await createAutomationWithWorker(hub);

    const created = await postBatch(Array.from({ length: 500 }, (_, index) => ({ automation_id: subject.automationId, context: { n: index } })));

    expect(created.status).toBe(201);
    expect(new Set(created.body.ids).size).toBe(500);
    expect(await jobCountOf(subject.automationId)).toBe(500);
    expect((await readJob(hub, created.body.ids[499])).context).toEqual({ n: 499 });
  });

  it("when an item's automation is deactivated, then 409 and nothing is created", async () => {
    const active = await createAutomationWithWorker(hub);
    const inactive = await createAutomationWithWorker(hub);
    expect((await hub.client.delete(`/automations/${inactive.automationId}`, { token: hub.adminToken })).status).toBe(204);

    const result = await postBatch([{ automation_id: active.automationId }, { automation_id: inactive.automationId }]);

    expect(result.status).toBe(409);
    expect(result.body).toEqual({ detail: expect.any(String) });
    expect(await jobCountOf(active.automationId, inactive.automationId)).toBe(0);
  });

  it("when the automation's parameters change, then the next batch is checked against the new ones", async () => {
    const subject = await createAutomationWithWorker(hub);
    expect((await postBatch([{ automation_id: subject.automationId }])).status).toBe(201);
    const current = await hub.client.get(`/automations/${subject.automationId}`, { token: hub.adminToken });
    const { name, description, sector, max_concurrent_jobs } = current.body;
    const updated = await hub.client.put(
      `/automations/${subject.automationId}`,
      { name, description, sector_id: sector.id, max_concurrent_jobs, parameters: [{ name: "city", description: "Where" }] },
      { token: hub.adminToken },
    );
    expect(updated.status).toBe(200);

    const result = await postBatch([{ automation_id: subject.automationId }]);

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body", "jobs", 0, "context", "city"], msg: "Field required", type: "missing" }]);
  });

  it("when no credentials or a worker key are sent, then 401", async () => {
    expect((await hub.client.post("/jobs/batch", { jobs: [{ automation_id: plain.automationId }] })).status).toBe(401);
    expect((await hub.client.post("/jobs/batch", { jobs: [{ automation_id: plain.automationId }] }, { workerKey: plain.workerKey })).status).toBe(401);
  });

  it("when /openapi.json is read, then POST /jobs/batch is documented with its body, Idempotency-Key and {ids} answer", async () => {
    const document = await hub.client.get("/openapi.json");
    const operation = document.body.paths["/jobs/batch"].post;

    expect(operation.parameters).toEqual([expect.objectContaining({ name: "idempotency-key", in: "header", required: false })]);
    expect(operation.requestBody).toBeDefined();
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["201", "200", "409", "422"]));
  });
});

describe("POST /jobs/batch with Idempotency-Key", () => {
  it("when the same user repeats a key, then the first batch's ids come back with 200, in order, and nothing new is created", async () => {
    const subject = await createAutomationWithWorker(hub);
    const items = Array.from({ length: 4 }, (_, index) => ({ automation_id: subject.automationId, context: { n: index } }));
    const first = await postBatch(items, { key: "batch-42" });

    const second = await postBatch(items, { key: "batch-42" });

    expect(first.status).toBe(201);
    expect(second).toMatchObject({ status: 200, body: { ids: first.body.ids } });
    expect(await jobCountOf(subject.automationId)).toBe(4);
  });

  it("when another user sends the same key, then it gets its own batch", async () => {
    const subject = await createAutomationWithWorker(hub);
    const mine = await postBatch([{ automation_id: subject.automationId }], { key: "shared-key" });

    const theirs = await postBatch([{ automation_id: subject.automationId }], { key: "shared-key", token: employee.token });

    expect(theirs.status).toBe(201);
    expect(theirs.body.ids).not.toEqual(mine.body.ids);
  });

  it("when the same key arrives in many concurrent requests, then exactly one batch is created and all get its ids", async () => {
    const subject = await createAutomationWithWorker(hub);
    const items = Array.from({ length: 3 }, () => ({ automation_id: subject.automationId }));

    const results = await Promise.all(Array.from({ length: 8 }, () => postBatch(items, { key: "burst" })));

    expect(results.filter((result) => result.status === 201)).toHaveLength(1);
    expect(results.filter((result) => result.status === 200)).toHaveLength(7);
    expect(new Set(results.map((result) => JSON.stringify(result.body.ids))).size).toBe(1);
    expect(await jobCountOf(subject.automationId)).toBe(3);
  });

  it("when the first request was refused, then the key stays free and a corrected batch is created", async () => {
    const subject = await createAutomationWithWorker(hub);
    const refused = await postBatch([{ automation_id: subject.automationId }, { automation_id: UNKNOWN_AUTOMATION }], { key: "retry-me" });

    const corrected = await postBatch([{ automation_id: subject.automationId }], { key: "retry-me" });

    expect(refused.status).toBe(422);
    expect(corrected.status).toBe(201);
    expect(await jobCountOf(subject.automationId)).toBe(1);
  });
});
