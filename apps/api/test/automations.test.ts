import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { EVERYWHERE, jobs, schema, withTransaction, workers } from "@hub/db";
import { adminId, countAllEvents, createAutomation, createSector, eventsOf, insertQueuedJob, listenForWakes, uniqueSlug } from "./automation-fixtures";
import { useTestHub, type TestUser } from "./harness";

const hub = useTestHub();
let employee: TestUser;
let admin: string;
let sector: { id: string; name: string; color: string };
let otherSector: { id: string; name: string; color: string };

beforeAll(async () => {
  employee = await hub.createUser("employee");
  admin = await adminId(hub);
  sector = await createSector(hub, uniqueSlug("operations"), "#112233");
  otherSector = await createSector(hub, uniqueSlug("finance"), "#AABBCC");
});

const asAdmin = () => ({ token: hub.adminToken });
const asEmployee = () => ({ token: employee.token });

describe("POST /automations", () => {
  it("when only the required fields are sent, then 201 and the record holds the defaults", async () => {
    const slug = uniqueSlug("nightly-report");

    const created = await hub.client.post("/automations", { name: "Nightly report", slug, sector_id: sector.id }, asAdmin());

    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(["id"]);
    const record = await hub.client.get(`/automations/${created.body.id}`, asAdmin());
    expect(record.status).toBe(200);
    expect(record.body).toEqual({
      id: created.body.id,
      name: "Nightly report",
      slug,
      sector: { id: sector.id, name: sector.name, color: sector.color },
      parameters: [],
      context_schema: { type: "object", properties: {}, required: [], additionalProperties: true },
      description: "",
      max_concurrent_jobs: 1,
      max_attempts: hub.env.HUB_JOB_MAX_ATTEMPTS,
      retry_backoff_seconds: 10,
      timeout_seconds: null,
      concurrency_key: null,
      max_concurrent_per_key: null,
      rate_limit: null,
      requires_approval: false,
      approver_ids: [],
      approval_timeout_seconds: null,
      is_active: true,
      is_development: false,
      worker: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it("when parameters are sent, then they read back typed text and the context schema is derived from them", async () => {
    const created = await hub.client.post(
      "/automations",
      {
        name: "Invoice import",
        slug: uniqueSlug("invoice-import"),
        sector_id: sector.id,
        description: "Imports invoices",
        max_concurrent_jobs: 7,
        parameters: [{ name: "customer", description: "Customer number" }, { name: "month" }],
      },
      asAdmin(),
    );

    expect(created.status).toBe(201);
    const record = await hub.client.get(`/automations/${created.body.id}`, asEmployee());
    expect(record.body).toMatchObject({
      description: "Imports invoices",
      max_concurrent_jobs: 7,
      parameters: [
        { name: "customer", type: "text", description: "Customer number" },
        { name: "month", type: "text", description: "" },
      ],
      context_schema: {
        type: "object",
        properties: {
          customer: { type: "string", description: "Customer number" },
          month: { type: "string", description: "" },
        },
        required: ["customer", "month"],
        additionalProperties: true,
      },
    });
  });

  it("when an automation is created, then automation.created carries the fields that were set, by the admin", async () => {
    const slug = uniqueSlug("payroll");

    const id = await createAutomation(hub, { name: "Payroll", slug, sector_id: sector.id, parameters: [{ name: "period" }] });

    const recorded = await eventsOf(hub, id);
    expect(recorded.map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
      [
        "automation.created",
        admin,
        {
          name: "Payroll",
          slug,
          sector_id: sector.id,
          parameters: [{ name: "period", description: "" }],
          description: "",
          max_concurrent_jobs: 1,
        },
      ],
    ]);
  });

  it("when the name is missing, the slug is malformed and max_concurrent_jobs is 0, then 422 lists all three and nothing is created", async () => {
    const before = await countAllEvents(hub);

    const result = await hub.client.post("/automations", { slug: "Not A Slug", sector_id: sector.id, max_concurrent_jobs: 0 }, asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "name"], msg: "Field required", type: "missing" },
      { loc: ["body", "slug"], msg: "String should match pattern '^[a-z0-9]+(-[a-z0-9]+)*$'", type: "string_pattern_mismatch" },
      { loc: ["body", "max_concurrent_jobs"], msg: "Input should be greater than or equal to 1", type: "greater_than_equal" },
    ]);
    expect(await countAllEvents(hub)).toBe(before);
  });

  it.each([
    ["an empty name", { name: "" }, ["body", "name"], "string_too_short"],
    ["a name of 201 characters", { name: "n".repeat(201) }, ["body", "name"], "string_too_long"],
    ["a name that is not a string", { name: 5 }, ["body", "name"], "string_type"],
    ["an empty slug", { slug: "" }, ["body", "slug"], "string_too_short"],
    ["a slug of 101 characters", { slug: "s".repeat(101) }, ["body", "slug"], "string_too_long"],
    ["a slug with a trailing hyphen", { slug: "report-" }, ["body", "slug"], "string_pattern_mismatch"],
    ["a slug with a double hyphen", { slug: "a--b" }, ["body", "slug"], "string_pattern_mismatch"],
    ["a missing sector_id", { sector_id: undefined }, ["body", "sector_id"], "missing"],
    ["a sector_id that is not a uuid", { sector_id: "sales" }, ["body", "sector_id"], "uuid_parsing"],
    ["max_concurrent_jobs of 1001", { max_concurrent_jobs: 1001 }, ["body", "max_concurrent_jobs"], "less_than_equal"],
    ["a fractional max_concurrent_jobs", { max_concurrent_jobs: 1.5 }, ["body", "max_concurrent_jobs"], "int_from_float"],
    ["a max_concurrent_jobs that is a word", { max_concurrent_jobs: "many" }, ["body", "max_concurrent_jobs"], "int_parsing"],
    ["a description that is not a string", { description: ["x"] }, ["body", "description"], "string_type"],
    ["parameters that are not a list", { parameters: { name: "a" } }, ["body", "parameters"], "list_type"],
    ["a parameter that is not an object", { parameters: ["a"] }, ["body", "parameters", 0], "dict_type"],
    ["a parameter without a name", { parameters: [{ description: "d" }] }, ["body", "parameters", 0, "name"], "missing"],
    ["an empty parameter name", { parameters: [{ name: "" }] }, ["body", "parameters", 0, "name"], "string_too_short"],
    ["a parameter name of 101 characters", { parameters: [{ name: "p".repeat(101) }] }, ["body", "parameters", 0, "name"], "string_too_long"],
    ["a parameter name used twice", { parameters: [{ name: "city" }, { name: "zip" }, { name: "city" }] }, ["body", "parameters"], "value_error"],
    ["a parameter named __proto__", { parameters: [{ name: "__proto__" }] }, ["body", "parameters"], "value_error"],
  ])("when the body has %s, then 422 on that field and nothing is created", async (_case, change, loc, type) => {
    const slug = uniqueSlug();
    const body = { name: "Valid name", slug, sector_id: sector.id, ...change };

    const result = await hub.client.post("/automations", body, asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc, msg: expect.any(String), type }]);
    const listed = await hub.client.get<Array<{ slug: string }>>("/automations", asAdmin());
    expect(listed.body.map((automation) => automation.slug)).not.toContain(slug);
  });

  it("when the sector does not exist, then 422 value_error on sector_id and nothing is created", async () => {
    const before = await countAllEvents(hub);

    const result = await hub.client.post("/automations", { name: "Orphan", slug: uniqueSlug(), sector_id: "00000000-0000-4000-8000-000000000000" }, asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body", "sector_id"], msg: expect.stringMatching(/^Value error, /), type: "value_error" }]);
    expect(await countAllEvents(hub)).toBe(before);
  });

  it("when the body is missing, then 422 on the body", async () => {
    const result = await hub.client.post("/automations", undefined, asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body"], msg: "Field required", type: "missing" }]);
  });

  it("when the slug is taken, then 409 and only the first automation exists", async () => {
    const slug = uniqueSlug("taken");
    const first = await createAutomation(hub, { slug, sector_id: sector.id });
    const before = await countAllEvents(hub);

    const second = await hub.client.post("/automations", { name: "Another", slug, sector_id: otherSector.id }, asAdmin());

    expect(second.status).toBe(409);
    expect(second.body).toEqual({ detail: expect.stringContaining(slug) });
    const listed = await hub.client.get<Array<{ id: string; slug: string }>>("/automations", asAdmin());
    expect(listed.body.filter((automation) => automation.slug === slug).map((automation) => automation.id)).toEqual([first]);
    expect(await countAllEvents(hub)).toBe(before);
  });

  it("when unknown fields such as is_active are sent, then they are ignored", async () => {
    const created = await hub.client.post(
      "/automations",
      { name: "Mass assignment", slug: uniqueSlug(), sector_id: sector.id, is_active: false, is_development: true, id: "00000000-0000-4000-8000-000000000000" },
      asAdmin(),
    );

    expect(created.status).toBe(201);
    expect(created.body.id).not.toBe("00000000-0000-4000-8000-000000000000");
    const record = await hub.client.get(`/automations/${created.body.id}`, asAdmin());
    expect(record.body).toMatchObject({ is_active: true, is_development: false });
  });
});

