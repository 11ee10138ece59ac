/**
 * Access for a company (CONTRACT §6.22): users' sector_ids, the reach a sector-scoped employee and
 * a scoped api key have, and how a change of sectors governs from the PATCH's answer. Data lives in
 * two sectors; the caller reaches one, and what is in the other answers as if it did not exist.
 */
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { createLogger } from "@hub/shared";
import { HubClient } from "@hub/testing";
import { startApi } from "../src/app";
import { createApiKey } from "./api-key-fixtures";
import { createAutomation, createSector, eventsOf } from "./automation-fixtures";
import { createJob } from "./job-fixtures";
import { useTestHub, type TestUser } from "./harness";

const hub = useTestHub();

interface SectorData {
  sectorId: string;
  automationId: string;
  jobId: string;
  scheduleId: string;
}

async function sectorWithData(): Promise<SectorData> {
  const sector = await createSector(hub);
  const automationId = await createAutomation(hub, { sector_id: sector.id });
  const jobId = await createJob(hub, automationId);
  const schedule = await hub.client.post(`/automations/${automationId}/schedules`, { cron: "@yearly" }, { token: hub.adminToken });
  expect(schedule.status).toBe(201);
  return { sectorId: sector.id, automationId, jobId, scheduleId: schedule.body.id };
}

let inside: SectorData;
let outside: SectorData;
let employee: TestUser;

async function setSectors(userId: string, sectorIds: string[] | null) {
  return hub.client.patch(`/identity/users/${userId}`, { sector_ids: sectorIds }, { token: hub.adminToken });
}

beforeAll(async () => {
  inside = await sectorWithData();
  outside = await sectorWithData();
  employee = await hub.createUser("employee");
  expect((await setSectors(employee.id, [inside.sectorId])).status).toBe(200);
});

const outsideIds = () => [outside.sectorId, outside.automationId, outside.jobId, outside.scheduleId];

function expectNoOutsideId(body: unknown): void {
  const text = JSON.stringify(body);
  for (const id of outsideIds()) expect(text).not.toContain(id);
}

describe("users' sector_ids", () => {
  it("when an admin sets an employee's sectors, then the record and /identity/me show them, user.sectors_changed is written once, and no credential is refused", async () => {
    const user = await hub.createUser("employee");

    const changed = await setSectors(user.id, [inside.sectorId]);
    const again = await setSectors(user.id, [inside.sectorId]);

    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: user.id, role: "employee", sector_ids: [inside.sectorId] });
    expect(again.status).toBe(200);
    const me = await hub.client.get("/identity/me", { token: user.token });
    expect(me.status).toBe(200);
    expect(me.body.sector_ids).toEqual([inside.sectorId]);
    const events = (await eventsOf(hub, user.id)).filter((event) => event.eventType === "user.sectors_changed");
    expect(events.map((event) => event.payload)).toEqual([{ user_id: user.id, from: null, to: [inside.sectorId] }]);
    const [row] = await hub.api.ctx.database.db
      .select({ generation: schema.users.credentialGeneration })
      .from(schema.users)
      .where(eq(schema.users.id, user.id));
    expect(row!.generation).toBe(0);
  });

  it("when a user is created with sector_ids, then it has them; without, it has null (every sector)", async () => {
    const created = await hub.client.post(
      "/identity/users",
      { email: `sectors-${Date.now()}@example.com`, password: "a long password", role: "employee", sector_ids: [outside.sectorId] },
      { token: hub.adminToken },
    );
    const plain = await hub.createUser("employee");

    expect(created.status).toBe(201);
    expect((await hub.client.get(`/identity/users/${created.body.id}`, { token: hub.adminToken })).body.sector_ids).toEqual([outside.sectorId]);
    expect((await hub.client.get(`/identity/users/${plain.id}`, { token: hub.adminToken })).body.sector_ids).toBeNull();
  });

  it("when sector_ids is empty, repeats an id or names an unknown sector, or the body has neither field, then 422 at the contract's loc and nothing changes", async () => {
    const user = await hub.createUser("employee");
    const unknown = "00000000-0000-4000-8000-000000000001";

    const empty = await setSectors(user.id, []);
    const repeated = await setSectors(user.id, [inside.sectorId, inside.sectorId]);
    const unknownSector = await setSectors(user.id, [inside.sectorId, unknown]);
    const neither = await hub.client.patch(`/identity/users/${user.id}`, {}, { token: hub.adminToken });

    expect(empty.status).toBe(422);
    expect(empty.body.detail).toEqual([expect.objectContaining({ loc: ["body", "sector_ids"], type: "too_short" })]);
    expect(repeated.body.detail).toEqual([expect.objectContaining({ loc: ["body", "sector_ids", 1], type: "value_error" })]);
    expect(unknownSector.body.detail).toEqual([expect.objectContaining({ loc: ["body", "sector_ids", 1], type: "value_error" })]);
    expect(neither.body.detail).toEqual([expect.objectContaining({ loc: ["body"], type: "value_error" })]);
    expect((await hub.client.get(`/identity/users/${user.id}`, { token: hub.adminToken })).body.sector_ids).toBeNull();
  });
});

