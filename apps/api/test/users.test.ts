import { randomBytes, randomUUID } from "node:crypto";
import bcrypt from "bcrypt";
import { and, eq, sql } from "drizzle-orm";
import { deactivateUser } from "../src/identity/users.service";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { ADMIN_PASSWORD, startTestHub, useTestHub, type TestHub } from "./harness";
import { expectNoSecrets } from "./secrets";

const hub = useTestHub();
/** Every password these tests send: none may ever come back or reach an event. */
const sentPasswords: string[] = [ADMIN_PASSWORD];

const uniqueEmail = (label: string) => `${label}-${randomBytes(5).toString("hex")}@hub.test`;

function newUserBody(overrides: Record<string, unknown> = {}) {
  const password = `pw-${randomBytes(8).toString("hex")}`;
  sentPasswords.push(password);
  return { email: uniqueEmail("user"), password, role: "employee", ...overrides };
}

async function eventsOf(aggregateId: string) {
  return hub.api.ctx.database.db.select().from(schema.events).where(eq(schema.events.aggregateId, aggregateId)).orderBy(schema.events.position);
}

async function countEvents() {
  return (await hub.api.ctx.database.db.select({ id: schema.events.id }).from(schema.events)).length;
}

async function countUsers() {
  return (await hub.api.ctx.database.db.select({ id: schema.users.id }).from(schema.users)).length;
}

describe("POST /identity/users", () => {
  it("when an admin creates a user, then 201 {id}, the e-mail is stored lower-case and user.created is recorded by that admin", async () => {
    const admin = await hub.createUser("admin");
    const body = newUserBody({ email: uniqueEmail("Mixed.Case").toUpperCase(), role: "admin" });

    const result = await hub.client.post("/identity/users", body, { token: admin.token });

    expect(result.status).toBe(201);
    expect(result.body).toEqual({ id: expect.any(String) });
    const read = await hub.client.get(`/identity/users/${result.body.id}`, { token: hub.adminToken });
    expect(read.body).toEqual({
      id: result.body.id,
      email: body.email.toLowerCase(),
      role: "admin",
      is_active: true,
      created_at: expect.any(String),
      sector_ids: null,
    });
    const [created] = await eventsOf(result.body.id);
    expect(created).toMatchObject({
      eventType: "user.created",
      actorId: admin.id,
      payload: { email: body.email.toLowerCase(), role: "admin" },
    });
    expect((await hub.client.post("/identity/token", { email: body.email, password: body.password })).status).toBe(200);
  });

  it("when a user is created, then only a bcrypt hash of the password is stored", async () => {
    const body = newUserBody();

    const result = await hub.client.post("/identity/users", body, { token: hub.adminToken });

    const [row] = await hub.api.ctx.database.db.select().from(schema.users).where(eq(schema.users.id, result.body.id));
    expect(row?.passwordHash).not.toContain(body.password);
    expect(row?.passwordHash).toMatch(/^\$2b\$10\$/);
    expect(await bcrypt.compare(body.password, row!.passwordHash)).toBe(true);
  });

  it("when the password is exactly 72 bytes of multi-byte characters, then it is accepted and works", async () => {
    const password = "€".repeat(24); // 24 × 3 bytes
    sentPasswords.push(password);
    const body = newUserBody({ password });

    const result = await hub.client.post("/identity/users", body, { token: hub.adminToken });

    expect(result.status).toBe(201);
    expect((await hub.client.post("/identity/token", { email: body.email, password })).status).toBe(200);
  });

  it("when the password is over 72 bytes though under 72 characters, then 422 and nothing is created", async () => {
    const before = { users: await countUsers(), events: await countEvents() };

    const result = await hub.client.post("/identity/users", newUserBody({ password: "€".repeat(25) }), { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body", "password"], msg: "String should have at most 72 bytes in UTF-8", type: "string_too_long" }]);
    expect({ users: await countUsers(), events: await countEvents() }).toEqual(before);
  });

  it("when every field is missing, then 422 lists all three at once", async () => {
    const result = await hub.client.post("/identity/users", {}, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "email"], msg: "Field required", type: "missing" },
      { loc: ["body", "password"], msg: "Field required", type: "missing" },
      { loc: ["body", "role"], msg: "Field required", type: "missing" },
    ]);
  });

  it("when the e-mail is invalid, the password empty and the role unknown, then 422 reports each with pydantic's type", async () => {
    const before = await countUsers();

    const result = await hub.client.post("/identity/users", { email: "not-an-email", password: "", role: "boss" }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "email"], msg: expect.stringMatching(/^value is not a valid email address/), type: "value_error" },
      { loc: ["body", "password"], msg: "String should have at least 1 character", type: "string_too_short" },
      { loc: ["body", "role"], msg: "Input should be 'admin' or 'employee'", type: "enum" },
    ]);
    expect(await countUsers()).toBe(before);
  });

  it("when fields have the wrong JSON types, then 422 string_type for each", async () => {
    const result = await hub.client.post("/identity/users", { email: 42, password: ["x"], role: "employee" }, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "email"], msg: "Input should be a valid string", type: "string_type" },
      { loc: ["body", "password"], msg: "Input should be a valid string", type: "string_type" },
    ]);
  });

  it("when the e-mail is taken, in any case, then 409 and no second user or event", async () => {
    const first = newUserBody();
    await hub.client.post("/identity/users", first, { token: hub.adminToken });
    const before = { users: await countUsers(), events: await countEvents() };

    const same = await hub.client.post("/identity/users", newUserBody({ email: first.email }), { token: hub.adminToken });
    const otherCase = await hub.client.post("/identity/users", newUserBody({ email: first.email.toUpperCase() }), { token: hub.adminToken });

    expect(same.status).toBe(409);
    expect(same.body).toEqual({ detail: expect.any(String) });
    expect(otherCase.status).toBe(409);
    expect({ users: await countUsers(), events: await countEvents() }).toEqual(before);
  });

  it("when a body carries extra fields such as is_active or id, then they are ignored", async () => {
    const id = randomUUID();
    const body = newUserBody({ id, is_active: false, password_hash: "x" });

    const result = await hub.client.post("/identity/users", body, { token: hub.adminToken });

    expect(result.status).toBe(201);
    expect(result.body.id).not.toBe(id);
    const read = await hub.client.get(`/identity/users/${result.body.id}`, { token: hub.adminToken });
    expect(read.body.is_active).toBe(true);
  });

  it("when an employee tries to create a user, then 403 and nothing is created, even with an invalid body", async () => {
    const employee = await hub.createUser("employee");
    const before = { users: await countUsers(), events: await countEvents() };

    const valid = await hub.client.post("/identity/users", newUserBody({ role: "admin" }), { token: employee.token });
    const invalid = await hub.client.post("/identity/users", {}, { token: employee.token });

    expect(valid.status).toBe(403);
    expect(valid.body).toEqual({ detail: expect.any(String) });
    expect(invalid.status).toBe(403);
    expect({ users: await countUsers(), events: await countEvents() }).toEqual(before);
  });

  it("when no token is sent, then 401 with WWW-Authenticate: Bearer", async () => {
    const result = await hub.client.post("/identity/users", newUserBody());

    expect(result.status).toBe(401);
    expect(result.headers.get("www-authenticate")).toBe("Bearer");
  });
});