describe("GET /automations", () => {
  it("when filtered by sector and by is_active, then only matching automations are listed, oldest first", async () => {
    const sectorOfList = await createSector(hub);
    const first = await createAutomation(hub, { sector_id: sectorOfList.id });
    const second = await createAutomation(hub, { sector_id: sectorOfList.id });
    const third = await createAutomation(hub, { sector_id: sectorOfList.id });
    await hub.client.delete(`/automations/${second}`, asAdmin());

    const all = await hub.client.get<Array<{ id: string }>>(`/automations?sector_id=${sectorOfList.id}`, asEmployee());
    const active = await hub.client.get<Array<{ id: string }>>(`/automations?sector_id=${sectorOfList.id}&is_active=true`, asEmployee());
    const inactive = await hub.client.get<Array<{ id: string }>>(`/automations?sector_id=${sectorOfList.id}&is_active=false`, asEmployee());

    expect(all.status).toBe(200);
    expect(all.body.map((automation) => automation.id)).toEqual([first, second, third]);
    expect(active.body.map((automation) => automation.id)).toEqual([first, third]);
    expect(inactive.body.map((automation) => automation.id)).toEqual([second]);
  });

  it("when the filters are malformed, then 422 names each query field", async () => {
    const result = await hub.client.get("/automations?sector_id=sales&is_active=maybe", asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["query", "sector_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" },
      { loc: ["query", "is_active"], msg: expect.any(String), type: "bool_parsing" },
    ]);
  });

  it("when an automation is listed, then each entry is the full record", async () => {
    const id = await createAutomation(hub, { sector_id: sector.id, parameters: [{ name: "region", description: "EU or US" }] });

    const listed = await hub.client.get<Array<{ id: string }>>("/automations", asAdmin());
    const single = await hub.client.get(`/automations/${id}`, asAdmin());

    expect(listed.body.find((automation) => automation.id === id)).toEqual(single.body);
  });
});

