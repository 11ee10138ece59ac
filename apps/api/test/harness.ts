/**
 * Boots the real API in-process on port 0 against a fresh database and Redis prefix, and gives
 * tests a small HTTP client. One hub per test file: `const hub = useTestHub()` starts it in
 * `beforeAll` and stops it in `afterAll`.
 */
import { randomBytes } from "node:crypto";
import { createTestDatabase, deleteRedisKeys, HubClient, uniqueRedisPrefix, type TestDatabase } from "@hub/testing";
import { testServiceUrls } from "@hub/testing/vitest";
import { createLogger, type Logger, type Role } from "@hub/shared";
import { afterAll, beforeAll } from "vitest";
import { startApi, type RunningApi, type StartApiOptions } from "../src/app";
import { loadApiEnv, type ApiEnv } from "../src/env";

// The client lives in @hub/testing (other apps' tests drive the API as a process with it).
export { HubClient, type HttpResult, type RequestOptions } from "@hub/testing";

export const ADMIN_EMAIL = "admin@hub.test";
export const ADMIN_PASSWORD = "admin-password-for-tests";

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
}

export interface TestHub {
  api: RunningApi;
  client: HubClient;
  env: ApiEnv;
  database: TestDatabase;
  /** A token of the bootstrap admin (ADMIN_EMAIL); "" when the overrides configure no admin. */
  adminToken: string;
  /** Creates a user with a unique e-mail through POST /identity/users and logs it in. */
  createUser(role: Role): Promise<TestUser>;
  stop(): Promise<void>;
}

/** Starts an API for one test file; `overrides` set any env variable (e.g. HUB_JOB_LEASE_SECONDS). */
export async function startTestHub(overrides: Record<string, string> = {}, options: StartApiOptions & { logger?: Logger } = {}): Promise<TestHub> {
  const services = testServiceUrls();
  const database = await createTestDatabase(services.databaseServerUrl);
  const env = loadApiEnv({
    DATABASE_URL: database.url,
    REDIS_URL: services.redisUrl,
    HUB_REDIS_PREFIX: uniqueRedisPrefix(),
    PORT: "0",
    HUB_JWT_SECRET: "test-secret-that-is-at-least-32-characters-long",
    HUB_ADMIN_EMAIL: ADMIN_EMAIL,
    HUB_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LOG_LEVEL: process.env.LOG_LEVEL ?? "silent",
    // Every test logs in from 127.0.0.1, many times a minute (each createUser does): the
    // per-address login limit is off unless a test file turns it on (test/login-throttle.test.ts).
    HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE: "0",
    ...overrides,
  });
  const api = await startApi(env, options.logger ?? createLogger("api-test", env.LOG_LEVEL), options);
  const client = new HubClient(api.url);
  let adminToken = "";
  if (env.HUB_ADMIN_EMAIL && env.HUB_ADMIN_PASSWORD) {
    try {
      adminToken = await client.login(env.HUB_ADMIN_EMAIL, env.HUB_ADMIN_PASSWORD);
    } catch (error) {
      await api.stop();
      await database.drop();
      throw error;
    }
  }
  return {
    api,
    env,
    database,
    client,
    adminToken,
    createUser: async (role) => {
      const email = `${role}-${randomBytes(6).toString("hex")}@hub.test`;
      const password = `pw-${randomBytes(12).toString("base64url")}`;
      const created = await client.post<{ id: string }>("/identity/users", { email, password, role }, { token: adminToken });
      if (created.status !== 201) throw new Error(`createUser failed: ${created.status} ${JSON.stringify(created.body)}`);
      return { id: created.body.id, email, password, token: await client.login(email, password) };
    },
    stop: async () => {
      // Leave nothing behind in the shared Redis: every key under this hub's prefix goes.
      await deleteRedisKeys(api.ctx.redis, env.HUB_REDIS_PREFIX);
      await api.stop();
      await database.drop();
    },
  };
}

/**
 * The one hook idiom for a test file's hub: starts it in `beforeAll` (hooks registered after this
 * call see it started), stops it in `afterAll` (after the file's own `afterAll`s, which run in
 * reverse order), and returns a handle whose properties read the started hub:
 * `const hub = useTestHub({ HUB_JOB_LEASE_SECONDS: "2" })`, then `hub.client`, `hub.adminToken`, ….
 */
export function useTestHub(overrides: Record<string, string> = {}, options: StartApiOptions & { logger?: Logger } = {}): TestHub {
  return useStartedHub(() => startTestHub(overrides, options));
}

/** Registers the hooks that start `start()`'s hub for the test file and stop it; see {@link useTestHub}. */
export function useStartedHub<Hub extends { stop(): Promise<void> }>(start: () => Promise<Hub>): Hub {
  let started: Hub | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.stop();
  });
  const current = (): Hub => {
    if (!started) throw new Error("The test hub is not started: read it in a test, or in a hook registered after useTestHub");
    return started;
  };
  return new Proxy({} as Hub, {
    get: (_target, key) => Reflect.get(current(), key),
    has: (_target, key) => Reflect.has(current(), key),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_target, key) => Reflect.getOwnPropertyDescriptor(current(), key),
  });
}
