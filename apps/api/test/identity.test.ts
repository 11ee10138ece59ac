import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { and, eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { schema } from "@hub/db";
import { hashApiKey } from "../src/identity/secret-keys";
import { AdminCredentialsError, ensureFirstAdmin } from "../src/identity/bootstrap";
import { LOGIN_FAILURE_WINDOW_SECONDS } from "../src/identity/login.service";
import { ADMIN_EMAIL, ADMIN_PASSWORD, useTestHub } from "./harness";
import { expectNoSecrets } from "./secrets";

const hub = useTestHub();

const silentLogger = () => hub.api.ctx.logger;
const uniqueEmail = (label: string) => `${label}-${randomBytes(5).toString("hex")}@hub.test`;

function postForm(fields: Record<string, string>) {
  return hub.client.post("/identity/token", undefined, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

async function eventsOf(aggregateId: string) {
  return hub.api.ctx.database.db.select().from(schema.events).where(eq(schema.events.aggregateId, aggregateId)).orderBy(schema.events.position);
}

describe("POST /identity/token", () => {
  it("when the bootstrap admin logs in with JSON, then a bearer token with its lifetime is returned", async () => {
    const result = await hub.client.post("/identity/token", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });

    expect(result.status).toBe(200);
    expect(result.body).toEqual({ access_token: expect.any(String), token_type: "bearer", expires_in: 3600 });
    const me = await hub.client.get("/identity/me", { token: result.body.access_token });
    expect(me.body.email).toBe(ADMIN_EMAIL);
    expectNoSecrets(result.body, [ADMIN_PASSWORD]);
  });

  it("when a user logs in with the OAuth2 password form, then a token is returned", async () => {
    const user = await hub.createUser("employee");

    const withGrant = await postForm({ username: user.email, password: user.password, grant_type: "password" });
    const withoutGrant = await postForm({ username: user.email, password: user.password });

    expect(withGrant.status).toBe(200);
    expect(withGrant.body.token_type).toBe("bearer");
    expect(withoutGrant.status).toBe(200);
    const me = await hub.client.get("/identity/me", { token: withGrant.body.access_token });
    expect(me.body.id).toBe(user.id);
  });

  it("when the e-mail is typed in another case, then the login still succeeds", async () => {
    const result = await hub.client.post("/identity/token", { email: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD });

    expect(result.status).toBe(200);
  });

  it("when the e-mail is unknown, the password wrong or the user deactivated, then the same 401 answers all three", async () => {
    const deactivated = await hub.createUser("employee");
    await hub.client.delete(`/identity/users/${deactivated.id}`, { token: hub.adminToken });

    const attempts = await Promise.all([
      hub.client.post("/identity/token", { email: uniqueEmail("nobody"), password: ADMIN_PASSWORD }),
      hub.client.post("/identity/token", { email: ADMIN_EMAIL, password: "not-the-password" }),
      hub.client.post("/identity/token", { email: deactivated.email, password: deactivated.password }),
    ]);

    for (const attempt of attempts) {
      expect(attempt.status).toBe(401);
      expect(attempt.body).toEqual({ detail: "Incorrect email or password" });
      expect(attempt.headers.get("www-authenticate")).toBe("Bearer");
    }
  });

  it("when the password is longer than bcrypt's 72 bytes but starts with the real one, then the login fails", async () => {
    const user = await hub.createUser("employee");

    const result = await hub.client.post("/identity/token", { email: user.email, password: `${user.password}${"x".repeat(80)}` });

    expect(result.status).toBe(401);
  });

  it("when /openapi.json is read, then the token endpoint documents both the JSON body and the OAuth2 form", async () => {
    const document = await hub.client.get("/openapi.json");

    const content = document.body.paths["/identity/token"].post.requestBody.content;
    // Both are named components (LoginRequest, LoginForm), referenced from the operation.
    const resolved = (schema: { $ref: string }) => document.body.components.schemas[schema.$ref.replace("#/components/schemas/", "")];
    expect(resolved(content["application/json"].schema).required).toEqual(["email", "password"]);
    expect(resolved(content["application/x-www-form-urlencoded"].schema).required).toEqual(["username", "password"]);
  });

  it("when the form's grant_type is not 'password', then 422 on body.grant_type", async () => {
    const result = await postForm({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD, grant_type: "client_credentials" });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body", "grant_type"], msg: "String should match pattern '^password$'", type: "string_pattern_mismatch" }]);
  });

  it("when the form lacks username and password, then 422 names both form fields", async () => {
    const result = await postForm({ grant_type: "password" });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "username"], msg: "Field required", type: "missing" },
      { loc: ["body", "password"], msg: "Field required", type: "missing" },
    ]);
  });

  it("when the JSON body lacks the e-mail and has a non-string password, then 422 reports both", async () => {
    const result = await hub.client.post("/identity/token", { password: 12345 });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["body", "email"], msg: "Field required", type: "missing" },
      { loc: ["body", "password"], msg: "Input should be a valid string", type: "string_type" },
    ]);
  });
});

