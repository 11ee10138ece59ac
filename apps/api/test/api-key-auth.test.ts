/**
 * Using api keys (CONTRACT §6.10): `Authorization: Bearer hub_…` as the key's user, with that
 * user's role, wherever a login token is taken; refused once expired, revoked or its user
 * deactivated; `last_used_at` written at most once a minute; request logs name the key's id.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiKey, expireApiKey, storedApiKey } from "./api-key-fixtures";
import { useTestHub, type TestUser } from "./harness";
import { createAutomationWithWorker, type AutomationWithWorker } from "./job-fixtures";
import { startLoggedCopy, type LoggedCopy } from "./logged-copy";

const hub = useTestHub();
let employee: TestUser;
let automation: AutomationWithWorker;

beforeAll(async () => {
  employee = await hub.createUser("employee");
  automation = await createAutomationWithWorker(hub);
});

describe("Bearer hub_… on bearer endpoints", () => {
  it("when an employee's key is used, then it creates and lists jobs as that employee, and admin endpoints answer 403", async () => {
    const { key } = await createApiKey(hub, employee.token);

    const created = await hub.client.post("/jobs", { automation_id: automation.automationId }, { token: key });
    const listed = await hub.client.get(`/jobs?automation_id=${automation.automationId}`, { token: key });
    const me = await hub.client.get("/identity/me", { token: key });
    const sector = await hub.client.post("/sectors", { name: "Not allowed", color: "#000000" }, { token: key });
    const users = await hub.client.get("/identity/users", { token: key });

    expect(created.status).toBe(201);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([expect.objectContaining({ id: created.body.id, created_by: employee.id })]);
    expect(me.body).toMatchObject({ id: employee.id, role: "employee" });
    expect(sector.status).toBe(403);
    expect(users.status).toBe(403);
  });

  it("when an admin's key is used, then admin endpoints answer as for the admin", async () => {
    const { key } = await createApiKey(hub, hub.adminToken);

    const sector = await hub.client.post("/sectors", { name: `By key ${Date.now()}`, color: "#00FF00" }, { token: key });

    expect(sector.status).toBe(201);
  });

  it("when a key is expired, revoked, or its user deactivated, then 401 with RFC 6750's invalid_token, an expired key saying so", async () => {
    const user = await hub.createUser("employee");
    const [expired, revoked, ofDeactivated] = [
      await createApiKey(hub, employee.token),
      await createApiKey(hub, employee.token),
      await createApiKey(hub, user.token),
    ];
    for (const { key } of [expired, revoked, ofDeactivated]) expect((await hub.client.get("/jobs", { token: key })).status).toBe(200);

    await expireApiKey(hub, expired.id);
    expect((await hub.client.delete(`/identity/api-keys/${revoked.id}`, { token: employee.token })).status).toBe(204);
    expect((await hub.client.delete(`/identity/users/${user.id}`, { token: hub.adminToken })).status).toBe(204);

    const refusals = [revoked.key, ofDeactivated.key, `hub_${"A".repeat(43)}`, "hub_short", `${expired.key}x`];
    for (const key of refusals) {
      const result = await hub.client.post("/jobs", { automation_id: automation.automationId }, { token: key });
      expect(result.status).toBe(401);
      expect(result.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
      expect(result.body).toEqual({ detail: "Could not validate credentials" });
    }
    const expiredAnswer = await hub.client.post("/jobs", { automation_id: automation.automationId }, { token: expired.key });
    expect(expiredAnswer.status).toBe(401);
    expect(expiredAnswer.headers.get("www-authenticate")).toBe('Bearer error="invalid_token", error_description="The api key expired"');
    expect(expiredAnswer.body).toEqual({ detail: "Api key expired" });
  });

  it("when a key is sent to a worker endpoint, or a worker key as a bearer, then 401", async () => {
    const { key } = await createApiKey(hub, hub.adminToken);

    expect((await hub.client.post("/jobs/claim", {}, { token: key })).status).toBe(401);
    expect((await hub.client.post("/jobs/claim", {}, { workerKey: key })).status).toBe(401);
    expect((await hub.client.get("/jobs", { token: automation.workerKey })).status).toBe(401);
  });

  it("when the same Idempotency-Key comes with a login token and then with the user's api key, then one job", async () => {
    const { key } = await createApiKey(hub, employee.token);
    const headers = { "idempotency-key": `per-user-${Date.now()}` };

    const byToken = await hub.client.post("/jobs", { automation_id: automation.automationId }, { token: employee.token, headers });
    const byKey = await hub.client.post("/jobs", { automation_id: automation.automationId }, { token: key, headers });
    const byOtherUser = await hub.client.post(
      "/jobs",
      { automation_id: automation.automationId },
      { token: (await createApiKey(hub, hub.adminToken)).key, headers },
    );

    expect(byToken.status).toBe(201);
    expect(byKey.status).toBe(200);
    expect(byKey.body.id).toBe(byToken.body.id);
    expect(byOtherUser.status).toBe(201);
  });
});

describe("what an api key may do with api keys", () => {
  it("when a key creates a key, then 403, before the body is even read", async () => {
    const { key } = await createApiKey(hub, hub.adminToken);

    const valid = await hub.client.post("/identity/api-keys", { name: "child" }, { token: key });
    const invalid = await hub.client.post("/identity/api-keys", { name: "" }, { token: key });

    expect(valid.status).toBe(403);
    expect(invalid.status).toBe(403);
    expect(valid.body).toEqual({ detail: expect.stringContaining("login token") });
  });

  it("when a key lists keys, then only itself, whatever it asks; it may delete only itself, and then stops working", async () => {
    const mine = await createApiKey(hub, hub.adminToken);
    const sibling = await createApiKey(hub, hub.adminToken);

    const own = await hub.client.get("/identity/api-keys", { token: mine.key });
    const everyone = await hub.client.get("/identity/api-keys?all=true", { token: mine.key });
    const deleteSibling = await hub.client.delete(`/identity/api-keys/${sibling.id}`, { token: mine.key });
    const deleteUnknown = await hub.client.delete("/identity/api-keys/00000000-0000-4000-8000-000000000000", { token: mine.key });
    const deleteItself = await hub.client.delete(`/identity/api-keys/${mine.id}`, { token: mine.key });

    expect(own.body.map((key: { id: string }) => key.id)).toEqual([mine.id]);
    expect(everyone.body.map((key: { id: string }) => key.id)).toEqual([mine.id]);
    expect(deleteSibling.status).toBe(403);
    expect(deleteUnknown.status).toBe(403);
    expect(deleteItself.status).toBe(204);
    expect((await hub.client.get("/identity/me", { token: mine.key })).status).toBe(401);
    expect((await hub.client.get("/identity/me", { token: sibling.key })).status).toBe(200);
  });
});

describe("last_used_at", () => {
  /** Counts every write of a key's row from here on (a row trigger fires only for rows an UPDATE changed). */
  async function countWritesOfApiKeys(): Promise<() => Promise<number>> {
    const db = hub.api.ctx.database.db;
    await db.execute(sql`create table if not exists api_key_writes (api_key_id uuid not null)`);
    await db.execute(sql`create or replace function record_api_key_write() returns trigger language plpgsql as $$
      begin insert into api_key_writes values (new.id); return new; end $$`);
    await db.execute(sql`create or replace trigger api_key_writes after update on api_keys for each row execute function record_api_key_write()`);
    await db.execute(sql`truncate api_key_writes`);
    return async () => {
      const { rows } = await db.execute<{ writes: number }>(sql`select count(*)::int as writes from api_key_writes`);
      return rows[0]!.writes;
    };
  }

  it("when a key is used, then its last_used_at moves; used again within a minute it stays; after a minute it moves again", async () => {
    const created = await createApiKey(hub, employee.token);
    const listed = async () => (await hub.client.get(`/identity/api-keys?prefix=${created.key.slice(4, 12)}`, { token: employee.token })).body[0];
    expect((await listed()).last_used_at).toBeNull();

    await hub.client.get("/jobs?limit=1", { token: created.key });
    const firstUse = (await listed()).last_used_at;
    await hub.client.get("/jobs?limit=1", { token: created.key });
    const secondUse = (await listed()).last_used_at;
    // A minute passes: for PostgreSQL, whose clock the write's condition reads, and for the API,
    // whose clock tells when a key it keeps is due for a write.
    await hub.api.ctx.database.db.execute(sql`update api_keys set last_used_at = last_used_at - interval '61 seconds' where id = ${created.id}`);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    try {
      await hub.client.get("/jobs?limit=1", { token: created.key });
    } finally {
      vi.useRealTimers();
    }
    const afterAMinute = (await listed()).last_used_at;

    expect(firstUse).toEqual(expect.any(String));
    expect(secondUse).toBe(firstUse);
    expect(Date.parse(afterAMinute)).toBeGreaterThanOrEqual(Date.parse(firstUse));
    expect(afterAMinute).not.toBe(firstUse);
  });

  it("when 100 requests arrive with a fresh key at once, then last_used_at is written once", async () => {
    const created = await createApiKey(hub, employee.token);
    const writes = await countWritesOfApiKeys();
    // 100 open connections first, so the 100 requests below arrive together and race.
    await Promise.all(Array.from({ length: 100 }, () => hub.client.get("/healthz")));

    const results = await Promise.all(Array.from({ length: 100 }, () => hub.client.get("/identity/me", { token: created.key })));

    expect(results.filter((result) => result.status !== 200).map((result) => [result.status, result.body])).toEqual([]);
    expect(await writes()).toBe(1);
    expect((await storedApiKey(hub, created.id)).lastUsedAt).toBeInstanceOf(Date);
  });
});