describe("GET /automations/{automation_id}", () => {
  it("when the automation does not exist, then 404", async () => {
    const result = await hub.client.get("/automations/00000000-0000-4000-8000-000000000000", asAdmin());

    expect(result.status).toBe(404);
    expect(result.body).toEqual({ detail: "Automation not found" });
  });

  it("when the path id is not a uuid, then 422 on the path", async () => {
    const result = await hub.client.get("/automations/nightly-report", asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["path", "automation_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
  });
});

describe("roles", () => {
  let id: string;
  beforeAll(async () => {
    id = await createAutomation(hub, { sector_id: sector.id });
  });

  it("when an employee reads automations, then 200", async () => {
    expect((await hub.client.get("/automations", asEmployee())).status).toBe(200);
    expect((await hub.client.get(`/automations/${id}`, asEmployee())).status).toBe(200);
  });

  it("when an employee tries any write, then 403 and nothing changes", async () => {
    const before = await countAllEvents(hub);
    const replacement = { name: "Renamed", description: "", sector_id: sector.id, max_concurrent_jobs: 5, parameters: [] };

    const answers = [
      await hub.client.post("/automations", { name: "By employee", slug: uniqueSlug(), sector_id: sector.id }, asEmployee()),
      await hub.client.put(`/automations/${id}`, replacement, asEmployee()),
      await hub.client.delete(`/automations/${id}`, asEmployee()),
      await hub.client.post(`/automations/${id}/development-mode`, undefined, asEmployee()),
      await hub.client.delete(`/automations/${id}/development-mode`, asEmployee()),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403]);
    expect(await countAllEvents(hub)).toBe(before);
    const record = await hub.client.get(`/automations/${id}`, asAdmin());
    expect(record.body).toMatchObject({ name: "An automation", is_active: true, is_development: false, max_concurrent_jobs: 1 });
  });

  it("when no token is sent, then 401 with a Bearer challenge on reads and writes", async () => {
    const answers = [
      await hub.client.get("/automations"),
      await hub.client.get(`/automations/${id}`),
      await hub.client.post("/automations", { name: "Anonymous", slug: uniqueSlug(), sector_id: sector.id }),
      await hub.client.put(`/automations/${id}`, {}),
      await hub.client.delete(`/automations/${id}`),
      await hub.client.post(`/automations/${id}/development-mode`),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(answers[0]?.headers.get("www-authenticate")).toBe("Bearer");
  });
});

describe("PUT /automations/{automation_id}", () => {
  it("when every field is replaced, then 200 with the new record, the slug unchanged, and an event with the changed fields only", async () => {
    const slug = uniqueSlug("before");
    const id = await createAutomation(hub, {
      name: "Before",
      slug,
      sector_id: sector.id,
      description: "same",
      max_concurrent_jobs: 2,
      parameters: [{ name: "a", description: "first" }],
    });

    const result = await hub.client.put(
      `/automations/${id}`,
      {
        name: "After",
        slug: "an-attempt-to-change-it",
        description: "same",
        sector_id: otherSector.id,
        max_concurrent_jobs: 2,
        parameters: [{ name: "a", description: "first" }, { name: "b" }],
      },
      asAdmin(),
    );

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      id,
      name: "After",
      slug,
      sector: { id: otherSector.id, name: otherSector.name, color: otherSector.color },
      description: "same",
      max_concurrent_jobs: 2,
      parameters: [
        { name: "a", type: "text", description: "first" },
        { name: "b", type: "text", description: "" },
      ],
      context_schema: { required: ["a", "b"] },
    });
    expect(result.body).toEqual((await hub.client.get(`/automations/${id}`, asAdmin())).body);
    const recorded = await eventsOf(hub, id);
    expect(recorded.map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
      ["automation.created", admin, expect.any(Object)],
      [
        "automation.updated",
        admin,
        {
          name: "After",
          sector_id: otherSector.id,
          parameters: [
            { name: "a", description: "first" },
            { name: "b", description: "" },
          ],
        },
      ],
    ]);
  });

  it("when the replacement changes nothing, then 200 and no event is recorded", async () => {
    const id = await createAutomation(hub, { name: "Steady", sector_id: sector.id, parameters: [{ name: "x", description: "y" }] });

    const result = await hub.client.put(
      `/automations/${id}`,
      { name: "Steady", description: "", sector_id: sector.id, max_concurrent_jobs: 1, parameters: [{ name: "x", description: "y" }] },
      asAdmin(),
    );

    expect(result.status).toBe(200);
    expect((await eventsOf(hub, id)).map((event) => event.eventType)).toEqual(["automation.created"]);
  });

  it("when a field is missing, then 422 lists every missing field and nothing changes", async () => {
    const id = await createAutomation(hub, { name: "Kept", sector_id: sector.id });

    const result = await hub.client.put(`/automations/${id}`, { name: "Lost" }, asAdmin());

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual(
      ["description", "sector_id", "max_concurrent_jobs", "parameters"].map((field) => ({ loc: ["body", field], msg: "Field required", type: "missing" })),
    );
    expect((await hub.client.get(`/automations/${id}`, asAdmin())).body.name).toBe("Kept");
  });

  it("when the new sector does not exist, then 422 value_error on sector_id and nothing changes", async () => {
    const id = await createAutomation(hub, { name: "Kept", sector_id: sector.id });

    const result = await hub.client.put(
      `/automations/${id}`,
      { name: "Moved", description: "", sector_id: "00000000-0000-4000-8000-000000000000", max_concurrent_jobs: 1, parameters: [] },
      asAdmin(),
    );

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body", "sector_id"], msg: expect.any(String), type: "value_error" }]);
    expect((await hub.client.get(`/automations/${id}`, asAdmin())).body).toMatchObject({ name: "Kept", sector: { id: sector.id } });
    expect((await eventsOf(hub, id)).map((event) => event.eventType)).toEqual(["automation.created"]);
  });

  it("when the automation does not exist, then 404", async () => {
    const result = await hub.client.put(
      "/automations/00000000-0000-4000-8000-000000000000",
      { name: "Ghost", description: "", sector_id: sector.id, max_concurrent_jobs: 1, parameters: [] },
      asAdmin(),
    );

    expect(result.status).toBe(404);
  });

  it("when max_concurrent_jobs is raised, then waiting claims of the automation are woken", async () => {
    const id = await createAutomation(hub, { sector_id: sector.id, max_concurrent_jobs: 1 });
    const wakes = await listenForWakes(hub);
    try {
      const woken = wakes.next(id);

      const result = await hub.client.put(
        `/automations/${id}`,
        { name: "An automation", description: "", sector_id: sector.id, max_concurrent_jobs: 3, parameters: [] },
        asAdmin(),
      );

      expect(result.status).toBe(200);
      expect(result.body.max_concurrent_jobs).toBe(3);
      await woken;
      expect((await eventsOf(hub, id)).at(-1)?.payload).toEqual({ max_concurrent_jobs: 3 });
    } finally {
      wakes.close();
    }
  });
});