describe("login throttling", () => {
  // The default HUB_LOGIN_MAX_FAILURES; every request here comes from one address.
  const LOGIN_MAX_FAILURES = 10;
  it(`when one e-mail fails ${LOGIN_MAX_FAILURES} times, then the next attempt is 429 with Retry-After, even with the right password`, async () => {
    const user = await hub.createUser("employee");
    for (let attempt = 0; attempt < LOGIN_MAX_FAILURES; attempt++) {
      // Case does not matter: the count is per e-mail address, not per spelling.
      const email = attempt % 2 === 0 ? user.email : user.email.toUpperCase();
      const failure = await hub.client.post("/identity/token", { email, password: "wrong" });
      expect(failure.status).toBe(401);
    }

    const throttled = await hub.client.post("/identity/token", { email: user.email, password: user.password });
    const otherUser = await hub.client.post("/identity/token", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });

    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ detail: expect.any(String) });
    const retryAfter = Number(throttled.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(LOGIN_FAILURE_WINDOW_SECONDS);
    expect(otherUser.status).toBe(200);
  });

  it("when a login succeeds, then the earlier failures of that e-mail are forgotten", async () => {
    const user = await hub.createUser("employee");
    for (let attempt = 0; attempt < LOGIN_MAX_FAILURES - 1; attempt++) {
      await hub.client.post("/identity/token", { email: user.email, password: "wrong" });
    }
    expect((await hub.client.post("/identity/token", { email: user.email, password: user.password })).status).toBe(200);

    const statuses: number[] = [];
    for (let attempt = 0; attempt < LOGIN_MAX_FAILURES; attempt++) {
      statuses.push((await hub.client.post("/identity/token", { email: user.email, password: "wrong" })).status);
    }

    expect(statuses).toEqual(Array(LOGIN_MAX_FAILURES).fill(401));
  });
});

describe("GET /identity/me", () => {
  it("when an employee asks, then its own record is returned without any secret", async () => {
    const user = await hub.createUser("employee");

    const result = await hub.client.get("/identity/me", { token: user.token });

    expect(result.status).toBe(200);
    expect(result.body).toEqual({ id: user.id, email: user.email, role: "employee", is_active: true, created_at: expect.any(String), sector_ids: null });
    expect(new Date(result.body.created_at).toISOString()).toBe(result.body.created_at);
    expectNoSecrets(result.body, [user.password]);
  });
});

