import { randomBytes, randomUUID } from "node:crypto";
import { resolveSchema } from "./openapi-fixtures";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { useTestHub } from "./harness";

const hub = useTestHub();
let employeeToken: string;
beforeAll(async () => {
  employeeToken = (await hub.createUser("employee")).token;
});

/** An event type no other test uses, so each test sees only its own rows. */
const uniqueType = () => `test.${randomBytes(5).toString("hex")}`;

interface SeededEvent {
  aggregateId?: string;
  createdAt: string;
  id?: string;
  dispatchedAt?: string;
  payload?: Record<string, unknown>;
}

async function seed(eventType: string, rows: SeededEvent[]) {
  await hub.api.ctx.database.db.insert(schema.events).values(
    rows.map((row) => ({
      id: row.id ?? randomUUID(),
      aggregateId: row.aggregateId ?? randomUUID(),
      eventType,
      actorId: null,
      payload: row.payload ?? {},
      createdAt: new Date(row.createdAt),
      dispatchedAt: row.dispatchedAt ? new Date(row.dispatchedAt) : null,
    })),
  );
}

const list = (query: string, token = employeeToken) => hub.client.get(`/events?${query}`, { token });

describe("GET /events", () => {
  it("when a sector is created, then an employee reads its sector.created event in the contract's shape", async () => {
    const admin = await hub.client.get("/identity/me", { token: hub.adminToken });
    const sector = await hub.client.post("/sectors", { name: `Events ${randomBytes(3).toString("hex")}`, color: "#00AA00" }, { token: hub.adminToken });

    const result = await list(`aggregate_id=${sector.body.id}`);

    expect(result.status).toBe(200);
    expect(result.body).toEqual([
      {
        id: expect.any(String),
        aggregate_id: sector.body.id,
        event_type: "sector.created",
        actor_id: admin.body.id,
        payload: { name: expect.stringMatching(/^Events /), color: "#00AA00" },
        dispatched_at: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
    ]);
  });

  it("when events were created out of order, then they come back oldest first, ties broken by id", async () => {
    const type = uniqueType();
    const [low, high] = [randomUUID(), randomUUID()].sort();
    await seed(type, [
      { createdAt: "2026-01-01T10:00:02.000Z", payload: { n: 3 } },
      { createdAt: "2026-01-01T10:00:01.000Z", id: high, payload: { n: 2 } },
      { createdAt: "2026-01-01T10:00:00.000Z", payload: { n: 0 } },
      { createdAt: "2026-01-01T10:00:01.000Z", id: low, payload: { n: 1 } },
    ]);

    const result = await list(`event_type=${type}`);

    expect(result.body.map((event: { payload: { n: number } }) => event.payload.n)).toEqual([0, 1, 2, 3]);
  });

  it("when since and until are given, then since is inclusive and until exclusive", async () => {
    const type = uniqueType();
    await seed(type, [
      { createdAt: "2026-02-01T09:59:59.999Z", payload: { n: 0 } },
      { createdAt: "2026-02-01T10:00:00.000Z", payload: { n: 1 } },
      { createdAt: "2026-02-01T10:30:00.000Z", payload: { n: 2 } },
      { createdAt: "2026-02-01T11:00:00.000Z", payload: { n: 3 } },
    ]);

    const result = await list(`event_type=${type}&since=2026-02-01T10:00:00Z&until=2026-02-01T11:00:00Z`);
    const withOffset = await list(`event_type=${type}&since=${encodeURIComponent("2026-02-01T12:00:00+02:00")}`);

    expect(result.body.map((event: { payload: { n: number } }) => event.payload.n)).toEqual([1, 2]);
    expect(withOffset.body.map((event: { payload: { n: number } }) => event.payload.n)).toEqual([1, 2, 3]);
  });

  it("when aggregate_id and event_type are combined, then only events matching both are returned", async () => {
    const type = uniqueType();
    const aggregateId = randomUUID();
    await seed(type, [
      { aggregateId, createdAt: "2026-03-01T00:00:00Z", payload: { n: 1 } },
      { createdAt: "2026-03-01T00:00:01Z", payload: { n: 2 } },
    ]);
    await seed(uniqueType(), [{ aggregateId, createdAt: "2026-03-01T00:00:02Z", payload: { n: 3 } }]);

    const result = await list(`event_type=${type}&aggregate_id=${aggregateId}`);

    expect(result.body.map((event: { payload: { n: number } }) => event.payload.n)).toEqual([1]);
  });

  it("when aggregate_type is given, then only the catalogue's events about that kind of aggregate are returned", async () => {
    const sector = await hub.client.post("/sectors", { name: `Kinds ${randomBytes(3).toString("hex")}`, color: "#00AA00" }, { token: hub.adminToken });
    const since = (await list(`aggregate_id=${sector.body.id}`)).body[0].created_at;
    await seed(uniqueType(), [{ createdAt: new Date(Date.parse(since) + 1).toISOString() }]);

    const sectors = await list(`aggregate_type=sector&since=${since}`);
    const jobs = await list(`aggregate_type=job&aggregate_id=${sector.body.id}`);
    const unknown = await list("aggregate_type=planet");

    expect(sectors.body.map((event: { event_type: string }) => event.event_type)).toEqual(["sector.created"]);
    expect(jobs.body).toEqual([]);
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ["query", "aggregate_type"], type: "enum" });
  });

  it("when an event was dispatched, then dispatched_at is its ISO time", async () => {
    const type = uniqueType();
    await seed(type, [{ createdAt: "2026-04-01T00:00:00Z", dispatchedAt: "2026-04-01T00:00:00.250Z" }]);

    const result = await list(`event_type=${type}`);

    expect(result.body[0].dispatched_at).toBe("2026-04-01T00:00:00.250Z");
  });

  it("when no limit is given, then at most 200 events are returned; limit raises it up to 1000", async () => {
    const type = uniqueType();
    const base = Date.parse("2026-05-01T00:00:00Z");
    await seed(
      type,
      Array.from({ length: 205 }, (_, n) => ({ createdAt: new Date(base + n * 1000).toISOString(), payload: { n } })),
    );

    const byDefault = await list(`event_type=${type}`);
    const raised = await list(`event_type=${type}&limit=1000`);
    const lowered = await list(`event_type=${type}&limit=1`);

    expect(byDefault.body).toHaveLength(200);
    expect(byDefault.body[199].payload.n).toBe(199);
    expect(raised.body).toHaveLength(205);
    expect(lowered.body.map((event: { payload: { n: number } }) => event.payload.n)).toEqual([0]);
  });

  it("when the event_type matches nothing (or is empty), then an empty array", async () => {
    expect((await list("event_type=no.such.type")).body).toEqual([]);
    expect((await list("event_type=")).body).toEqual([]);
  });

  it("when an admin asks, then the log is readable too", async () => {
    const result = await list("limit=1", hub.adminToken);

    expect(result.status).toBe(200);
    expect(result.body).toHaveLength(1);
  });

  it("when every filter is invalid, then 422 reports each with pydantic's type", async () => {
    const result = await list("aggregate_id=42&since=yesterday&until=2026-13-45T99:00:00Z&limit=0");

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["query", "aggregate_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" },
      { loc: ["query", "since"], msg: "Input should be a valid datetime, invalid datetime format", type: "datetime_parsing" },
      { loc: ["query", "until"], msg: "Input should be a valid datetime, invalid datetime format", type: "datetime_parsing" },
      { loc: ["query", "limit"], msg: "Input should be greater than or equal to 1", type: "greater_than_equal" },
    ]);
  });

  it("when since names a day its month does not have, then 422 rather than a silent roll-over into the next month", async () => {
    const result = await list("since=2026-02-30T00:00:00Z");

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["query", "since"], msg: "Input should be a valid datetime, day value is outside expected range", type: "datetime_parsing" },
    ]);
  });

  it("when /openapi.json is read, then /events documents its optional filters, limit's default and date-time bounds", async () => {
    const document = await hub.client.get("/openapi.json");

    const parameters = document.body.paths["/events"].get.parameters as { name: string; required: boolean; schema: Record<string, unknown> }[];
    expect(parameters.map((parameter) => [parameter.name, parameter.required])).toEqual([
      ["aggregate_id", false],
      ["event_type", false],
      ["aggregate_type", false],
      ["since", false],
      ["until", false],
      ["limit", false],
      ["cursor", false],
    ]);
    expect(parameters.find((parameter) => parameter.name === "since")?.schema).toMatchObject({ type: "string", format: "date-time" });
    expect(parameters.find((parameter) => parameter.name === "limit")?.schema).toMatchObject({ type: "integer", default: 200, minimum: 1, maximum: 1000 });
  });

  it("when /openapi.json is read, then GET /events documents every event type of the catalogue with its own payload", async () => {
    const document = await hub.client.get("/openapi.json");

    const variants = resolveSchema(document.body, document.body.paths["/events"].get.responses["200"].content["application/json"].schema.items).oneOf as any[];
    const byType = new Map(
      variants
        .map((variant) => resolveSchema(document.body, variant))
        .map((variant) => [
          variant.properties.event_type.const,
          { ...variant, properties: { ...variant.properties, payload: resolveSchema(document.body, variant.properties.payload) } },
        ]),
    );
    expect([...byType.keys()]).toEqual(
      expect.arrayContaining(["job.created", "job.requeued", "user.created", "webhook.created", "api_key.revoked", "schedule.skipped"]),
    );
    expect(byType.get("job.requeued").properties.payload).toMatchObject({
      properties: {
        reason: { enum: ["lease_expired", "retryable_failure", "timeout", "worker_unregistered", "worker_key_rotated"] },
        available_at: { format: "date-time" },
      },
      required: expect.arrayContaining(["automation_id", "reason", "attempts", "available_at"]),
    });
    expect(byType.get("job.created").properties.payload.required).toEqual(["automation_id", "context"]);
    expect(byType.get("user.created").description).toBe("user.created (admins only)");
  });

  it.each([
    ["1001", { type: "less_than_equal", msg: "Input should be less than or equal to 1000" }],
    ["ten", { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" }],
    ["2.5", { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" }],
  ])("when limit is %s, then 422 %o", async (limit, issue) => {
    const result = await list(`limit=${limit}`);

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["query", "limit"], ...issue }]);
  });

  it("when since or until fall outside years 1–9999 (year 0, or past 9999 once in UTC), then 422 datetime_parsing, not a database error", async () => {
    for (const query of ["since=0000-01-01T00:00:00Z", "until=0001-01-01T00:30:00%2B01:00", "since=9999-12-31T23:59:59-14:00"]) {
      const result = await list(query);

      expect(result.status, query).toBe(422);
      expect(result.body.detail).toEqual([expect.objectContaining({ loc: ["query", query.split("=")[0]], type: "datetime_parsing" })]);
    }
    expect((await list("since=0001-01-01T00:00:00Z&until=9999-12-31T23:59:59Z")).status).toBe(200);
  });

  it("when no token is sent, then 401 with WWW-Authenticate: Bearer", async () => {
    const result = await hub.client.get("/events");

    expect(result.status).toBe(401);
    expect(result.headers.get("www-authenticate")).toBe("Bearer");
  });
});

