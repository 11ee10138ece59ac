/**
 * Credentials are cached per API process (apps/api/src/http/credential-cache.ts) on the word of
 * PostgreSQL's `hub_credentials_changed` notifications. These tests change credentials behind
 * the API's back, as another API process or an operator's psql would, and check that the change
 * still takes effect.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiKey } from "./api-key-fixtures";
import { useTestHub } from "./harness";
import { claim, createAutomationWithWorker } from "./job-fixtures";

const hub = useTestHub();
let sql: pg.Client;

beforeAll(async () => {
  sql = new pg.Client({ connectionString: hub.database.url });
  await sql.connect();
});

afterAll(async () => {
  await sql?.end();
});

async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

async function listening(): Promise<boolean> {
  const { rows } = await sql.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'hub-api-credentials' AND datname = current_database()",
  );
  return rows[0].n === 1;
}

describe("credentials changed outside this API process", () => {
  it("when a user is deactivated directly in PostgreSQL, then its token is refused as soon as the notification arrives", async () => {
    expect(await eventually(listening)).toBe(true);
    const user = await hub.createUser("employee");
    // Warm the cache: these requests are answered from it.
    for (let i = 0; i < 3; i += 1) expect((await hub.client.get("/identity/me", { token: user.token })).status).toBe(200);
    await sql.query("UPDATE users SET is_active = false, deactivated_at = now() WHERE id = $1", [user.id]);
    expect(await eventually(async () => (await hub.client.get("/identity/me", { token: user.token })).status === 401, 2_000)).toBe(true);
  });

  it("when a worker is unregistered directly in PostgreSQL, then its key is refused as soon as the notification arrives", async () => {
    const { workerKey, workerId } = await createAutomationWithWorker(hub);
    expect((await claim(hub, workerKey)).status).toBe(204);
    expect((await claim(hub, workerKey)).status).toBe(204);
    await sql.query("UPDATE workers SET unregistered_at = now() WHERE id = $1", [workerId]);
    expect(await eventually(async () => (await claim(hub, workerKey)).status === 401, 2_000)).toBe(true);
  });

  it("when the listening session is killed, then nothing is trusted until it listens again, and a change made meanwhile still applies", async () => {
    const user = await hub.createUser("employee");
    expect((await hub.client.get("/identity/me", { token: user.token })).status).toBe(200);
    await sql.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'hub-api-credentials' AND datname = current_database()");
    // Made while no notification can reach the API: only re-reading the row can see it.
    await sql.query("UPDATE users SET is_active = false, deactivated_at = now() WHERE id = $1", [user.id]);
    expect(await eventually(async () => (await hub.client.get("/identity/me", { token: user.token })).status === 401, 2_000)).toBe(true);
    expect(await eventually(listening)).toBe(true);
    const other = await hub.createUser("employee");
    expect((await hub.client.get("/identity/me", { token: other.token })).status).toBe(200);
  });

  it("when an api key is revoked directly in PostgreSQL, then it is refused as soon as the notification arrives", async () => {
    expect(await eventually(listening)).toBe(true);
    const user = await hub.createUser("employee");
    const { id, key } = await createApiKey(hub, user.token);
    for (let i = 0; i < 3; i += 1) expect((await hub.client.get("/identity/me", { token: key })).status).toBe(200);
    await sql.query("UPDATE api_keys SET revoked_at = now() WHERE id = $1", [id]);
    expect(await eventually(async () => (await hub.client.get("/identity/me", { token: key })).status === 401, 2_000)).toBe(true);
  });

  it("when a kept api key's expiry passes, then it is refused though nothing changed in PostgreSQL", async () => {
    expect(await eventually(listening)).toBe(true);
    const user = await hub.createUser("employee");
    const { key, expires_at } = await createApiKey(hub, user.token, { expires_in_days: 1 });
    expect((await hub.client.get("/identity/me", { token: key })).status).toBe(200);

    vi.useFakeTimers({ now: Date.parse(expires_at) + 1_000, toFake: ["Date"] });
    try {
      expect((await hub.client.get("/identity/me", { token: key })).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it("when the api_keys table is locked, then requests with a key already read are still answered (the cache serves them)", async () => {
    expect(await eventually(listening)).toBe(true);
    const user = await hub.createUser("employee");
    const { key } = await createApiKey(hub, user.token);
    expect((await hub.client.get("/identity/me", { token: key })).status).toBe(200);
    const locker = new pg.Client({ connectionString: hub.database.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE");
      const answered = await Promise.race([
        hub.client.get("/identity/me", { token: key }).then((response) => response.status),
        new Promise<string>((resolve) => setTimeout(() => resolve("blocked"), 3_000)),
      ]);
      expect(answered).toBe(200);
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }
  });

  it("when the users table is locked, then a signed-in user's requests that need no user row are still answered (the cache serves them)", async () => {
    expect(await eventually(listening)).toBe(true);
    const user = await hub.createUser("employee");
    expect((await hub.client.get("/identity/me", { token: user.token })).status).toBe(200);
    const locker = new pg.Client({ connectionString: hub.database.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE users IN ACCESS EXCLUSIVE MODE");
      const answered = await Promise.race([
        hub.client.get("/identity/me", { token: user.token }).then((response) => response.status),
        new Promise<string>((resolve) => setTimeout(() => resolve("blocked"), 3_000)),
      ]);
      expect(answered).toBe(200);
    } finally {
      await locker.query("ROLLBACK");
      await locker.end();
    }
  });
});
