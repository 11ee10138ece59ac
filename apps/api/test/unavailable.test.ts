/**
 * CONTRACT §6.1: a request that needs PostgreSQL or Redis while it is unreachable answers 503
 * `{"detail":"Service temporarily unavailable"}` with Retry-After, within 2 s, never 500; /readyz
 * names the dependency that is down and /healthz stays 200.
 *
 * The API runs in-process with its context pointed at a dependency that is not there: a closed
 * port (refused at once), or a port that accepts connections and never answers (the case a pool
 * with a long connection timeout would hang on).
 */
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@hub/db";
import { createRedis } from "@hub/shared";
import type { Redis } from "ioredis";
import { createApp } from "../src/app";
import type { AppContext } from "../src/context";
import { Authenticator } from "../src/http/auth";
import { freePort } from "@hub/testing";
import { ADMIN_EMAIL, ADMIN_PASSWORD, HubClient, useTestHub } from "./harness";

const UNAVAILABLE = { detail: "Service temporarily unavailable" };
/** CONTRACT §6.1's bound. */
const ANSWER_WITHIN_MS = 2000;

interface Outage {
  client: HubClient;
  close(): Promise<void>;
}

const hub = useTestHub();
const outages: Outage[] = [];
const sockets = new Set<Socket>();
let silentServer: Server;

/** A TCP server that accepts connections and never says a word. */
async function startSilentServer(): Promise<number> {
  silentServer = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silentServer.listen(0, "127.0.0.1", resolve));
  return (silentServer.address() as AddressInfo).port;
}

/** The hub's API with its database and/or Redis replaced by unreachable ones. */
async function apiWith(replace: { databaseUrl?: string; redisUrl?: string }): Promise<Outage> {
  const base = hub.api.ctx;
  let database: Database | undefined;
  let redis: Redis | undefined;
  const ctx: AppContext = { ...base };
  if (replace.databaseUrl) {
    database = openDatabase(replace.databaseUrl, { max: 4, applicationName: "hub-api-unavailable-test" });
    Object.assign(ctx, { database, db: database.db, auth: new Authenticator(database.pool, base.tokens) });
  }
  if (replace.redisUrl) {
    // As app.ts opens the API's request connection.
    redis = createRedis(replace.redisUrl, "hub-api-unavailable-test", { commandTimeoutMs: 1000 });
    ctx.redis = redis;
  }
  const server = createApp(ctx).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const outage: Outage = {
    client: new HubClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis?.disconnect();
      await database?.close().catch(() => undefined);
    },
  };
  outages.push(outage);
  return outage;
}

async function timed<T>(call: () => Promise<T>): Promise<{ answer: T; elapsedMs: number }> {
  const started = performance.now();
  const answer = await call();
  return { answer, elapsedMs: performance.now() - started };
}

function databaseUrlOnPort(port: number): string {
  const url = new URL(hub.env.DATABASE_URL);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return url.toString();
}

afterAll(async () => {
  await Promise.all(outages.map((outage) => outage.close()));
  for (const socket of sockets) socket.destroy();
  silentServer?.close();
});

describe("when PostgreSQL refuses connections", () => {
  let api: Outage;
  beforeAll(async () => {
    api = await apiWith({ databaseUrl: databaseUrlOnPort(await freePort()) });
  });

  it("then a login answers 503 with Retry-After within 2 s", async () => {
    const { answer, elapsedMs } = await timed(() => api.client.post("/identity/token", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it("then an authenticated read and a job creation answer 503, not 500", async () => {
    const list = await api.client.get("/jobs", { token: hub.adminToken });
    expect(list.status).toBe(503);
    expect(list.body).toEqual(UNAVAILABLE);
    const create = await api.client.post("/jobs", { automation_id: crypto.randomUUID(), context: {} }, { token: hub.adminToken });
    expect(create.status).toBe(503);
    expect(create.headers.get("retry-after")).not.toBeNull();
  });

  it("then /readyz answers 503 naming the database, and /healthz stays 200", async () => {
    const { answer, elapsedMs } = await timed(() => api.client.get("/readyz"));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ ...UNAVAILABLE, status: "unavailable", checks: { database: "down", redis: "ok" } });
    expect(answer.headers.get("retry-after")).not.toBeNull();
    expect(elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
    expect((await api.client.get("/healthz")).status).toBe(200);
  });
});

describe("when PostgreSQL accepts connections but never answers", () => {
  it("then a request answers 503 within 2 s instead of hanging on the connection", async () => {
    const api = await apiWith({ databaseUrl: databaseUrlOnPort(await startSilentServer()) });
    const { answer, elapsedMs } = await timed(() => api.client.get("/jobs", { token: hub.adminToken }));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(UNAVAILABLE);
    expect(elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
  });
});

describe("when Redis is unreachable", () => {
  let api: Outage;
  beforeAll(async () => {
    api = await apiWith({ redisUrl: `redis://127.0.0.1:${await freePort()}` });
  });

  it("then login keeps working, and stays throttled, because its counts live in PostgreSQL (CONTRACT §6.15)", async () => {
    const email = `throttled-${Date.now()}@hub.test`;
    const failures: number[] = [];
    for (let i = 0; i <= 10; i++) failures.push((await api.client.post("/identity/token", { email, password: "wrong" })).status);

    const { answer, elapsedMs } = await timed(() => api.client.post("/identity/token", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD }));

    expect(failures).toEqual([...Array<number>(10).fill(401), 429]);
    expect(answer.status).toBe(200);
    expect(elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it("then /readyz answers 503 naming Redis", async () => {
    const { answer, elapsedMs } = await timed(() => api.client.get("/readyz"));
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ ...UNAVAILABLE, status: "unavailable", checks: { database: "ok", redis: "down" } });
    expect(elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
  });

  it("then requests that need only PostgreSQL still answer", async () => {
    const list = await api.client.get("/sectors", { token: hub.adminToken });
    expect(list.status).toBe(200);
  });
});
