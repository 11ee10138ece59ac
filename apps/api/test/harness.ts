/**
 * Boots the real API in-process on port 0 against a fresh database and Redis prefix, and gives
 * tests a small HTTP client. One hub per test file (`beforeAll`), torn down in `afterAll`.
 */
import { createTestDatabase, uniqueRedisPrefix, type TestDatabase } from "@hub/db/testing";
import { testServiceUrls } from "@hub/db/testing/inject";
import { randomBytes } from "node:crypto";
import { createLogger, type Role } from "@hub/shared";
import { startApi, type RunningApi } from "../src/app";
import { loadApiEnv, type ApiEnv } from "../src/env";

export const ADMIN_EMAIL = "admin@hub.test";
export const ADMIN_PASSWORD = "admin-password-for-tests";

export interface HttpResult<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string | undefined;
  workerKey?: string | undefined;
  headers?: Record<string, string>;
  /** Sent as is (a string is not JSON-encoded). */
  rawBody?: string;
}

export class HubClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.workerKey) headers["x-worker-api-key"] = options.workerKey;
    let payload: string | undefined = options.rawBody;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (e.g. /metrics, /docs)
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>("GET", path, undefined, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("POST", path, body, options);
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>("PUT", path, body, options);
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>("DELETE", path, undefined, options);
  }

  /** Logs in and returns the access token (throws when login fails). */
  async login(email: string, password: string): Promise<string> {
    const result = await this.post<{ access_token: string }>("/identity/token", { email, password });
    if (result.status !== 200) throw new Error(`login failed for ${email}: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.access_token;
  }
}

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
export async function startTestHub(overrides: Record<string, string> = {}): Promise<TestHub> {
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
    ...overrides,
  });
  const api = await startApi(env, createLogger("api-test", env.LOG_LEVEL));
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
      const owned = await api.ctx.redis.keys(`${env.HUB_REDIS_PREFIX}:*`);
      if (owned.length > 0) await api.ctx.redis.del(...owned);
      await api.stop();
      await database.drop();
    },
  };
}