describe("DELETE /automations/{automation_id} (deactivate)", () => {
  it("when an active automation is deactivated, then 204, it stays readable inactive, its queued jobs are cancelled and running ones are left", async () => {
    const id = await createAutomation(hub, { sector_id: sector.id, max_concurrent_jobs: 5 });
    const worker = await withTransaction(hub.api.ctx.database.pool, (tx) =>
      workers.register(tx, { automationId: id, cloudInstanceId: "vm-1", apiKeyHash: uniqueSlug("hash") }),
    );
    const running = await insertQueuedJob(hub, id, admin);
    await jobs.claim(hub.api.ctx.database.pool, { automationId: id, workerId: worker.id, maxJobs: 1, candidateIds: [running.id], leaseSeconds: 60 });
    const queued = [await insertQueuedJob(hub, id, admin), await insertQueuedJob(hub, id, admin)];
    await hub.api.ctx.dispatch.ready.offer(queued);

    const result = await hub.client.delete(`/automations/${id}`, asAdmin());

    expect(result.status).toBe(204);
    expect((await hub.client.get(`/automations/${id}`, asEmployee())).body).toMatchObject({ id, is_active: false });
    for (const job of queued) {
      expect((await jobs.find(hub.api.ctx.database.pool, EVERYWHERE, job.id))?.status).toBe("cancelled");
      expect((await eventsOf(hub, job.id)).map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
        ["job.created", admin, expect.any(Object)],
        ["job.cancelled", admin, { automation_id: id, reason: "automation_deactivated" }],
      ]);
    }
    expect((await jobs.find(hub.api.ctx.database.pool, EVERYWHERE, running.id))?.status).toBe("running");
    expect((await eventsOf(hub, id)).map((event) => [event.eventType, event.actorId, event.payload]).at(-1)).toEqual(["automation.deactivated", admin, {}]);
    expect(await hub.api.ctx.dispatch.ready.candidates(id, 10)).toEqual([]);
  });

  it("when an automation is deactivated twice, then both answer 204 and one event is recorded", async () => {
    const id = await createAutomation(hub, { sector_id: sector.id });

    const first = await hub.client.delete(`/automations/${id}`, asAdmin());
    const second = await hub.client.delete(`/automations/${id}`, asAdmin());

    expect([first.status, second.status]).toEqual([204, 204]);
    expect((await eventsOf(hub, id)).map((event) => event.eventType)).toEqual(["automation.created", "automation.deactivated"]);
  });

  it("when the automation does not exist, then 404", async () => {
    const result = await hub.client.delete("/automations/00000000-0000-4000-8000-000000000000", asAdmin());

    expect(result.status).toBe(404);
  });

  it("when jobs of another automation are queued, then deactivation leaves them queued", async () => {
    const target = await createAutomation(hub, { sector_id: sector.id });
    const bystander = await createAutomation(hub, { sector_id: sector.id });
    const bystanderJob = await insertQueuedJob(hub, bystander, admin);

    await hub.client.delete(`/automations/${target}`, asAdmin());

    const [row] = await hub.api.ctx.database.db.select({ status: schema.jobs.status }).from(schema.jobs).where(eq(schema.jobs.id, bystanderJob.id));
    expect(row?.status).toBe("queued");
  });
});

