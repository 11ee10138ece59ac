/**
 * Managing api keys (CONTRACT §6.10): creating, listing and revoking them, their events, and
 * who may see or revoke whose. Using them is in api-key-auth.test.ts.
 */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { adminId, eventsOf } from "./automation-fixtures";
import { createApiKey, expireApiKey, storedApiKey } from "./api-key-fixtures";
import { useTestHub, type TestUser } from "./harness";
import { expectNoSecrets } from "./secrets";

const hub = useTestHub();
let employee: TestUser;
let otherEmployee: TestUser;

beforeAll(async () => {
  [employee, otherEmployee] = await Promise.all([hub.createUser("employee"), hub.createUser("employee")]);
});

const DAY_MS = 24 * 60 * 60 * 1000;

describe("POST /identity/api-keys", () => {
  it("when a user creates a key, then 201 {id, key, expires_at}: hub_ + 43 base64url characters, 90 days by default", async () => {
    const before = Date.now();
    const result = await hub.client.post("/identity/api-keys", { name: "CI pipeline" }, { token: employee.token });

    expect(result.status).toBe(201);
    expect(Object.keys(result.body).sort()).toEqual(["expires_at", "id", "key"]);
    expect(result.body.key).toMatch(/^hub_[A-Za-z0-9_-]{43}$/);
    const expiresAt = Date.parse(result.body.expires_at);
    expect(expiresAt).toBeGreaterThan(before + 90 * DAY_MS - 60_000);
    expect(expiresAt).toBeLessThan(Date.now() + 90 * DAY_MS + 60_000);
  });

  it("when expires_in_days is given, then the key expires that many days from now", async () => {
    const created = await createApiKey(hub, employee.token, { expires_in_days: 1 });

    expect(Math.abs(Date.parse(created.expires_at) - (Date.now() + DAY_MS))).toBeLessThan(60_000);
  });

  it("when a key is created, then only its SHA-256 digest is stored, and api_key.created names user, name and prefix, never the key", async () => {
    const created = await createApiKey(hub, employee.token, { name: "nightly export" });

    const row = await storedApiKey(hub, created.id);
    expect(row.digest).toBe(createHash("sha256").update(created.key).digest("hex"));
    expectNoSecrets(row, [created.key, created.key.slice(4)]);
    const [event, ...more] = await eventsOf(hub, created.id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      eventType: "api_key.created",
      actorId: employee.id,
      payload: { user_id: employee.id, name: "nightly export", prefix: created.key.slice(4, 12) },
    });
    expectNoSecrets(event, [created.key, created.key.slice(4)]);
  });

  it("when the name is missing or too long and the lifetime out of range, then 422 names every problem and nothing is created", async () => {
    const before = await hub.client.get("/identity/api-keys", { token: otherEmployee.token });

    const missing = await hub.client.post("/identity/api-keys", { expires_in_days: 0 }, { token: otherEmployee.token });
    const tooMuch = await hub.client.post("/identity/api-keys", { name: "x".repeat(101), expires_in_days: 366 }, { token: otherEmployee.token });
    const blank = await hub.client.post("/identity/api-keys", { name: "   ", expires_in_days: "seven" }, { token: otherEmployee.token });

    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((issue: { loc: unknown[]; type: string }) => [issue.loc, issue.type])).toEqual([
      [["body", "name"], "missing"],
      [["body", "expires_in_days"], "greater_than_equal"],
    ]);
    expect(tooMuch.body.detail.map((issue: { type: string }) => issue.type)).toEqual(["string_too_long", "less_than_equal"]);
    expect(blank.body.detail.map((issue: { type: string }) => issue.type)).toEqual(["string_too_short", "int_parsing"]);
    expect((await hub.client.get("/identity/api-keys", { token: otherEmployee.token })).body).toEqual(before.body);
  });
});

