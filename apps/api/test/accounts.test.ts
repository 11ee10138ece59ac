/**
 * Accounts (CONTRACT §6.11): changing one's own password, an admin's reset, role changes,
 * deactivated users listed and reactivated, the password rules, and how each change refuses the
 * login tokens of the old credential generation — on this API process at once, on another within
 * the notification's delay. The hub runs with HUB_PASSWORD_MIN_LENGTH=12, as docker-compose.yml
 * and the Kubernetes base set it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { createLogger } from "@hub/shared";
import { waitUntil } from "@hub/testing";
import { startApi } from "../src/app";
import { hashPassword } from "../src/identity/passwords";
import { changeUser, deactivateUser } from "../src/identity/users.service";
import { createApiKey } from "./api-key-fixtures";
import { HubClient, startTestHub, useTestHub, type TestUser } from "./harness";
import { expectNoSecrets } from "./secrets";

const hub = useTestHub({ HUB_PASSWORD_MIN_LENGTH: "12" });

const newPassword = () => `new-pw-${randomBytes(9).toString("base64url")}`;
const bearer = { invalid: 'Bearer error="invalid_token"' };

async function eventsOf(aggregateId: string, eventType: string) {
  const rows = await hub.api.ctx.database.db.select().from(schema.events).where(eq(schema.events.aggregateId, aggregateId)).orderBy(schema.events.position);
  return rows.filter((event) => event.eventType === eventType);
}

async function generationOf(userId: string): Promise<number> {
  const [row] = await hub.api.ctx.database.db.select({ generation: schema.users.credentialGeneration }).from(schema.users).where(eq(schema.users.id, userId));
  return row!.generation;
}

async function expectTokenRefused(token: string, client: HubClient = hub.client): Promise<void> {
  const me = await client.get("/identity/me", { token });
  expect(me.status).toBe(401);
  expect(me.body).toEqual({ detail: "Could not validate credentials" });
  expect(me.headers.get("www-authenticate")).toBe(bearer.invalid);
}

describe("PUT /identity/me/password", () => {
  it("when a user changes its password, then it gets a token of the new generation, earlier tokens are refused at once, and only the new password signs in", async () => {
    const user = await hub.createUser("employee");
    const otherSession = await hub.client.login(user.email, user.password);
    const password = newPassword();

    const result = await hub.client.put("/identity/me/password", { current_password: user.password, new_password: password }, { token: user.token });

    expect(result.status).toBe(200);
    expect(result.body).toEqual({ access_token: expect.any(String), token_type: "bearer", expires_in: hub.env.HUB_ACCESS_TOKEN_TTL_SECONDS });
    expect((await hub.client.get("/identity/me", { token: result.body.access_token })).status).toBe(200);
    await expectTokenRefused(user.token);
    await expectTokenRefused(otherSession);
    expect((await hub.client.post("/identity/token", { email: user.email, password: user.password })).status).toBe(401);
    expect((await hub.client.post("/identity/token", { email: user.email, password })).status).toBe(200);
    const [event] = await eventsOf(user.id, "user.password_changed");
    expect(event).toMatchObject({ actorId: user.id, payload: { user_id: user.id } });
    expectNoSecrets(event, [user.password, password]);
  });

  it("when the current password is wrong, then 403 and nothing changes", async () => {
    const user = await hub.createUser("employee");
    const generation = await generationOf(user.id);

    const result = await hub.client.put("/identity/me/password", { current_password: "not-the-password", new_password: newPassword() }, { token: user.token });

    expect(result.status).toBe(403);
    expect(result.body).toEqual({ detail: "Current password is incorrect" });
    expect(await generationOf(user.id)).toBe(generation);
    expect((await hub.client.get("/identity/me", { token: user.token })).status).toBe(200);
    expect(await eventsOf(user.id, "user.password_changed")).toEqual([]);
  });

  it("when the new password is too short or over 72 bytes, then 422 with pydantic's types and messages, and nothing changes", async () => {
    const user = await hub.createUser("employee");

    const short = await hub.client.put("/identity/me/password", { current_password: user.password, new_password: "elevenchars" }, { token: user.token });
    const long = await hub.client.put("/identity/me/password", { current_password: user.password, new_password: "€".repeat(25) }, { token: user.token });

    expect(short.status).toBe(422);
    expect(short.body.detail).toEqual([{ loc: ["body", "new_password"], msg: "String should have at least 12 characters", type: "string_too_short" }]);
    expect(long.status).toBe(422);
    expect(long.body.detail).toEqual([{ loc: ["body", "new_password"], msg: "String should have at most 72 bytes in UTF-8", type: "string_too_long" }]);
    expect((await hub.client.get("/identity/me", { token: user.token })).status).toBe(200);
    expect(await generationOf(user.id)).toBe(0);
  });

  it("when the caller uses an api key, then 403; after a change with a token, the api key keeps working", async () => {
    const user = await hub.createUser("employee");
    const { key } = await createApiKey(hub, user.token);

    const withKey = await hub.client.put("/identity/me/password", { current_password: user.password, new_password: newPassword() }, { token: key });
    expect(withKey.status).toBe(403);
    const withToken = await hub.client.put("/identity/me/password", { current_password: user.password, new_password: newPassword() }, { token: user.token });
    expect(withToken.status).toBe(200);

    expect((await hub.client.get("/identity/me", { token: key })).status).toBe(200);
  });
});

describe("PUT /identity/users/{id}/password", () => {
  it("when an admin resets a user's password, then 204, the user's tokens are refused, the new password signs in, and the event names no password", async () => {
    const user = await hub.createUser("employee");
    const password = newPassword();

    const result = await hub.client.put(`/identity/users/${user.id}/password`, { new_password: password }, { token: hub.adminToken });

    expect(result.status).toBe(204);
    await expectTokenRefused(user.token);
    expect((await hub.client.post("/identity/token", { email: user.email, password })).status).toBe(200);
    expect((await hub.client.post("/identity/token", { email: user.email, password: user.password })).status).toBe(401);
    const [event] = await eventsOf(user.id, "user.password_reset");
    expect(event?.payload).toEqual({ user_id: user.id });
    expectNoSecrets(event, [password]);
  });

  it("when the target is the admin itself, unknown or deactivated, or the caller is an employee or uses an api key, then 403/404 and nothing changes", async () => {
    const me = (await hub.client.get("/identity/me", { token: hub.adminToken })).body.id as string;
    const gone = await hub.createUser("employee");
    expect((await hub.client.delete(`/identity/users/${gone.id}`, { token: hub.adminToken })).status).toBe(204);
    const employee = await hub.createUser("employee");
    const { key: adminKey } = await createApiKey(hub, hub.adminToken);
    const body = { new_password: newPassword() };

    const own = await hub.client.put(`/identity/users/${me}/password`, body, { token: hub.adminToken });
    expect(own.status).toBe(403);
    expect(own.body).toEqual({ detail: "Use PUT /identity/me/password to change your own password" });
    expect((await hub.client.put(`/identity/users/${randomUUID()}/password`, body, { token: hub.adminToken })).status).toBe(404);
    expect((await hub.client.put(`/identity/users/${gone.id}/password`, body, { token: hub.adminToken })).status).toBe(404);
    expect((await hub.client.put(`/identity/users/${employee.id}/password`, body, { token: employee.token })).status).toBe(403);
    expect((await hub.client.put(`/identity/users/${employee.id}/password`, body, { token: adminKey })).status).toBe(403);
    expect((await hub.client.get("/identity/me", { token: employee.token })).status).toBe(200);
    expect((await hub.client.get("/identity/me", { token: hub.adminToken })).status).toBe(200);
  });
});

describe("PATCH /identity/users/{id}", () => {
  it("when an employee is made admin, then 200 with the new role, its login tokens are refused, its api key acts as admin at once, and user.role_changed says from and to", async () => {
    const user = await hub.createUser("employee");
    const { key } = await createApiKey(hub, user.token);
    expect((await hub.client.get("/identity/users", { token: key })).status).toBe(403);

    const result = await hub.client.patch(`/identity/users/${user.id}`, { role: "admin" }, { token: hub.adminToken });

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id: user.id, email: user.email, role: "admin", is_active: true });
    await expectTokenRefused(user.token);
    expect((await hub.client.get("/identity/users", { token: key })).status).toBe(200);
    const fresh = await hub.client.login(user.email, user.password);
    expect((await hub.client.get("/identity/me", { token: fresh })).body.role).toBe("admin");
    const [event] = await eventsOf(user.id, "user.role_changed");
    expect(event?.payload).toEqual({ user_id: user.id, from: "employee", to: "admin" });
  });

  it("when the user already has the role, then 200, no event and its tokens still work", async () => {
    const user = await hub.createUser("employee");

    const result = await hub.client.patch(`/identity/users/${user.id}`, { role: "employee" }, { token: hub.adminToken });

    expect(result.status).toBe(200);
    expect(result.body.role).toBe("employee");
    expect((await hub.client.get("/identity/me", { token: user.token })).status).toBe(200);
    expect(await eventsOf(user.id, "user.role_changed")).toEqual([]);
  });

  it("when the target is the admin itself, unknown or deactivated, or the role is not one, then 403/404/422", async () => {
    const me = (await hub.client.get("/identity/me", { token: hub.adminToken })).body.id as string;
    const gone = await hub.createUser("employee");
    expect((await hub.client.delete(`/identity/users/${gone.id}`, { token: hub.adminToken })).status).toBe(204);

    expect((await hub.client.patch(`/identity/users/${me}`, { role: "employee" }, { token: hub.adminToken })).status).toBe(403);
    expect((await hub.client.patch(`/identity/users/${randomUUID()}`, { role: "admin" }, { token: hub.adminToken })).status).toBe(404);
    expect((await hub.client.patch(`/identity/users/${gone.id}`, { role: "admin" }, { token: hub.adminToken })).status).toBe(404);
    const invalid = await hub.client.patch(`/identity/users/${gone.id}`, {}, { token: hub.adminToken });
    expect(invalid.status).toBe(422);
    // Neither role nor sector_ids (CONTRACT §6.22).
    expect(invalid.body.detail).toEqual([{ loc: ["body"], msg: "Value error, give role, sector_ids or both", type: "value_error" }]);
    const badRole = await hub.client.patch(`/identity/users/${gone.id}`, { role: "owner" }, { token: hub.adminToken });
    expect(badRole.body.detail).toEqual([expect.objectContaining({ loc: ["body", "role"], type: "enum" })]);
  });

  it("when two admins demote each other, or one demotes while the other deactivates, at the same moment, then exactly one commits and the other is 409", async () => {
    const own = await startTestHub();
    try {
      const me = (await own.client.get("/identity/me", { token: own.adminToken })).body.id as string;
      const ctx = own.api.ctx;
      for (const [round, second] of [
        ["demotions", "demote"],
        ["demotion and deactivation", "deactivate"],
      ] as const) {
        const other = await own.createUser("admin");
        const [mine] = await ctx.database.db.select({ generation: schema.users.credentialGeneration }).from(schema.users).where(eq(schema.users.id, me));
        const outcomes = await Promise.allSettled([
          changeUser(ctx, other.id, { role: "employee" }, me),
          second === "demote" ? changeUser(ctx, me, { role: "employee" }, other.id) : deactivateUser(ctx.database.pool, me, other.id),
        ]);

        expect(
          outcomes.filter((outcome) => outcome.status === "fulfilled"),
          round,
        ).toHaveLength(1);
        const [rejected] = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
        expect(rejected?.reason, round).toMatchObject({ status: 409, detail: "The hub must keep at least one active admin" });
        const admins = await ctx.database.db.select({ id: schema.users.id, role: schema.users.role, isActive: schema.users.isActive }).from(schema.users);
        expect(
          admins.filter((user) => user.role === "admin" && user.isActive),
          round,
        ).toHaveLength(1);
        // The next round starts from `me` as the one admin, with the token the fixture keeps using.
        await ctx.database.db
          .update(schema.users)
          .set({ role: "admin", isActive: true, credentialGeneration: mine!.generation })
          .where(eq(schema.users.id, me));
        await ctx.database.db.update(schema.users).set({ role: "employee" }).where(eq(schema.users.id, other.id));
        ctx.auth.forgetCredentials(); // as the process making a change does, not waiting for the notification
      }
    } finally {
      await own.stop();
    }
  });
});

describe("deactivated users: listing, reactivation, their e-mail", () => {
  let user: TestUser;
  let apiKey: string;

  beforeAll(async () => {
    user = await hub.createUser("employee");
    apiKey = (await createApiKey(hub, user.token)).key;
    expect((await hub.client.delete(`/identity/users/${user.id}`, { token: hub.adminToken })).status).toBe(204);
  });

  it("when users are listed with include_inactive=true, then the deactivated user is there with is_active false; without it, not", async () => {
    const all = await hub.client.get<{ id: string; is_active: boolean }[]>("/identity/users?include_inactive=true&limit=1000", { token: hub.adminToken });
    const active = await hub.client.get<{ id: string }[]>("/identity/users?limit=1000", { token: hub.adminToken });

    expect(all.status).toBe(200);
    expect(all.body.find((listed) => listed.id === user.id)).toMatchObject({ is_active: false });
    expect(active.body.map((listed) => listed.id)).not.toContain(user.id);
  });

  it("when a user is created with a deactivated user's e-mail, then 409 naming the reactivation", async () => {
    const result = await hub.client.post(
      "/identity/users",
      { email: user.email.toUpperCase(), password: newPassword(), role: "employee" },
      { token: hub.adminToken },
    );

    expect(result.status).toBe(409);
    expect(result.body).toEqual({ detail: `A deactivated user has this e-mail: reactivate it with POST /identity/users/${user.id}/reactivate` });
  });

  it("when the user is reactivated, then 200 active, its old password signs in, its old token stays refused, its api key works again; a second reactivation is 409, an unknown id 404", async () => {
    const result = await hub.client.post(`/identity/users/${user.id}/reactivate`, undefined, { token: hub.adminToken });

    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ id: user.id, email: user.email, role: "employee", is_active: true });
    expect((await hub.client.post("/identity/token", { email: user.email, password: user.password })).status).toBe(200);
    await expectTokenRefused(user.token);
    expect((await hub.client.get("/identity/me", { token: apiKey })).status).toBe(200);
    expect(await eventsOf(user.id, "user.reactivated")).toMatchObject([{ payload: { user_id: user.id } }]);
    const again = await hub.client.post(`/identity/users/${user.id}/reactivate`, undefined, { token: hub.adminToken });
    expect(again.status).toBe(409);
    expect((await hub.client.post(`/identity/users/${randomUUID()}/reactivate`, undefined, { token: hub.adminToken })).status).toBe(404);
  });
});

describe("the password rules", () => {
  it("when a user is created with 11 characters, then 422 string_too_short; with 12, 201", async () => {
    const email = `rules-${randomBytes(4).toString("hex")}@hub.test`;

    const short = await hub.client.post("/identity/users", { email, password: "elevenchars", role: "employee" }, { token: hub.adminToken });
    const enough = await hub.client.post("/identity/users", { email, password: "twelve chars", role: "employee" }, { token: hub.adminToken });

    expect(short.status).toBe(422);
    expect(short.body.detail).toEqual([{ loc: ["body", "password"], msg: "String should have at least 12 characters", type: "string_too_short" }]);
    expect(enough.status).toBe(201);
  });

  it("when a password shorter than the minimum was set before, then it still signs in (the rules never apply to a login)", async () => {
    const user = await hub.createUser("employee");
    // As a hub with a smaller HUB_PASSWORD_MIN_LENGTH would have stored it.
    await hub.api.ctx.database.db
      .update(schema.users)
      .set({ passwordHash: await hashPassword("short") })
      .where(eq(schema.users.id, user.id));

    expect((await hub.client.post("/identity/token", { email: user.email, password: "short" })).status).toBe(200);
    expect((await hub.client.post("/identity/token", { email: user.email, password: "shor" })).status).toBe(401);
  });

  it("when /openapi.json is read, then every body that sets a password declares minLength 12", async () => {
    const { body: document } = await hub.client.get("/openapi.json");
    const schemas = document.components.schemas;

    expect(schemas.CreateUserRequest.properties.password.minLength).toBe(12);
    expect(schemas.ChangeOwnPasswordRequest.properties.new_password.minLength).toBe(12);
    expect(schemas.ResetPasswordRequest.properties.new_password.minLength).toBe(12);
    expect(document.paths["/identity/users/{user_id}"].patch.security).toEqual([{ OAuth2: [] }]);
    expect(document.paths["/identity/users/{user_id}/reactivate"].post.responses).toHaveProperty("409");
  });
});

describe("401 answers (RFC 6750)", () => {
  it("when a worker key is sent to a bearer endpoint, then 401 saying what to send instead", async () => {
    const attempts: Record<string, string>[] = [{ "x-worker-api-key": "whk_anything" }, { authorization: "Bearer whk_anything" }];
    for (const headers of attempts) {
      const result = await hub.client.get("/identity/me", { headers });
      expect(result.status).toBe(401);
      expect(result.headers.get("www-authenticate")).toBe("Bearer");
      expect(result.body).toEqual({ detail: "Worker api keys are for worker endpoints: bearer endpoints take Authorization: Bearer <token or api key>" });
    }
  });
});

describe("another API process", () => {
  it("when a password is reset through one API process, then another process refuses the user's old token once the notification arrives, with no restart", async () => {
    const second = await startApi({ ...hub.env, PORT: 0 }, createLogger("api-second", "silent"));
    try {
      const client = new HubClient(second.url);
      const user = await hub.createUser("employee");
      // The second process keeps the user in its credential cache.
      for (let i = 0; i < 3; i += 1) expect((await client.get("/identity/me", { token: user.token })).status).toBe(200);

      expect((await hub.client.put(`/identity/users/${user.id}/password`, { new_password: newPassword() }, { token: hub.adminToken })).status).toBe(204);

      await waitUntil(
        "the second process refuses the old token",
        async () => (await client.get("/identity/me", { token: user.token })).status === 401,
        2_000,
        20,
      );
      await expectTokenRefused(user.token, client);
    } finally {
      await second.stop();
    }
  });
});
