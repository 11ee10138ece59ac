/**
 * CONTRACT §6.9, the records: creating, reading, listing, replacing and deleting schedules, their
 * validation and roles, and deactivation disabling them. Firing is in schedules-firing.test.ts.
 * This hub leaves HUB_SCHEDULES_ALLOW_SECONDS unset, so a seconds field is refused here.
 */
import { resolveSchema } from "./openapi-fixtures";
import { beforeAll, describe, expect, it } from "vitest";
import { adminId, createAutomation, createSector, eventsOf } from "./automation-fixtures";
import { useTestHub, type TestUser } from "./harness";

const hub = useTestHub();
let employee: TestUser;
let admin: string;
let sectorId: string;

beforeAll(async () => {
  employee = await hub.createUser("employee");
  admin = await adminId(hub);
  sectorId = (await createSector(hub)).id;
});

const asAdmin = () => ({ token: hub.adminToken });
const asEmployee = () => ({ token: employee.token });
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** An automation with one parameter, `month`. */
const newAutomation = () => createAutomation(hub, { sector_id: sectorId, parameters: [{ name: "month", description: "YYYY-MM" }] });

async function createSchedule(automationId: string, body: Record<string, unknown>): Promise<string> {
  const created = await hub.client.post<{ id: string }>(`/automations/${automationId}/schedules`, body, asAdmin());
  if (created.status !== 201) throw new Error(`schedule not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

const readSchedule = async (id: string) => (await hub.client.get(`/schedules/${id}`, asAdmin())).body;

/** The wall-clock time of `iso` in `timeZone`, as "HH:MM". */
function localTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(iso));
}

describe("POST /automations/{automation_id}/schedules", () => {
  it("when only the cron is sent, then 201 and the record holds the defaults, the next fire and a schedule.created event", async () => {
    const automationId = await createAutomation(hub, { sector_id: sectorId });

    const created = await hub.client.post(`/automations/${automationId}/schedules`, { cron: "@yearly" }, asAdmin());

    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(["id"]);
    const record = await readSchedule(created.body.id);
    const nextNewYear = `${new Date().getUTCFullYear() + 1}-01-01T00:00:00.000Z`;
    expect(record).toEqual({
      id: created.body.id,
      automation_id: automationId,
      key: null,
      cron: "@yearly",
      timezone: "UTC",
      context: {},
      priority: 0,
      enabled: true,
      overlap: "skip",
      description: "",
      next_run_at: nextNewYear,
      last_run_at: null,
      last_job_id: null,
      created_at: expect.stringMatching(ISO_TIME),
    });
    const [event] = await eventsOf(hub, created.body.id);
    expect(event).toMatchObject({
      eventType: "schedule.created",
      actorId: admin,
      payload: {
        automation_id: automationId,
        key: null,
        cron: "@yearly",
        timezone: "UTC",
        context: {},
        priority: 0,
        enabled: true,
        overlap: "skip",
        description: "",
      },
    });
  });

  it("when a time zone is given, then it is returned exactly as sent and the next fire is that zone's wall-clock time", async () => {
    const automationId = await newAutomation();

    const id = await createSchedule(automationId, {
      cron: "30 6 * * *",
      timezone: "US/Eastern",
      context: { month: "2026-10", extra: 1 },
      priority: 7,
      overlap: "allow",
      key: "morning-export",
      description: "Every morning",
    });

    const record = await readSchedule(id);
    expect(record).toMatchObject({
      timezone: "US/Eastern",
      context: { month: "2026-10", extra: 1 },
      priority: 7,
      overlap: "allow",
      key: "morning-export",
      description: "Every morning",
    });
    expect(localTime(record.next_run_at, "America/New_York")).toBe("06:30");
    expect(new Date(record.next_run_at).getTime()).toBeGreaterThan(Date.now());
    expect(new Date(record.next_run_at).getTime()).toBeLessThanOrEqual(Date.now() + 25 * 3600_000);
  });

  it("when created disabled, then next_run_at is null", async () => {
    const id = await createSchedule(await newAutomation(), { cron: "0 * * * *", context: { month: "2026-10" }, enabled: false });

    expect(await readSchedule(id)).toMatchObject({ enabled: false, next_run_at: null });
  });

  it("when the key is taken on the same automation, then 409; another automation may use it", async () => {
    const automationId = await newAutomation();
    await createSchedule(automationId, { cron: "@daily", context: { month: "x" }, key: "deploy-key" });

    const again = await hub.client.post(`/automations/${automationId}/schedules`, { cron: "@hourly", context: { month: "y" }, key: "deploy-key" }, asAdmin());
    const elsewhere = await hub.client.post(
      `/automations/${await newAutomation()}/schedules`,
      { cron: "@daily", context: { month: "x" }, key: "deploy-key" },
      asAdmin(),
    );

    expect(again.status).toBe(409);
    expect(again.body.detail).toContain("deploy-key");
    expect(elsewhere.status).toBe(201);
    const listed = await hub.client.get(`/automations/${automationId}/schedules`, asAdmin());
    expect(listed.body.map((schedule: { cron: string }) => schedule.cron)).toEqual(["@daily"]);
  });

  it("when the automation is unknown, then 404; deactivated, then 409; and nothing is created", async () => {
    const automationId = await newAutomation();
    expect((await hub.client.delete(`/automations/${automationId}`, asAdmin())).status).toBe(204);

    const unknown = await hub.client.post(`/automations/${crypto.randomUUID()}/schedules`, { cron: "@daily" }, asAdmin());
    const inactive = await hub.client.post(`/automations/${automationId}/schedules`, { cron: "@daily", context: { month: "x" } }, asAdmin());

    expect(unknown.status).toBe(404);
    expect(inactive.status).toBe(409);
    expect((await hub.client.get(`/schedules?automation_id=${automationId}`, asAdmin())).body).toEqual([]);
  });

  it("when the shape is wrong in several ways, then one 422 lists every problem and nothing is created", async () => {
    const automationId = await newAutomation();

    const refused = await hub.client.post(
      `/automations/${automationId}/schedules`,
      { cron: "0 0 L * *", timezone: "+01:00", priority: 101, overlap: "never", enabled: 3, key: "" },
      asAdmin(),
    );

    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual(
      expect.arrayContaining([
        { loc: ["body", "cron"], type: "value_error", msg: expect.stringMatching(/^Value error, .*day-of-month/) },
        { loc: ["body", "timezone"], type: "value_error", msg: expect.stringContaining("UTC offset") },
        { loc: ["body", "priority"], type: "less_than_equal", msg: "Input should be less than or equal to 100" },
        { loc: ["body", "overlap"], type: "enum", msg: "Input should be 'skip' or 'allow'" },
        { loc: ["body", "enabled"], type: "bool_type", msg: "Input should be a valid boolean" },
        { loc: ["body", "key"], type: "string_too_short", msg: "String should have at least 1 character" },
      ]),
    );
    expect(refused.body.detail).toHaveLength(6);
    expect((await hub.client.get(`/automations/${automationId}/schedules`, asAdmin())).body).toEqual([]);
  });

  it.each([
    ["a missing cron", {}, ["body", "cron"], "missing"],
    ["a seconds field on a hub that does not allow it", { cron: "*/5 * * * * *" }, ["body", "cron"], "value_error"],
    ["an expression with no fire time in the next 4 years", { cron: "0 0 30 2 *" }, ["body", "cron"], "value_error"],
    ["an unknown nickname", { cron: "@reboot" }, ["body", "cron"], "value_error"],
    ["an unknown time zone", { cron: "@daily", timezone: "Mars/Olympus_Mons" }, ["body", "timezone"], "value_error"],
    ["a context that is not an object", { cron: "@daily", context: ["2026-10"] }, ["body", "context"], "dict_type"],
  ])("when the body has %s, then 422 at that field", async (_case, body, loc, type) => {
    const refused = await hub.client.post(`/automations/${await newAutomation()}/schedules`, { context: { month: "x" }, ...body }, asAdmin());

    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([{ loc, type, msg: expect.any(String) }]);
  });

  it("when the context misses a parameter and the cron has a seconds field, then both are reported, as POST /jobs reports a context", async () => {
    const refused = await hub.client.post(`/automations/${await newAutomation()}/schedules`, { cron: "0 0 6 * * *", context: { other: 1 } }, asAdmin());

    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      { loc: ["body", "cron"], type: "value_error", msg: expect.stringContaining("seconds field is not enabled") },
      { loc: ["body", "context", "month"], type: "missing", msg: "Field required" },
    ]);
  });

  it("when the path id is not a uuid, then 422 at the path", async () => {
    const refused = await hub.client.post("/automations/not-a-uuid/schedules", { cron: "@daily" }, asAdmin());

    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([{ loc: ["path", "automation_id"], type: "uuid_parsing", msg: "Input should be a valid UUID" }]);
  });
});

describe("roles", () => {
  it("when an employee creates, replaces or deletes a schedule, then 403 and nothing changes; reading is allowed", async () => {
    const automationId = await newAutomation();
    const id = await createSchedule(automationId, { cron: "@daily", context: { month: "x" } });
    const before = await readSchedule(id);

    const created = await hub.client.post(`/automations/${automationId}/schedules`, { cron: "@hourly", context: { month: "x" } }, asEmployee());
    const replaced = await hub.client.put(`/schedules/${id}`, { cron: "@hourly", context: { month: "x" } }, asEmployee());
    const deleted = await hub.client.delete(`/schedules/${id}`, asEmployee());

    expect([created.status, replaced.status, deleted.status]).toEqual([403, 403, 403]);
    expect(await readSchedule(id)).toEqual(before);
    expect((await hub.client.get(`/schedules/${id}`, asEmployee())).status).toBe(200);
    expect((await hub.client.get(`/schedules?automation_id=${automationId}`, asEmployee())).body).toHaveLength(1);
    expect((await hub.client.get(`/automations/${automationId}/schedules`, asEmployee())).body).toHaveLength(1);
  });
});

describe("GET /schedules and GET /automations/{automation_id}/schedules", () => {
  it("when filtered by automation and enabled and paged, then oldest first with a Link to each next page", async () => {
    const automationId = await newAutomation();
    const ids: string[] = [];
    for (const enabled of [true, false, true, true, false]) ids.push(await createSchedule(automationId, { cron: "@daily", context: { month: "x" }, enabled }));

    const all = await hub.client.get(`/schedules?automation_id=${automationId}`, asAdmin());
    const enabled = await hub.client.get(`/schedules?automation_id=${automationId}&enabled=true`, asAdmin());
    const disabled = await hub.client.get(`/automations/${automationId}/schedules?enabled=false`, asAdmin());
    const first = await hub.client.get(`/automations/${automationId}/schedules?limit=2`, asAdmin());
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get("link") ?? "")?.[1];
    const second = await hub.client.get(link!, asAdmin());

    expect(all.body.map((schedule: { id: string }) => schedule.id)).toEqual(ids);
    expect(all.headers.get("link")).toBeNull();
    expect(enabled.body.map((schedule: { id: string }) => schedule.id)).toEqual([ids[0], ids[2], ids[3]]);
    expect(disabled.body.map((schedule: { id: string }) => schedule.id)).toEqual([ids[1], ids[4]]);
    expect(first.body.map((schedule: { id: string }) => schedule.id)).toEqual(ids.slice(0, 2));
    expect(link).toMatch(new RegExp(`^/automations/${automationId}/schedules\\?limit=2&cursor=`));
    expect(second.body.map((schedule: { id: string }) => schedule.id)).toEqual(ids.slice(2, 4));
  });

  it("when the automation is unknown, then its list is 404; an unknown query parameter is 422", async () => {
    const unknown = await hub.client.get(`/automations/${crypto.randomUUID()}/schedules`, asAdmin());
    const misspelt = await hub.client.get("/schedules?enable=true", asAdmin());

    expect(unknown.status).toBe(404);
    expect(misspelt.status).toBe(422);
    expect(misspelt.body.detail).toEqual([{ loc: ["query", "enable"], type: "extra_forbidden", msg: "Extra inputs are not permitted" }]);
  });
});

describe("PUT /schedules/{schedule_id}", () => {
  it("when settings change, then 200 with the record and one schedule.updated with only the changed fields; omitted fields take their defaults", async () => {
    const id = await createSchedule(await newAutomation(), {
      cron: "@daily",
      context: { month: "2026-10" },
      key: "nightly",
      description: "Nightly",
      priority: 3,
    });

    const replaced = await hub.client.put(`/schedules/${id}`, { cron: "@daily", context: { month: "2026-11" }, priority: 3 }, asAdmin());

    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id, cron: "@daily", context: { month: "2026-11" }, key: null, description: "", priority: 3 });
    expect(replaced.body).toEqual(await readSchedule(id));
    const updates = (await eventsOf(hub, id)).filter((event) => event.eventType === "schedule.updated");
    expect(updates.map((event) => event.payload)).toEqual([{ context: { month: "2026-11" }, key: null, description: "" }]);
    expect(updates[0]!.actorId).toBe(admin);
  });

  it("when the PUT changes nothing, then 200 and no event", async () => {
    const body = { cron: "15 4 * * *", timezone: "Europe/Berlin", context: { month: "x", nested: { a: 1, b: [1, 2] } }, key: "same" };
    const id = await createSchedule(await newAutomation(), body);
    const before = await readSchedule(id);

    const replaced = await hub.client.put(`/schedules/${id}`, { ...body, context: { nested: { b: [1, 2], a: 1 }, month: "x" } }, asAdmin());

    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual(before);
    expect((await eventsOf(hub, id)).map((event) => event.eventType)).toEqual(["schedule.created"]);
  });

  it("when disabled and enabled again, then next_run_at is null while disabled and the next fire after now once enabled", async () => {
    const id = await createSchedule(await newAutomation(), { cron: "0 0 1 1 *", context: { month: "x" } });

    const disabled = await hub.client.put(`/schedules/${id}`, { cron: "0 0 1 1 *", context: { month: "x" }, enabled: false }, asAdmin());
    const enabled = await hub.client.put(`/schedules/${id}`, { cron: "0 0 1 1 *", context: { month: "x" }, enabled: true }, asAdmin());

    expect(disabled.body).toMatchObject({ enabled: false, next_run_at: null });
    expect(enabled.body).toMatchObject({ enabled: true, next_run_at: `${new Date().getUTCFullYear() + 1}-01-01T00:00:00.000Z` });
    const updates = (await eventsOf(hub, id)).filter((event) => event.eventType === "schedule.updated");
    expect(updates.map((event) => event.payload)).toEqual([{ enabled: false }, { enabled: true }]);
  });

  it("when the key is taken by another schedule, then 409; an invalid body, 422; unknown, 404", async () => {
    const automationId = await newAutomation();
    await createSchedule(automationId, { cron: "@daily", context: { month: "x" }, key: "first" });
    const id = await createSchedule(automationId, { cron: "@daily", context: { month: "x" }, key: "second" });

    const taken = await hub.client.put(`/schedules/${id}`, { cron: "@daily", context: { month: "x" }, key: "first" }, asAdmin());
    const invalid = await hub.client.put(`/schedules/${id}`, { cron: "@daily", context: {} }, asAdmin());
    const unknown = await hub.client.put(`/schedules/${crypto.randomUUID()}`, { cron: "@daily" }, asAdmin());

    expect(taken.status).toBe(409);
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail).toEqual([{ loc: ["body", "context", "month"], type: "missing", msg: "Field required" }]);
    expect(unknown.status).toBe(404);
    expect(await readSchedule(id)).toMatchObject({ key: "second" });
  });
});

describe("DELETE /schedules/{schedule_id}", () => {
  it("when deleted, then 204, it is gone from reads, a second delete is 404, and its key is free again", async () => {
    const automationId = await newAutomation();
    const id = await createSchedule(automationId, { cron: "@daily", context: { month: "x" }, key: "reused" });

    const deleted = await hub.client.delete(`/schedules/${id}`, asAdmin());

    expect(deleted.status).toBe(204);
    expect((await hub.client.get(`/schedules/${id}`, asAdmin())).status).toBe(404);
    expect((await hub.client.put(`/schedules/${id}`, { cron: "@daily", context: { month: "x" } }, asAdmin())).status).toBe(404);
    expect((await hub.client.delete(`/schedules/${id}`, asAdmin())).status).toBe(404);
    expect((await hub.client.get(`/schedules?automation_id=${automationId}`, asAdmin())).body).toEqual([]);
    expect((await eventsOf(hub, id)).map((event) => [event.eventType, event.payload])).toEqual([
      ["schedule.created", expect.anything()],
      ["schedule.deleted", {}],
    ]);
    expect(await createSchedule(automationId, { cron: "@daily", context: { month: "x" }, key: "reused" })).not.toBe(id);
  });
});

describe("deactivating the automation", () => {
  it("when the automation is deactivated, then its enabled schedules are disabled with schedule.updated {enabled: false}, and enabling one is 409", async () => {
    const automationId = await newAutomation();
    const enabledIds = [
      await createSchedule(automationId, { cron: "@daily", context: { month: "x" } }),
      await createSchedule(automationId, { cron: "@hourly", context: { month: "x" } }),
    ];
    const alreadyDisabled = await createSchedule(automationId, { cron: "@daily", context: { month: "x" }, enabled: false });

    expect((await hub.client.delete(`/automations/${automationId}`, asAdmin())).status).toBe(204);

    for (const id of enabledIds) {
      expect(await readSchedule(id)).toMatchObject({ enabled: false, next_run_at: null });
      expect((await eventsOf(hub, id)).map((event) => [event.eventType, event.payload, event.actorId])).toEqual([
        ["schedule.created", expect.anything(), admin],
        ["schedule.updated", { enabled: false }, admin],
      ]);
    }
    expect((await eventsOf(hub, alreadyDisabled)).map((event) => event.eventType)).toEqual(["schedule.created"]);
    const enabling = await hub.client.put(`/schedules/${enabledIds[0]}`, { cron: "@daily", context: { month: "x" } }, asAdmin());
    expect(enabling.status).toBe(409);
    const keptDisabled = await hub.client.put(
      `/schedules/${enabledIds[0]}`,
      { cron: "@daily", context: { month: "x" }, enabled: false, description: "paused" },
      asAdmin(),
    );
    expect(keptDisabled.status).toBe(200);
  });
});

describe("GET /openapi.json", () => {
  it("when read, then the schedule endpoints are there with their rules, the body's defaults and examples", async () => {
    const document = await hub.client.get("/openapi.json");

    const create = document.body.paths["/automations/{automation_id}/schedules"].post;
    expect(create.description).toContain("exactly one job");
    const resolve = (schema: any) => resolveSchema(document.body, schema);
    const body = resolve(create.requestBody.content["application/json"].schema);
    expect(body.required).toEqual(["cron"]);
    // Request defaults are stated in the description (CONTRACT §6.21: not `required` for generated clients).
    expect(body.properties.timezone).toMatchObject({ type: "string", examples: expect.arrayContaining(["Europe/Berlin"]) });
    expect(body.properties.timezone.description).toContain('Default: `"UTC"`');
    expect(body.properties.overlap).toMatchObject({ enum: ["skip", "allow"] });
    expect(body.properties.overlap.description).toContain('Default: `"skip"`');
    expect(body.properties.cron.description).toContain("@yearly");
    expect(Object.keys(document.body.paths["/schedules/{schedule_id}"])).toEqual(expect.arrayContaining(["get", "put", "delete"]));
    expect(document.body.paths["/schedules"].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(
      expect.arrayContaining(["automation_id", "enabled", "limit", "cursor"]),
    );
    expect(
      resolve(document.body.paths["/schedules/{schedule_id}"].get.responses["200"].content["application/json"].schema).properties.next_run_at,
    ).toBeDefined();
  });
});