describe("GET /identity/api-keys", () => {
  it("when a user lists keys, then their own, newest first, with prefix and never the key; expired keys stay listed", async () => {
    const user = await hub.createUser("employee");
    const first = await createApiKey(hub, user.token, { name: "first" });
    const second = await createApiKey(hub, user.token, { name: "second" });
    await createApiKey(hub, otherEmployee.token);
    await expireApiKey(hub, first.id);

    const result = await hub.client.get("/identity/api-keys", { token: user.token });

    expect(result.status).toBe(200);
    expect(result.body).toEqual([
      {
        id: second.id,
        user_id: user.id,
        name: "second",
        prefix: second.key.slice(4, 12),
        created_at: expect.any(String),
        expires_at: second.expires_at,
        last_used_at: null,
        automation_ids: null,
        read_only: false,
        role: null,
      },
      {
        id: first.id,
        user_id: user.id,
        name: "first",
        prefix: first.key.slice(4, 12),
        created_at: expect.any(String),
        expires_at: expect.any(String),
        last_used_at: null,
        automation_ids: null,
        read_only: false,
        role: null,
      },
    ]);
    expect(Date.parse(result.body[1].expires_at)).toBeLessThan(Date.now());
    expectNoSecrets(result.body, [first.key, second.key]);
  });

  it("when the list is longer than limit, then a Link header leads to the rest", async () => {
    const user = await hub.createUser("employee");
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createApiKey(hub, user.token)).id);

    const firstPage = await hub.client.get("/identity/api-keys?limit=2", { token: user.token });
    const next = /<([^>]+)>; rel="next"/.exec(firstPage.headers.get("link") ?? "")?.[1];
    const secondPage = await hub.client.get(next!, { token: user.token });

    expect([...firstPage.body, ...secondPage.body].map((key: { id: string }) => key.id)).toEqual(ids.reverse());
    expect(secondPage.headers.get("link")).toBeNull();
  });

  it("when an admin lists with user_id, all=true or a prefix, then that user's keys, everyone's, or the leaked key's", async () => {
    const owner = await hub.createUser("employee");
    const leaked = await createApiKey(hub, owner.token);
    const adminKey = await createApiKey(hub, hub.adminToken);

    const own = await hub.client.get("/identity/api-keys?limit=1000", { token: hub.adminToken });
    const theirs = await hub.client.get(`/identity/api-keys?user_id=${owner.id}`, { token: hub.adminToken });
    const everyone = await hub.client.get("/identity/api-keys?all=true&limit=1000", { token: hub.adminToken });
    const byPrefix = await hub.client.get(`/identity/api-keys?prefix=${leaked.key.slice(4, 12)}`, { token: hub.adminToken });
    const byPrefixWithHub = await hub.client.get(`/identity/api-keys?prefix=${leaked.key.slice(0, 12)}`, { token: hub.adminToken });

    const idsOf = (result: { body: Array<{ id: string }> }) => result.body.map((key) => key.id);
    expect(idsOf(own)).toContain(adminKey.id);
    expect(idsOf(own)).not.toContain(leaked.id);
    expect(idsOf(theirs)).toEqual([leaked.id]);
    expect(idsOf(everyone)).toEqual(expect.arrayContaining([leaked.id, adminKey.id]));
    expect(idsOf(byPrefix)).toEqual([leaked.id]);
    expect(idsOf(byPrefixWithHub)).toEqual([leaked.id]);
  });

  it("when an employee asks for another user's keys or everyone's, then 403; their own user_id and a prefix stay within their keys", async () => {
    const otherKey = await createApiKey(hub, otherEmployee.token);

    const others = await hub.client.get(`/identity/api-keys?user_id=${otherEmployee.id}`, { token: employee.token });
    const everyone = await hub.client.get("/identity/api-keys?all=true", { token: employee.token });
    const own = await hub.client.get(`/identity/api-keys?user_id=${employee.id}`, { token: employee.token });
    const otherPrefix = await hub.client.get(`/identity/api-keys?prefix=${otherKey.key.slice(4, 12)}`, { token: employee.token });

    expect(others.status).toBe(403);
    expect(everyone.status).toBe(403);
    expect(own.status).toBe(200);
    expect(own.body.every((key: { user_id: string }) => key.user_id === employee.id)).toBe(true);
    expect(otherPrefix.body).toEqual([]);
  });

  it("when a filter is malformed, then 422 at its query parameter", async () => {
    const result = await hub.client.get("/identity/api-keys?prefix=abc&user_id=nope&all=maybe", { token: employee.token });

    expect(result.status).toBe(422);
    expect(result.body.detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([
      ["query", "user_id"],
      ["query", "all"],
      ["query", "prefix"],
    ]);
  });
});