describe("GET /events: what an employee may read (CONTRACT §6.1)", () => {
  /** A window of time no other test seeds into, with admin-only events between visible ones. */
  async function seedMixedWindow() {
    const aggregateId = randomUUID();
    const day = "1987-06-15";
    const at = (second: number) => ({ aggregateId, createdAt: `${day}T10:00:${String(second).padStart(2, "0")}.000Z` });
    await seed("user.created", [at(0), at(1)]);
    await seed("job.created", [at(2)]);
    await seed("webhook.created", [at(3)]);
    await seed("api_key.created", [at(4)]);
    await seed("user.deactivated", [at(5)]);
    await seed("job.completed", [at(6)]);
    return { aggregateId, window: `since=${day}T00:00:00Z&until=${day}T23:59:59Z` };
  }
  const types = (body: { event_type: string }[]) => body.map((event) => event.event_type);

  it("when user, webhook and api_key events lie between job events, then an employee gets only the job events, and limit counts only those", async () => {
    const { window } = await seedMixedWindow();

    const all = await list(window);
    const firstTwo = await list(`${window}&limit=2`);
    const admin = await list(window, hub.adminToken);

    expect(all.status).toBe(200);
    expect(types(all.body)).toEqual(["job.created", "job.completed"]);
    // Filtered in SQL: a limit of 2 still reaches the second job event past five hidden ones.
    expect(types(firstTwo.body)).toEqual(["job.created", "job.completed"]);
    expect(types(admin.body)).toEqual([
      "user.created",
      "user.created",
      "job.created",
      "webhook.created",
      "api_key.created",
      "user.deactivated",
      "job.completed",
    ]);
  });

  it("when an employee filters by a hidden event_type or by the aggregate, then those events are left out (200, never 403)", async () => {
    const { aggregateId, window } = await seedMixedWindow();

    for (const eventType of ["user.created", "user.deactivated", "webhook.created", "api_key.created"]) {
      const result = await list(`${window}&event_type=${eventType}`);
      expect(result.status).toBe(200);
      expect(result.body).toEqual([]);
    }
    expect(types((await list(`aggregate_id=${aggregateId}`)).body)).toEqual(["job.created", "job.completed"]);
    expect(types((await list(`aggregate_id=${aggregateId}&event_type=user.created`, hub.adminToken)).body)).toEqual(["user.created", "user.created"]);
  });

  it("when a user is created, then its user.created event (with its e-mail) reaches admins only", async () => {
    const created = await hub.createUser("employee");

    const asEmployee = await list(`aggregate_id=${created.id}`);
    const asAdmin = await list(`aggregate_id=${created.id}`, hub.adminToken);

    expect(asEmployee.body).toEqual([]);
    expect(asAdmin.body).toEqual([expect.objectContaining({ event_type: "user.created", payload: { email: created.email, role: "employee" } })]);
    expect(JSON.stringify((await list("limit=1000")).body)).not.toContain(created.email);
  });
});