describe("a sector-scoped employee", () => {
  it("when it reads lists, then only its sector's automations, jobs, schedules, sectors and events are in them", async () => {
    const token = employee.token;
    const automations = await hub.client.get("/automations?limit=1000", { token });
    const jobs = await hub.client.get("/jobs?limit=1000", { token });
    const sectors = await hub.client.get("/sectors?limit=1000", { token });
    const events = await hub.client.get("/events?limit=1000", { token });
    const schedules = await hub.client.get("/schedules?limit=1000", { token });

    expect(automations.body.map((a: { id: string }) => a.id)).toEqual([inside.automationId]);
    expect(jobs.body.map((j: { id: string }) => j.id)).toEqual([inside.jobId]);
    expect(sectors.body.map((s: { id: string }) => s.id)).toEqual([inside.sectorId]);
    expect(schedules.body.map((s: { id: string }) => s.id)).toEqual([inside.scheduleId]);
    expect(events.body.length).toBeGreaterThan(0);
    for (const list of [automations, jobs, sectors, events, schedules]) expectNoOutsideId(list.body);
  });

  it("when it names what is outside its sectors, then 404 by id and 422 value_error on POST /jobs, as if it did not exist", async () => {
    const token = employee.token;

    expect((await hub.client.get(`/automations/${outside.automationId}`, { token })).status).toBe(404);
    expect((await hub.client.get(`/automations/${outside.automationId}/stats`, { token })).status).toBe(404);
    expect((await hub.client.get(`/jobs/${outside.jobId}`, { token })).status).toBe(404);
    expect((await hub.client.get(`/jobs/${outside.jobId}/logs`, { token })).status).toBe(404);
    expect((await hub.client.get(`/schedules/${outside.scheduleId}`, { token })).status).toBe(404);
    expect((await hub.client.get(`/sectors/${outside.sectorId}`, { token })).status).toBe(404);
    expect((await hub.client.get(`/jobs?automation_id=${outside.automationId}`, { token })).body).toEqual([]);
    const created = await hub.client.post("/jobs", { automation_id: outside.automationId, context: {} }, { token });
    expect(created.status).toBe(422);
    expect(created.body.detail).toEqual([{ loc: ["body", "automation_id"], msg: "Value error, automation not found", type: "value_error" }]);
    expect((await hub.client.post("/jobs", { automation_id: inside.automationId, context: {} }, { token })).status).toBe(201);
  });

  it("when its sectors change, then the very next request reaches the new ones and not the old", async () => {
    const user = await hub.createUser("employee");
    await setSectors(user.id, [inside.sectorId]);
    expect((await hub.client.get(`/automations/${outside.automationId}`, { token: user.token })).status).toBe(404);

    await setSectors(user.id, [outside.sectorId]);

    expect((await hub.client.get(`/automations/${outside.automationId}`, { token: user.token })).status).toBe(200);
    expect((await hub.client.get(`/automations/${inside.automationId}`, { token: user.token })).status).toBe(404);
    await setSectors(user.id, null);
    expect((await hub.client.get(`/automations/${inside.automationId}`, { token: user.token })).status).toBe(200);
  });

  it("when its sectors change through one API process, then another process applies them within 1 s, with no restart", async () => {
    const second = await startApi({ ...hub.env, PORT: 0 }, createLogger("api-second", "silent"));
    try {
      const client = new HubClient(second.url);
      const user = await hub.createUser("employee");
      // The second process keeps the user in its credential cache.
      for (let i = 0; i < 3; i += 1) expect((await client.get(`/automations/${outside.automationId}`, { token: user.token })).status).toBe(200);

      expect((await setSectors(user.id, [inside.sectorId])).status).toBe(200);
      const changedAt = Date.now();

      while ((await client.get(`/automations/${outside.automationId}`, { token: user.token })).status !== 404) {
        expect(Date.now() - changedAt, "the second process still shows the other sector").toBeLessThan(1_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await client.get(`/automations/${inside.automationId}`, { token: user.token })).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it("when an admin has sector_ids stored, then it still reaches every sector", async () => {
    const admin = await hub.createUser("admin");
    await setSectors(admin.id, [inside.sectorId]);

    expect((await hub.client.get(`/automations/${outside.automationId}`, { token: admin.token })).status).toBe(200);
  });
});

describe("api key scopes", () => {
  it("when a key has automation_ids, then it reaches only those, and its record shows its scopes", async () => {
    const key = await createApiKey(hub, hub.adminToken, { automation_ids: [inside.automationId] });

    expect((await hub.client.get(`/automations/${outside.automationId}`, { token: key.key })).status).toBe(404);
    expect((await hub.client.get(`/automations/${inside.automationId}`, { token: key.key })).status).toBe(200);
    expect((await hub.client.delete(`/automations/${outside.automationId}`, { token: key.key })).status).toBe(404);
    const listed = await hub.client.get("/identity/api-keys", { token: hub.adminToken });
    expect(listed.body.find((k: { id: string }) => k.id === key.id)).toMatchObject({ automation_ids: [inside.automationId], read_only: false, role: null });
  });

  it("when automation_ids names an automation outside the user's reach or unknown, then 422 at its index", async () => {
    const refused = await hub.client.post(
      "/identity/api-keys",
      { name: "too wide", automation_ids: [inside.automationId, outside.automationId] },
      { token: employee.token },
    );

    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ["body", "automation_ids", 1], type: "value_error" })]);
  });

  it("when a key is read-only, then GET works, anything else is 403 'This api key is read-only', and it may delete itself", async () => {
    const key = await createApiKey(hub, employee.token, { read_only: true });

    expect((await hub.client.get("/jobs", { token: key.key })).status).toBe(200);
    const refused = await hub.client.post("/jobs", { automation_id: inside.automationId, context: {} }, { token: key.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: "This api key is read-only" });
    expect((await hub.client.delete(`/identity/api-keys/${key.id}`, { token: key.key })).status).toBe(204);
  });

  it("when an admin's key acts as an employee, then /identity/me says employee and admin routes answer 403; an employee's key cannot take a role", async () => {
    const key = await createApiKey(hub, hub.adminToken, { role: "employee" });

    expect((await hub.client.get("/identity/me", { token: key.key })).body.role).toBe("employee");
    expect((await hub.client.post("/sectors", { name: `x-${Date.now()}`, color: "#112233" }, { token: key.key })).status).toBe(403);
    const refused = await hub.client.post("/identity/api-keys", { name: "no", role: "employee" }, { token: employee.token });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ["body", "role"] })]);
  });
});