describe("request logs", () => {
  let logged: LoggedCopy;

  beforeAll(async () => {
    logged = await startLoggedCopy(hub.api.ctx);
  });
  afterAll(async () => {
    await logged?.close();
  });

  it("when a request comes with a key, then its line names user_id and api_key_id; no line ever holds the key", async () => {
    const created = await logged.client.post("/identity/api-keys", { name: "logged" }, { token: employee.token });
    const { id, key } = created.body as { id: string; key: string };

    await logged.client.post("/jobs", { automation_id: automation.automationId }, { token: key });
    await logged.client.post("/jobs", { automation_id: automation.automationId }, { token: `${key.slice(0, -1)}x` });
    await logged.client.delete(`/identity/api-keys/${id}`, { token: key });

    const lines = logged.lines.map(
      (line) => JSON.parse(line) as Record<string, unknown> & { req?: { method: string; url: string }; res?: { statusCode: number } },
    );
    const requestLine = (method: string, url: string, status: number) =>
      lines.find((line) => line.req?.method === method && line.req.url === url && line.res?.statusCode === status);
    expect(requestLine("POST", "/identity/api-keys", 201)).toMatchObject({ user_id: employee.id, target_api_key_id: id });
    expect(requestLine("POST", "/identity/api-keys", 201)).not.toHaveProperty("api_key_id");
    expect(requestLine("POST", "/jobs", 201)).toMatchObject({ user_id: employee.id, api_key_id: id });
    expect(requestLine("POST", "/jobs", 401)).not.toHaveProperty("api_key_id");
    expect(requestLine("DELETE", `/identity/api-keys/${id}`, 204)).toMatchObject({ user_id: employee.id, api_key_id: id, target_api_key_id: id });
    const everything = logged.lines.join("\n");
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(key.slice(4));
  });
});