describe("GET /identity/users and /identity/users/{user_id}", () => {
  it("when an admin lists users, then every active user is listed oldest first, without secrets", async () => {
    const first = await hub.createUser("employee");
    const second = await hub.createUser("admin");

    const result = await hub.client.get("/identity/users", { token: hub.adminToken });

    expect(result.status).toBe(200);
    const ids = (result.body as { id: string }[]).map((user) => user.id);
    expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(second.id)).toBeGreaterThan(ids.indexOf(first.id));
    expect(result.body.find((user: { id: string }) => user.id === second.id)).toEqual({
      id: second.id,
      email: second.email,
      role: "admin",
      is_active: true,
      created_at: expect.any(String),
      sector_ids: null,
    });
    expectNoSecrets(result.body, [first.password, second.password, ...sentPasswords]);
  });

  it("when an employee lists or reads users, then 403", async () => {
    const employee = await hub.createUser("employee");

    expect((await hub.client.get("/identity/users", { token: employee.token })).status).toBe(403);
    expect((await hub.client.get(`/identity/users/${employee.id}`, { token: employee.token })).status).toBe(403);
  });

  it("when the user id is unknown, then 404", async () => {
    const result = await hub.client.get(`/identity/users/${randomUUID()}`, { token: hub.adminToken });

    expect(result.status).toBe(404);
    expect(result.body).toEqual({ detail: expect.any(String) });
  });

  it("when the user id is not a uuid, then 422 on path.user_id", async () => {
    const result = await hub.client.get("/identity/users/42", { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["path", "user_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
  });
});

describe("DELETE /identity/users/{user_id}", () => {
  it("when an admin deactivates a user, then 204, user.deactivated is recorded and the user vanishes from reads", async () => {
    const admin = await hub.createUser("admin");
    const target = await hub.createUser("employee");

    const result = await hub.client.delete(`/identity/users/${target.id}`, { token: admin.token });

    expect(result.status).toBe(204);
    expect(result.body).toBeUndefined();
    const deactivated = (await eventsOf(target.id)).filter((event) => event.eventType === "user.deactivated");
    expect(deactivated).toEqual([expect.objectContaining({ actorId: admin.id, payload: { email: target.email, role: "employee" } })]);
    expect((await hub.client.get(`/identity/users/${target.id}`, { token: hub.adminToken })).status).toBe(404);
    const list = await hub.client.get("/identity/users", { token: hub.adminToken });
    expect(list.body.map((user: { id: string }) => user.id)).not.toContain(target.id);
    const [row] = await hub.api.ctx.database.db.select().from(schema.users).where(eq(schema.users.id, target.id));
    expect(row).toMatchObject({ isActive: false, deactivatedAt: expect.any(Date) });
  });

  it("when a user is deactivated, then its existing token is refused at once and it can no longer log in", async () => {
    const target = await hub.createUser("admin");
    expect((await hub.client.get("/identity/me", { token: target.token })).status).toBe(200);

    await hub.client.delete(`/identity/users/${target.id}`, { token: hub.adminToken });

    const me = await hub.client.get("/identity/me", { token: target.token });
    expect(me.status).toBe(401);
    expect(me.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    expect((await hub.client.get("/identity/users", { token: target.token })).status).toBe(401);
    const login = await hub.client.post("/identity/token", { email: target.email, password: target.password });
    expect(login.status).toBe(401);
    expect(login.body).toEqual({ detail: "Incorrect email or password" });
  });

  it("when a deactivated user's e-mail is used again, then 409: the address stays taken", async () => {
    const target = await hub.createUser("employee");
    await hub.client.delete(`/identity/users/${target.id}`, { token: hub.adminToken });

    const result = await hub.client.post("/identity/users", newUserBody({ email: target.email }), { token: hub.adminToken });

    expect(result.status).toBe(409);
  });

  it("when an admin targets their own account, then 403, nothing changes and no event is written", async () => {
    const admin = await hub.createUser("admin");
    const before = await countEvents();

    const result = await hub.client.delete(`/identity/users/${admin.id}`, { token: admin.token });

    expect(result.status).toBe(403);
    expect(result.body).toEqual({ detail: expect.any(String) });
    expect((await hub.client.get("/identity/me", { token: admin.token })).status).toBe(200);
    expect(await countEvents()).toBe(before);
  });

  it("when the user is unknown or already deactivated, then 404 and no further event", async () => {
    const target = await hub.createUser("employee");
    await hub.client.delete(`/identity/users/${target.id}`, { token: hub.adminToken });
    const before = await countEvents();

    const again = await hub.client.delete(`/identity/users/${target.id}`, { token: hub.adminToken });
    const unknown = await hub.client.delete(`/identity/users/${randomUUID()}`, { token: hub.adminToken });

    expect(again.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(await countEvents()).toBe(before);
  });

  it("when two admins deactivate the same user at once, then one 204, one 404 and exactly one event", async () => {
    const target = await hub.createUser("employee");
    const otherAdmin = await hub.createUser("admin");

    const results = await Promise.all([
      hub.client.delete(`/identity/users/${target.id}`, { token: hub.adminToken }),
      hub.client.delete(`/identity/users/${target.id}`, { token: otherAdmin.token }),
    ]);

    expect(results.map((result) => result.status).sort()).toEqual([204, 404]);
    expect((await eventsOf(target.id)).filter((event) => event.eventType === "user.deactivated")).toHaveLength(1);
  });

  it("when an employee tries to deactivate a user, then 403 and the user stays active", async () => {
    const employee = await hub.createUser("employee");
    const target = await hub.createUser("employee");

    const result = await hub.client.delete(`/identity/users/${target.id}`, { token: employee.token });

    expect(result.status).toBe(403);
    expect((await hub.client.get("/identity/me", { token: target.token })).status).toBe(200);
  });
});

describe("secrets", () => {
  it("when users are created and deactivated, then no event payload holds a password or a hash", async () => {
    const body = newUserBody();
    const created = await hub.client.post("/identity/users", body, { token: hub.adminToken });
    await hub.client.delete(`/identity/users/${created.body.id}`, { token: hub.adminToken });

    const rows = await hub.api.ctx.database.db.select().from(schema.events);

    expect((await eventsOf(created.body.id)).map((event) => event.eventType)).toEqual(["user.created", "user.deactivated"]);
    for (const row of rows) {
      expectNoSecrets(row.payload, sentPasswords);
      if (row.eventType.startsWith("user.")) expect(Object.keys(row.payload).sort()).toEqual(["email", "role"]);
    }
  });
});

describe("the last active admin (CONTRACT §6.1)", () => {
  /** A hub of its own, so the only admins are the ones these tests create. */
  let own: TestHub;
  beforeAll(async () => {
    own = await startTestHub();
  });
  afterAll(async () => {
    await own?.stop();
  });

  const activeAdmins = async () => (await own.client.get<{ id: string; role: string }[]>("/identity/users", { token: own.adminToken })).body;
  const meId = async (token: string) => (await own.client.get("/identity/me", { token })).body.id as string;

  it("when one of two admins deactivates the other, then 204 and the hub keeps one", async () => {
    const second = await own.createUser("admin");

    const result = await own.client.delete(`/identity/users/${second.id}`, { token: own.adminToken });

    expect(result.status).toBe(204);
    expect((await activeAdmins()).filter((user) => user.role === "admin")).toEqual([expect.objectContaining({ id: await meId(own.adminToken) })]);
  });

  it("when the only two admins deactivate each other at the same moment, then one 204, the other refused, and one admin stays active", async () => {
    const db = own.api.ctx.database.db;
    const bootstrapId = await meId(own.adminToken);
    const setActive = (id: string, isActive: boolean) => db.update(schema.users).set({ isActive }).where(eq(schema.users.id, id));
    for (let round = 0; round < 8; round += 1) {
      const a = await own.createUser("admin");
      const b = await own.createUser("admin");
      // Arrange: a and b are the only active admins (the bootstrap admin steps aside for the round).
      await setActive(bootstrapId, false);

      const [byA, byB] = await Promise.all([
        own.client.delete(`/identity/users/${b.id}`, { token: a.token }),
        own.client.delete(`/identity/users/${a.id}`, { token: b.token }),
      ]);

      const statuses = [byA.status, byB.status].sort();
      // The loser is 409 when its request got past authentication first, else 401 (already deactivated).
      expect([
        [204, 409],
        [204, 401],
      ]).toContainEqual(statuses);
      const refused = byA.status === 204 ? byB : byA;
      expect(refused.body).toEqual({ detail: expect.any(String) });
      const survivors = await db
        .select({ id: schema.users.id })
        .from(schema.users)
        .where(and(eq(schema.users.role, "admin"), eq(schema.users.isActive, true)));
      expect(survivors).toHaveLength(1);
      const deactivations = await db.select().from(schema.events).where(eq(schema.events.eventType, "user.deactivated"));
      expect(deactivations.filter((event) => event.aggregateId === a.id || event.aggregateId === b.id)).toHaveLength(1);
      await setActive(bootstrapId, true);
      await setActive(survivors[0]!.id, false);
    }
  });

  it("when two deactivations of each other race inside the service, then exactly one commits and the other is 409", async () => {
    const me = await meId(own.adminToken);
    for (let round = 0; round < 10; round += 1) {
      const other = await own.createUser("admin");
      const active = await own.api.ctx.database.db
        .select({ id: schema.users.id })
        .from(schema.users)
        .where(and(eq(schema.users.role, "admin"), eq(schema.users.isActive, true)));
      expect(active.map((user) => user.id).sort()).toEqual([me, other.id].sort());

      const outcomes = await Promise.allSettled([
        deactivateUser(own.api.ctx.database.pool, other.id, me),
        deactivateUser(own.api.ctx.database.pool, me, other.id),
      ]);

      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      const [rejected] = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      expect(rejected?.reason).toMatchObject({ status: 409 });
      if (outcomes[1]?.status === "fulfilled") {
        // `me` was deactivated: bring it back so every round starts from the same two admins, its
        // credential generation with it (its token, which the fixture keeps using, is of that one).
        await own.api.ctx.database.db
          .update(schema.users)
          .set({ isActive: true, credentialGeneration: sql`${schema.users.credentialGeneration} - 1` })
          .where(eq(schema.users.id, me));
        await own.api.ctx.database.db.update(schema.users).set({ isActive: false }).where(eq(schema.users.id, other.id));
      }
    }
  });
});
