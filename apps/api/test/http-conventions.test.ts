import { randomBytes, randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { pino } from "pino";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryInt, uuid } from "@hub/shared";
import { createApp } from "../src/app";
import { MAX_JSON_DEPTH } from "../src/http/body";
import { defineRoute } from "../src/http/route";
import { allRoutes } from "../src/routes";
import { ADMIN_EMAIL, ADMIN_PASSWORD, HubClient, useTestHub } from "./harness";

const hub = useTestHub();
/** The same API, logging into `logLines`, with extra routes that exist only to probe the shared HTTP core. */
let probe: { client: HubClient; server: Server };

const probeRoutes = [
  defineRoute({
    method: "get",
    path: "/probe/crash",
    operationId: "probeCrash",
    summary: "Throws an error carrying internals",
    description: "A probe of the shared HTTP core, mounted only in this test",
    tag: "operations",
    auth: "none",
    responses: {},
    handler: async () => {
      throw new Error("connect ECONNREFUSED db-internal.corp:5432 password=hunter2");
    },
  }),
  defineRoute({
    method: "get",
    path: "/probe/bad-sql",
    operationId: "probeBadSql",
    summary: "Runs a failing SQL statement",
    description: "A probe of the shared HTTP core, mounted only in this test",
    tag: "operations",
    auth: "none",
    responses: {},
    handler: async ({ ctx }) => {
      await ctx.database.db.execute(sql`select secret_column from secret_table_name`);
      return { status: 200 };
    },
  }),
  defineRoute({
    method: "get",
    path: "/probe/bad-param",
    operationId: "probeBadParam",
    summary: "Runs a query whose parameter PostgreSQL quotes back in its error",
    description: "A probe of the shared HTTP core, mounted only in this test",
    tag: "operations",
    auth: "none",
    responses: {},
    handler: async ({ ctx }) => {
      await ctx.database.db.execute(sql`select ${"$2b$10$not-a-number-but-a-secret-hash"}::int`);
      return { status: 200 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/probe/items/{item_id}",
    operationId: "probeValidation",
    summary: "Validates path, query and body together",
    description: "A probe of the shared HTTP core, mounted only in this test",
    tag: "operations",
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
  const logger = pino({ level: "info" }, { write: (line: string) => void logLines.push(line) });
  const server = createApp({ ...hub.api.ctx, logger }, [...allRoutes, ...probeRoutes]).listen(0);
  await new Promise<void>((resolve) => server.once("listening", resolve));
  probe = { server, client: new HubClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) };
});
afterAll(async () => {
  await new Promise<void>((resolve) => (probe ? probe.server.close(() => resolve()) : resolve()));
});

const postSectorRaw = (rawBody: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  hub.client.post("/sectors", undefined, { token: hub.adminToken, rawBody, headers });

describe("request bodies", () => {
  it("when the JSON is malformed, then 422 json_invalid located at the character where it breaks, saying what was expected there", async () => {
    const result = await postSectorRaw('{"name": }');

    expect(result.status).toBe(422);
    expect(result.body).toEqual({ detail: [{ loc: ["body", 9], msg: "Invalid JSON: expected value at line 1 column 10", type: "json_invalid" }] });
  });

  it("when the JSON is cut short inside a string, then the position is the string's opening quote, as FastAPI reports it", async () => {
    const result = await postSectorRaw('{"name": "Ops", "color": "#1');

    expect(result.body.detail).toEqual([{ loc: ["body", 25], msg: "Invalid JSON: EOF while parsing a string at line 1 column 26", type: "json_invalid" }]);
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

describe("media types and the order of refusals (CONTRACT §6.1)", () => {
  const sectorJson = () => JSON.stringify({ name: `Media ${randomBytes(4).toString("hex")}`, color: "#123456" });
  const unsupported = { detail: "Unsupported Media Type: send application/json" };

  it("when a non-empty body is text/plain, XML, a form or multipart, then 415 and nothing is created", async () => {
    const before = await hub.client.get("/sectors?limit=1000", { token: hub.adminToken });
    for (const contentType of [
      "text/plain",
      "application/xml",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "text/json",
    ]) {
      const result = await postSectorRaw(sectorJson(), { "content-type": contentType });

      expect(result.status, contentType).toBe(415);
      expect(result.body).toEqual(unsupported);
    }
    const after = await hub.client.get("/sectors?limit=1000", { token: hub.adminToken });
    expect(after.body).toHaveLength(before.body.length);
  });

  it("when the media type is application/json with parameters, in any case, or application/*+json, then the body is read", async () => {
    for (const contentType of [
      "application/json; charset=utf-8",
      "Application/JSON",
      "application/merge-patch+json",
      "application/vnd.hub.v1+json; charset=UTF-8",
    ]) {
      const result = await postSectorRaw(sectorJson(), { "content-type": contentType });
      expect(result.status, contentType).toBe(201);
    }
  });

  it("when no Content-Type is sent, then the body is read as JSON", async () => {
    // fetch labels a string body text/plain; bytes go without a Content-Type.
    const response = await fetch(`${hub.client.baseUrl}/sectors`, {
      method: "POST",
      headers: { authorization: `Bearer ${hub.adminToken}` },
      body: new TextEncoder().encode(sectorJson()),
    });

    expect(response.status).toBe(201);
  });

  it("when the body is empty, then never 415, whatever the Content-Type", async () => {
    const result = await postSectorRaw("", { "content-type": "text/plain" });
    const bodiless = await hub.client.post(`/jobs/${randomUUID()}/cancel`, undefined, {
      token: hub.adminToken,
      rawBody: "",
      headers: { "content-type": "image/png" },
    });

    expect(result.status).toBe(422);
    expect(result.body.detail).toEqual([{ loc: ["body"], msg: "Field required", type: "missing" }]);
    expect(bodiless.status).toBe(404);
  });

  it("when the OAuth2 form is sent to POST /identity/token, then it is still read (a form elsewhere is 415)", async () => {
    const form = new URLSearchParams({ username: ADMIN_EMAIL, password: ADMIN_PASSWORD }).toString();

    const login = await hub.client.post("/identity/token", undefined, {
      rawBody: form,
      headers: { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" },
    });
    const xmlLogin = await hub.client.post("/identity/token", undefined, { rawBody: "<login/>", headers: { "content-type": "application/xml" } });

    expect(login.status).toBe(200);
    expect(xmlLogin.status).toBe(415);
  });

  it("when a request is both unauthenticated and unreadable, then 401 comes first, then 403", async () => {
    const employee = await hub.createUser("employee");
    const big = "x".repeat(1024 * 1024 + 10);
    for (const rawBody of [big, "not json", "{"]) {
      const headers = { "content-type": rawBody === "{" ? "application/json" : "text/plain" };
      const anonymous = await hub.client.post("/sectors", undefined, { rawBody, headers });
      const forbidden = await hub.client.post("/sectors", undefined, { rawBody, headers, token: employee.token });

      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
      expect(forbidden.status).toBe(403);
    }
  });

  it("when the body is both too large and of the wrong type, then 413; of the wrong type and malformed, then 415; then 422", async () => {
    const tooLarge = await postSectorRaw("<".repeat(1024 * 1024 + 10), { "content-type": "text/xml" });
    const wrongTypeAndMalformed = await postSectorRaw("{not json", { "content-type": "text/plain" });
    const malformedAndInvalidPath = await hub.client.post("/jobs/not-a-uuid/fail", undefined, {
      rawBody: "{",
      headers: { "content-type": "application/json" },
      token: hub.adminToken,
    });

    expect(tooLarge.status).toBe(413);
    expect(wrongTypeAndMalformed.status).toBe(415);
    // A bearer token on a worker endpoint is refused before the body is looked at.
    expect(malformedAndInvalidPath.status).toBe(401);
    expect((await postSectorRaw("{")).status).toBe(422);
  });
});

describe("text and nesting PostgreSQL cannot store (found by the fuzz)", () => {
  const unstorable = (loc: (string | number)[]) => ({ loc, msg: expect.stringContaining("NUL"), type: "value_error" });

  it("when a string holds NUL or a lone surrogate, in a field, a key or the query, then 422 on each, and nothing is created", async () => {
    const sectors = await hub.client.get("/sectors?limit=1000", { token: hub.adminToken });

    const nul = await hub.client.post("/sectors", { name: "Ops\u0000", color: "#000000" }, { token: hub.adminToken });
    const surrogate = await postSectorRaw('{"name":"Ops \\ud800","color":"#000000"}');
    const key = await hub.client.post(
      "/jobs",
      { automation_id: randomUUID(), context: { "k\u0000": "v", nested: ["ok", "\udfff"] } },
      { token: hub.adminToken },
    );
    const query = await hub.client.get("/events?event_type=job.created%00", { token: hub.adminToken });
    const login = await hub.client.post("/identity/token", { email: `${ADMIN_EMAIL}\u0000`, password: ADMIN_PASSWORD });

    expect(nul.status).toBe(422);
    expect(nul.body.detail).toEqual([unstorable(["body", "name"])]);
    expect(surrogate.body.detail).toEqual([unstorable(["body", "name"])]);
    expect(key.status).toBe(422);
    expect(key.body.detail).toEqual(expect.arrayContaining([unstorable(["body", "context", "k\u0000"]), unstorable(["body", "context", "nested", 1])]));
    expect(query.body.detail).toEqual([unstorable(["query", "event_type"])]);
    expect(login.status).toBe(422);
    expect((await hub.client.get("/sectors?limit=1000", { token: hub.adminToken })).body).toHaveLength(sectors.body.length);
  });

  it("when a paired surrogate (an emoji) or other unicode is sent, then it is stored as sent", async () => {
    const name = `Ops 🚀 ${randomBytes(3).toString("hex")} — ü`;

    const created = await hub.client.post("/sectors", { name, color: "#000000" }, { token: hub.adminToken });

    expect(created.status).toBe(201);
    expect((await hub.client.get(`/sectors/${created.body.id}`, { token: hub.adminToken })).body.name).toBe(name);
  });

  it(`when a body nests deeper than ${MAX_JSON_DEPTH} levels, then 422 json_invalid at the bracket that goes too deep; ${MAX_JSON_DEPTH} levels are read`, async () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    const prefix = '{"name":"x","color":"#000000","extra":';
    const tooDeep = `${prefix}${nested(20_000)}}`;

    const refused = await postSectorRaw(tooDeep);
    const deepest = await postSectorRaw(`{"name":"Deep ${randomBytes(3).toString("hex")}","color":"#000000","extra":${nested(MAX_JSON_DEPTH - 1)}}`);

    expect(refused.status).toBe(422);
    // The root object is level 1 and each '{"a":' (5 characters) one more: level 201 opens at the 200th.
    expect(refused.body.detail).toEqual([
      { loc: ["body", prefix.length + 5 * (MAX_JSON_DEPTH - 1)], msg: expect.stringMatching(/^JSON decode error/), type: "json_invalid" },
    ]);
    expect(deepest.status).toBe(201);
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