describe("DELETE /identity/api-keys/{api_key_id}", () => {
  it("when a user deletes their key, then 204, it leaves the list, api_key.revoked is written, and a second delete is 404", async () => {
    const created = await createApiKey(hub, employee.token, { name: "old script" });

    const result = await hub.client.delete(`/identity/api-keys/${created.id}`, { token: employee.token });
    const again = await hub.client.delete(`/identity/api-keys/${created.id}`, { token: employee.token });

    expect(result.status).toBe(204);
    expect(again.status).toBe(404);
    const listed = await hub.client.get("/identity/api-keys?limit=1000", { token: employee.token });
    expect(listed.body.map((key: { id: string }) => key.id)).not.toContain(created.id);
    const revoked = (await eventsOf(hub, created.id)).filter((event) => event.eventType === "api_key.revoked");
    expect(revoked).toEqual([
      expect.objectContaining({ actorId: employee.id, payload: { user_id: employee.id, name: "old script", prefix: created.key.slice(4, 12) } }),
    ]);
  });

  it("when an employee deletes another user's key, then 404 and the key keeps working; an admin may delete it", async () => {
    const created = await createApiKey(hub, otherEmployee.token);

    const byEmployee = await hub.client.delete(`/identity/api-keys/${created.id}`, { token: employee.token });
    const stillWorks = await hub.client.get("/identity/me", { token: created.key });
    const byAdmin = await hub.client.delete(`/identity/api-keys/${created.id}`, { token: hub.adminToken });

    expect(byEmployee.status).toBe(404);
    expect(stillWorks.status).toBe(200);
    expect(byAdmin.status).toBe(204);
    const [, revoked] = await eventsOf(hub, created.id);
    expect(revoked).toMatchObject({ eventType: "api_key.revoked", actorId: await adminId(hub), payload: { user_id: otherEmployee.id } });
  });

  it("when the key is unknown or the id not a uuid, then 404 or 422", async () => {
    expect((await hub.client.delete("/identity/api-keys/00000000-0000-4000-8000-000000000000", { token: hub.adminToken })).status).toBe(404);
    const malformed = await hub.client.delete("/identity/api-keys/nope", { token: hub.adminToken });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(["path", "api_key_id"]);
  });
});

describe("api_key events in GET /events", () => {
  it("when an employee reads the events, then api_key.* are left out; an admin sees them", async () => {
    const created = await createApiKey(hub, employee.token);

    const asEmployee = await hub.client.get(`/events?aggregate_id=${created.id}`, { token: employee.token });
    const asAdmin = await hub.client.get(`/events?aggregate_id=${created.id}`, { token: hub.adminToken });

    expect(asEmployee.status).toBe(200);
    expect(asEmployee.body).toEqual([]);
    expect(asAdmin.body.map((event: { event_type: string }) => event.event_type)).toEqual(["api_key.created"]);
    expectNoSecrets(asAdmin.body, [created.key]);
  });

  it("when a user with keys is deactivated, then no api_key event is written", async () => {
    const user = await hub.createUser("employee");
    const created = await createApiKey(hub, user.token);

    expect((await hub.client.delete(`/identity/users/${user.id}`, { token: hub.adminToken })).status).toBe(204);

    expect((await eventsOf(hub, created.id)).map((event) => event.eventType)).toEqual(["api_key.created"]);
  });
});

describe("OpenAPI", () => {
  it("when /openapi.json is read, then bearer operations take OAuth2 or ApiKey, and creating a key or managing users OAuth2 only", async () => {
    const { body: document } = await hub.client.get("/openapi.json");

    expect(document.components.securitySchemes.OAuth2).toMatchObject({ type: "oauth2", flows: { password: { tokenUrl: "/identity/token" } } });
    expect(document.components.securitySchemes.ApiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.paths["/identity/api-keys"].post.security).toEqual([{ OAuth2: [] }]);
    expect(document.paths["/identity/api-keys"].get.security).toEqual([{ OAuth2: [] }, { ApiKey: [] }]);
    expect(document.paths["/jobs"].post.security).toEqual([{ OAuth2: [] }, { ApiKey: [] }]);
    expect(document.paths["/identity/users"].get.security).toEqual([{ OAuth2: [] }, { ApiKey: [] }]);
    expect(document.paths["/identity/users"].post.security).toEqual([{ OAuth2: [] }]);
    expect(document.paths["/jobs/claim"].post.security).toEqual([{ WorkerApiKey: [] }]);
    // Public (CONTRACT §6.21): an explicit empty list, so generated clients send no credential.
    expect(document.paths["/identity/token"].post.security).toEqual([]);
    expect(document.paths["/identity/api-keys/{api_key_id}"].delete.responses).toHaveProperty("204");
  });
});