describe("development mode", () => {
  it("when development mode is entered twice and left twice, then each answers 204, the flag follows, and one event per change", async () => {
    const id = await createAutomation(hub, { sector_id: sector.id });
    const flag = async () => (await hub.client.get(`/automations/${id}`, asAdmin())).body.is_development as boolean;

    const entered = [
      await hub.client.post(`/automations/${id}/development-mode`, undefined, asAdmin()),
      await hub.client.post(`/automations/${id}/development-mode`, undefined, asAdmin()),
    ];
    const whileIn = await flag();
    const left = [
      await hub.client.delete(`/automations/${id}/development-mode`, asAdmin()),
      await hub.client.delete(`/automations/${id}/development-mode`, asAdmin()),
    ];

    expect([...entered, ...left].map((answer) => answer.status)).toEqual([204, 204, 204, 204]);
    expect(whileIn).toBe(true);
    expect(await flag()).toBe(false);
    expect((await eventsOf(hub, id)).map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
      ["automation.created", admin, expect.any(Object)],
      ["automation.development_mode_entered", admin, {}],
      ["automation.development_mode_exited", admin, {}],
    ]);
  });

  it("when development mode is left, then waiting claims of the automation are woken", async () => {
    const id = await createAutomation(hub, { sector_id: sector.id });
    await hub.client.post(`/automations/${id}/development-mode`, undefined, asAdmin());
    const wakes = await listenForWakes(hub);
    try {
      const woken = wakes.next(id);

      const result = await hub.client.delete(`/automations/${id}/development-mode`, asAdmin());

      expect(result.status).toBe(204);
      await woken;
    } finally {
      wakes.close();
    }
  });

  it("when the automation does not exist, then both calls answer 404", async () => {
    const ghost = "/automations/00000000-0000-4000-8000-000000000000/development-mode";

    expect((await hub.client.post(ghost, undefined, asAdmin())).status).toBe(404);
    expect((await hub.client.delete(ghost, asAdmin())).status).toBe(404);
  });
});