describe("bearer authentication", () => {
  const secret = () => new TextEncoder().encode(hub.env.HUB_JWT_SECRET);
  const adminId = async () => (await hub.client.get("/identity/me", { token: hub.adminToken })).body.id as string;
  const claims = (sub: string) => new SignJWT({ role: "admin" }).setSubject(sub).setIssuer("automation-hub").setAudience("automation-hub-api");

  /** RFC 6750's answer for a bearer credential that was sent and refused (CONTRACT §6.11). */
  const INVALID_TOKEN = { challenge: 'Bearer error="invalid_token"', detail: "Could not validate credentials" };
  const NO_CREDENTIAL = { challenge: "Bearer", detail: "Not authenticated" };

  async function expectRejected(headers: Record<string, string>, expected = INVALID_TOKEN) {
    const result = await hub.client.get("/identity/me", { headers });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ detail: expected.detail });
    expect(result.headers.get("www-authenticate")).toBe(expected.challenge);
  }

  it("when no token is sent, then 401 with WWW-Authenticate: Bearer", async () => {
    await expectRejected({}, NO_CREDENTIAL);
  });

  it("when the token is garbage or the scheme is not Bearer, then 401", async () => {
    await expectRejected({ authorization: "Bearer not-a-jwt" });
    await expectRejected({ authorization: `Basic ${Buffer.from(`${ADMIN_EMAIL}:${ADMIN_PASSWORD}`).toString("base64")}` }, NO_CREDENTIAL);
    await expectRejected({ authorization: "Bearer" }, NO_CREDENTIAL);
  });

  it("when the token has expired, then 401", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await claims(await adminId())
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(secret());

    await expectRejected(
      { authorization: `Bearer ${token}` },
      { challenge: 'Bearer error="invalid_token", error_description="The access token expired"', detail: "Token expired" },
    );
  });

  it("when the token is signed with another key, then 401", async () => {
    const token = await claims(await adminId())
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("another-secret-that-is-32-characters-long!"));

    await expectRejected({ authorization: `Bearer ${token}` });
  });

  it("when the token claims alg 'none' and carries no signature, then 401", async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const now = Math.floor(Date.now() / 1000);
    const payload = { sub: await adminId(), role: "admin", iss: "automation-hub", aud: "automation-hub-api", iat: now, exp: now + 3600 };
    const token = `${encode({ alg: "none", typ: "JWT" })}.${encode(payload)}.`;

    await expectRejected({ authorization: `Bearer ${token}` });
  });

  it("when the token was issued for another audience, then 401", async () => {
    const token = await new SignJWT({ role: "admin" })
      .setSubject(await adminId())
      .setIssuer("automation-hub")
      .setAudience("some-other-service")
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(secret());

    await expectRejected({ authorization: `Bearer ${token}` });
  });

  describe("when a token is signed with the right secret but breaks the hub's claim rules, then 401", () => {
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const now = () => Math.floor(Date.now() / 1000);

    it("without exp (it would never expire)", async () => {
      const token = await claims(await adminId())
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt()
        .sign(secret());
      await expectRejected(bearer(token));
    });

    it("without iat", async () => {
      const token = await claims(await adminId())
        .setProtectedHeader({ alg: "HS256" })
        .setExpirationTime("10m")
        .sign(secret());
      await expectRejected(bearer(token));
    });

    it("with a lifetime beyond HUB_ACCESS_TOKEN_TTL_SECONDS, though still valid now", async () => {
      const issuedAt = now() - 10;
      const token = await claims(await adminId())
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + hub.env.HUB_ACCESS_TOKEN_TTL_SECONDS + 60)
        .sign(secret());
      await expectRejected(bearer(token));
    });

    it("with an iat in the future (which would stretch its life past the TTL)", async () => {
      const issuedAt = now() + 3600;
      const token = await claims(await adminId())
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + 600)
        .sign(secret());
      await expectRejected(bearer(token));
    });

    it("with another HMAC algorithm (HS512) and the same secret", async () => {
      const token = await claims(await adminId())
        .setProtectedHeader({ alg: "HS512" })
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(secret());
      await expectRejected(bearer(token));
    });

    it("with another issuer", async () => {
      const token = await new SignJWT({ role: "admin" })
        .setSubject(await adminId())
        .setIssuer("someone-else")
        .setAudience("automation-hub-api")
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(secret());
      await expectRejected(bearer(token));
    });

    it("but a token with every rule kept is accepted (the rules above are what fail)", async () => {
      const token = await claims(await adminId())
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(secret());
      expect((await hub.client.get("/identity/me", { headers: bearer(token) })).status).toBe(200);
    });
  });

  it("when a registered worker's api key is sent to a bearer endpoint, then 401", async () => {
    const db = hub.api.ctx.database.db;
    const apiKey = randomBytes(32).toString("base64url");
    const [sector] = await db
      .insert(schema.sectors)
      .values({ name: `auth-${randomBytes(4).toString("hex")}`, color: "#112233" })
      .returning();
    const [automation] = await db
      .insert(schema.automations)
      .values({ name: "auth probe", slug: `auth-probe-${randomBytes(4).toString("hex")}`, sectorId: sector!.id })
      .returning();
    await db.insert(schema.workers).values({ automationId: automation!.id, cloudInstanceId: "i-auth", apiKeyHash: hashApiKey(apiKey) });

    const workerKeyOnBearerEndpoint = {
      challenge: "Bearer",
      detail: "Worker api keys are for worker endpoints: bearer endpoints take Authorization: Bearer <token or api key>",
    };
    await expectRejected({ "x-worker-api-key": apiKey }, workerKeyOnBearerEndpoint);
    await expectRejected({ authorization: `Bearer whk_${apiKey}` }, workerKeyOnBearerEndpoint);
    const events = await hub.client.get("/events", { workerKey: apiKey });
    expect(events.status).toBe(401);
  });
});

