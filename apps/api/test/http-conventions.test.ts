import { randomBytes, randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { pino } from "pino";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryInt, uuid } from "@hub/shared";
import { createApp } from "../src/app";
import { defineRoute } from "../src/http/route";
import { allRoutes } from "../src/routes";
import { HubClient, startTestHub, type TestHub } from "./harness";

let hub: TestHub;
/** The same API, logging into `logLines`, with extra routes that exist only to probe the shared HTTP core. */
let probe: { client: HubClient; server: Server };

const probeRoutes = [
  defineRoute({
    method: "get",
    path: "/probe/crash",
    summary: "Throws an error carrying internals",
    tag: "probe",
    auth: "none",
    responses: {},
    handler: async () => {
      throw new Error("connect ECONNREFUSED db-internal.corp:5432 password=hunter2");
    },
  }),
  defineRoute({
    method: "get",
    path: "/probe/bad-sql",
    summary: "Runs a failing SQL statement",
    tag: "probe",
    auth: "none",
    responses: {},
    handler: async ({ ctx }) => {
      await ctx.db.execute(sql`select secret_column from secret_table_name`);
      return { status: 200 };
    },
  }),
  defineRoute({
    method: "get",
    path: "/probe/bad-param",
    summary: "Runs a query whose parameter PostgreSQL quotes back in its error",
    tag: "probe",
    auth: "none",
    responses: {},
    handler: async ({ ctx }) => {
      await ctx.db.execute(sql`select ${"$2b$10$not-a-number-but-a-secret-hash"}::int`);
      return { status: 200 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/probe/items/{item_id}",
    summary: "Validates path, query and body together",
    tag: "probe",
    auth: "none",
    params: z.object({ item_id: uuid() }),
    query: z.object({ count: queryInt() }),
    body: z.object({ name: z.string() }),
    responses: {},
    handler: async ({ params, query, body }) => ({ status: 200, body: { params, query, body } }),
  }),
];

/** Every line the probe app logs. */
const logLines: string[] = [];

beforeAll(async () => {
  hub = await startTestHub();
  const logger = pino({ level: "info" }, { write: (line: string) => void logLines.push(line) });
  const server = createApp({ ...hub.api.ctx, logger }, [...allRoutes, ...probeRoutes]).listen(0);
  await new Promise<void>((resolve) => server.once("listening", resolve));
  probe = { server, client: new HubClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) };
});
afterAll(async () => {
  await new Promise<void>((resolve) => (probe ? probe.server.close(() => resolve()) : resolve()));
  await hub?.stop();
});

const postSectorRaw = (rawBody: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  hub.client.post("/sectors", undefined, { token: hub.adminToken, rawBody, headers });

describe("request bodies", () => {
  it("when the JSON is malformed, then 422 json_invalid located at the character where it breaks", async () => {
    const result = await postSectorRaw('{"name": }');

    expect(result.status).toBe(422);
    expect(result.body).toEqual({ detail: [{ loc: ["body", 9], msg: "JSON decode error", type: "json_invalid" }] });
  });

  it("when the JSON is cut short inside a string, then the position is the string's opening quote, as FastAPI reports it", async () => {
    const result = await postSectorRaw('{"name": "Ops", "color": "#1');

    expect(result.body.detail).toEqual([{ loc: ["body", 25], msg: "JSON decode error", type: "json_invalid" }]);
  });

  it("when an object is required and no body is sent, then 422 missing on body", async () => {
    const result = await hub.client.post("/sectors", undefined, { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body"], msg: "Field required", type: "missing" }]);
  });

  it("when the body is a JSON array or a string, then 422 on body", async () => {
    const array = await hub.client.post("/sectors", [{ name: "x", color: "#000000" }], { token: hub.adminToken });
    const string = await hub.client.post("/sectors", "a sector", { token: hub.adminToken });

    for (const result of [array, string]) {
      expect(result.status).toBe(422);
      expect(result.body.detail).toEqual([{ loc: ["body"], msg: "Input should be a valid dictionary", type: "dict_type" }]);
    }
  });

  it("when the body is over 1 MiB, then 413 with a detail", async () => {
    const big = JSON.stringify({ name: "x", color: "#000000", padding: "p".repeat(1024 * 1024) });

    const result = await postSectorRaw(big);

    expect(result.status).toBe(413);
    expect(result.body).toEqual({ detail: expect.any(String) });
  });

  it("when a body is just under 1 MiB, then it is read and validated normally", async () => {
    const body = JSON.stringify({ name: `Big ${randomBytes(3).toString("hex")}`, color: "#000000", padding: "" });
    const padded = body.replace('"padding":""', `"padding":"${"p".repeat(1024 * 1024 - body.length - 16)}"`);

    const result = await postSectorRaw(padded);

    expect(result.status).toBe(201);
  });

  it("when the body carries unknown fields, then they are ignored and never assigned", async () => {
    const chosenId = randomUUID();
    const name = `Extra ${randomBytes(3).toString("hex")}`;

    const result = await hub.client.post(
      "/sectors",
      { name, color: "#101010", id: chosenId, created_at: "2000-01-01T00:00:00Z", surprise: { nested: true } },
      { token: hub.adminToken },
    );

    expect(result.status).toBe(201);
    expect(result.body.id).not.toBe(chosenId);
    const read = await hub.client.get(`/sectors/${result.body.id}`, { token: hub.adminToken });
    expect(read.body).toEqual({ id: result.body.id, name, color: "#101010", created_at: expect.any(String) });
    expect(read.body.created_at.startsWith("2000")).toBe(false);
  });
});

describe("validation", () => {
  it("when the path, the query and the body are all invalid, then every problem is reported at once, path first", async () => {
    const result = await probe.client.post("/probe/items/nope?count=many", { name: 5 });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([
      { loc: ["path", "item_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" },
      { loc: ["query", "count"], msg: "Input should be a valid integer, unable to parse string as an integer", type: "int_parsing" },
      { loc: ["body", "name"], msg: "Input should be a valid string", type: "string_type" },
    ]);
  });

  it("when path, query and body are valid, then the handler receives them parsed", async () => {
    const id = randomUUID();

    const result = await probe.client.post(`/probe/items/${id}?count=3`, { name: "ok", ignored: 1 });

    expect(result.status).toBe(200);
    expect(result.body).toEqual({ params: { item_id: id }, query: { count: 3 }, body: { name: "ok" } });
  });

  it("when a path id is not a uuid, then 422 on path.<name>", async () => {
    const result = await hub.client.delete("/identity/users/123", { token: hub.adminToken });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["path", "user_id"], msg: "Input should be a valid UUID", type: "uuid_parsing" }]);
  });
});

describe("routing and errors", () => {
  it("when the route is unknown, then 404 {detail: 'Not Found'}, with or without a token", async () => {
    for (const path of ["/nowhere", `/sectors/${randomUUID()}/members`, "/identity"]) {
      const anonymous = await hub.client.get(path);
      const authenticated = await hub.client.get(path, { token: hub.adminToken });
      expect(anonymous.status).toBe(404);
      expect(anonymous.body).toEqual({ detail: "Not Found" });
      expect(authenticated.status).toBe(404);
    }
  });

  it("when a known path is called with another method, then 405 with Allow", async () => {
    const result = await hub.client.delete("/identity/me", { token: hub.adminToken });

    expect(result.status).toBe(405);
    expect(result.body).toEqual({ detail: "Method Not Allowed" });
    expect(result.headers.get("allow")).toBe("GET");
  });

  it("when a handler throws, then 500 {detail} without any internals", async () => {
    for (const path of ["/probe/crash", "/probe/bad-sql"]) {
      const result = await probe.client.get(path);

      expect(result.status).toBe(500);
      expect(result.body).toEqual({ detail: "Internal Server Error" });
      expect(result.headers.get("content-type")).toMatch(/^application\/json/);
    }
  });

  it("when a query fails with a secret among its parameters, then 500 and the log names the query but not the secret", async () => {
    logLines.length = 0;

    const result = await probe.client.get("/probe/bad-param");

    expect(result.status).toBe(500);
    expect(result.body).toEqual({ detail: "Internal Server Error" });
    const log = logLines.join("");
    expect(log).toContain("unhandled error");
    expect(log).toContain("22P02");
    expect(log).not.toContain("not-a-number-but-a-secret-hash");
  });

  it("when a user logs in and calls with the token, then no log line carries the password or the token", async () => {
    const user = await hub.createUser("employee");
    logLines.length = 0;

    const login = await probe.client.post("/identity/token", { email: user.email, password: user.password });
    await probe.client.get("/identity/me", { token: login.body.access_token });
    await probe.client.post("/identity/token", { email: user.email, password: `${user.password}-wrong` });

    const log = logLines.join("");
    expect(logLines.length).toBeGreaterThanOrEqual(3);
    expect(log).not.toContain(user.password);
    expect(log).not.toContain(login.body.access_token);
  });

  it("when any error answers, then it is JSON", async () => {
    const responses = [
      await hub.client.get("/nowhere"),
      await hub.client.get("/identity/me"),
      await hub.client.post("/sectors", {}, { token: hub.adminToken }),
    ];

    for (const response of responses) expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });
});