describe("first admin (bootstrap)", () => {
  it("when the hub started with HUB_ADMIN_EMAIL/PASSWORD, then that admin exists with a user.created event by no actor", async () => {
    const me = await hub.client.get("/identity/me", { token: hub.adminToken });

    expect(me.body).toMatchObject({ email: ADMIN_EMAIL, role: "admin", is_active: true });
    const [created] = await eventsOf(me.body.id);
    expect(created).toMatchObject({ eventType: "user.created", actorId: null, payload: { email: ADMIN_EMAIL, role: "admin" } });
  });

  it("when several processes bootstrap the same admin at once, then exactly one user and one event are created", async () => {
    const email = uniqueEmail("Boss").replace("boss", "BOSS");

    const outcomes = await Promise.all([1, 2, 3].map(() => ensureFirstAdmin(hub.api.ctx.database.pool, email, "boss-password", silentLogger())));

    expect(outcomes.filter((outcome) => outcome === "created")).toHaveLength(1);
    const rows = await hub.api.ctx.database.db.select().from(schema.users).where(eq(schema.users.email, email.toLowerCase()));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.role).toBe("admin");
    const created = await hub.api.ctx.database.db
      .select()
      .from(schema.events)
      .where(and(eq(schema.events.aggregateId, rows[0]!.id), eq(schema.events.eventType, "user.created")));
    expect(created).toHaveLength(1);
    expect(created[0]?.actorId).toBeNull();
    expect((await hub.client.post("/identity/token", { email, password: "boss-password" })).status).toBe(200);
  });

  it("when a user already has the admin e-mail, then bootstrap changes nothing", async () => {
    const before = await hub.api.ctx.database.db.select().from(schema.events);

    const outcome = await ensureFirstAdmin(hub.api.ctx.database.pool, ADMIN_EMAIL.toUpperCase(), "a-different-password", silentLogger());

    expect(outcome).toBe("exists");
    expect(await hub.api.ctx.database.db.select().from(schema.events)).toHaveLength(before.length);
    expect((await hub.client.post("/identity/token", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).status).toBe(200);
  });

  it("when the admin variables are unset, then nothing is created", async () => {
    expect(await ensureFirstAdmin(hub.api.ctx.database.pool, undefined, "x", silentLogger())).toBe("not-configured");
    expect(await ensureFirstAdmin(hub.api.ctx.database.pool, "x@hub.test", undefined, silentLogger())).toBe("not-configured");
  });

  it("when the admin password is over 72 bytes or the e-mail invalid, then start-up fails naming the variable", async () => {
    await expect(ensureFirstAdmin(hub.api.ctx.database.pool, uniqueEmail("long"), "p".repeat(73), silentLogger())).rejects.toThrow(
      new AdminCredentialsError("Configuration error: HUB_ADMIN_PASSWORD is invalid: String should have at most 72 bytes in UTF-8"),
    );
    await expect(ensureFirstAdmin(hub.api.ctx.database.pool, "not-an-email", "fine", silentLogger())).rejects.toThrow(/HUB_ADMIN_EMAIL is invalid/);
  });
});

describe("create-admin command", () => {
  const execFileAsync = promisify(execFile);
  const apiRoot = path.resolve(import.meta.dirname, "..");
  const run = (env: Record<string, string>) =>
    execFileAsync(path.join(apiRoot, "node_modules/.bin/tsx"), ["src/identity/create-admin-cli.ts"], {
      cwd: apiRoot,
      env: { PATH: process.env.PATH ?? "", DATABASE_URL: hub.database.url, LOG_LEVEL: "silent", ...env },
    });

  it("when run twice with an admin's e-mail and password, then it creates the admin once and can log in", async () => {
    const email = uniqueEmail("cli");

    const first = await run({ HUB_ADMIN_EMAIL: email, HUB_ADMIN_PASSWORD: "cli-password" });
    const second = await run({ HUB_ADMIN_EMAIL: email, HUB_ADMIN_PASSWORD: "cli-password" });

    expect(first.stdout).toBe(`admin ${email} created\n`);
    expect(second.stdout).toContain("already exists");
    const token = await hub.client.login(email, "cli-password");
    expect((await hub.client.get("/identity/me", { token })).body.role).toBe("admin");
  });

  it("when HUB_ADMIN_PASSWORD is missing, then it exits non-zero with one line naming it", async () => {
    const failure = await run({ HUB_ADMIN_EMAIL: uniqueEmail("cli") }).catch((error: { code: number; stderr: string }) => error);

    expect(failure).toMatchObject({ code: 1, stderr: "create-admin: Configuration error: HUB_ADMIN_PASSWORD is required\n" });
  });
});
