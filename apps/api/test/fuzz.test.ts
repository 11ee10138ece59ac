/**
 * Property-based fuzz of every endpoint: for each route of `allRoutes`, arbitrary path
 * values, query strings, headers and bodies (field-aware objects, arbitrary JSON, malformed text,
 * deep nesting, over-size bodies, other media types), sent as an admin, an employee (each with a
 * login token or an api key), a worker or nobody. Whatever arrives:
 * - never a 5xx;
 * - every error is JSON in the contract's shape: `{"detail": string}`, or for 422 the pydantic
 *   list (CONTRACT §1);
 * - a rejected (4xx) request writes nothing: a checksum of every table's rows (the outbox
 *   included) is the same before and after.
 * FUZZ_RUNS sets the runs per route (default 100: ~15 s alone on 2 cores, well under a minute
 * when they are busy); FUZZ_SEED replays a failure with the seed fast-check prints.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYWHERE, jobs } from "@hub/db";
import { JOB_STATUSES } from "@hub/shared";
import type { AnyRoute } from "../src/http/route";
import { allRoutes } from "../src/routes";
import { createApiKey } from "./api-key-fixtures";
import { createAutomation, createSector } from "./automation-fixtures";
import { startTestHub, type TestHub, type TestUser } from "./harness";
import { createAutomationWithWorker, createJob, type AutomationWithWorker } from "./job-fixtures";

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 100);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/**
 * Columns that requests rejected with a 4xx may still change by contract: any worker call marks
 * its worker seen (CONTRACT §3, worker `status`), and any use of an api key its `last_used_at`
 * (§6.10), whatever the answer.
 */
const VOLATILE_COLUMNS: Record<string, string[]> = { workers: ["last_seen_at", "status"], api_keys: ["last_used_at"] };

let hub: TestHub;
let employee: TestUser;
/** Api keys of the bootstrap admin and of `employee`. */
let apiKeys: { admin: string; employee: string };
/** The automation whose worker (and running job) the worker routes use; bearer routes never target it by path. */
let stable: AutomationWithWorker;
/** The automation admins may deactivate, re-key or unregister. */
let victim: AutomationWithWorker;
let ids: {
  sector: string;
  spareAutomation: string;
  queuedJob: string;
  runningJob: string;
  victimJob: string;
  victimUser: string;
  unknown: string;
};
let checksumSql: string;

beforeAll(async () => {
  // Configured for webhooks as a deployment is (else POST /webhooks answers 503); host names
  // "resolve" to a public address without asking any DNS server.
  hub = await startTestHub(
    { HUB_WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString("base64") },
    { webhookResolver: async () => [{ address: "93.184.216.34", family: 4 }] },
  );
  employee = await hub.createUser("employee");
  apiKeys = { admin: (await createApiKey(hub, hub.adminToken)).key, employee: (await createApiKey(hub, employee.token)).key };
  const victimUser = await hub.createUser("employee");
  const sector = await createSector(hub);
  stable = await createAutomationWithWorker(hub, { parameters: [{ name: "month", description: "YYYY-MM" }], max_concurrent_jobs: 10 });
  victim = await createAutomationWithWorker(hub);
  const spareAutomation = await createAutomation(hub, { sector_id: sector.id });
  // Claims take the oldest queued job: the job to run is created and claimed before the one that
  // stays queued.
  const runningJob = await createJob(hub, stable.automationId, employee.token, { month: "2026-02" });
  await hub.api.ctx.dispatch.ready.offer([jobs.toJobRef((await jobs.find(hub.api.ctx.database.pool, EVERYWHERE, runningJob))!)]);
  const claimed = await hub.client.post("/jobs/claim", { wait_seconds: 0 }, { workerKey: stable.workerKey });
  if (claimed.status !== 200 || claimed.body.id !== runningJob) throw new Error(`fixture claim failed: ${claimed.status}`);
  const queuedJob = await createJob(hub, stable.automationId, employee.token, { month: "2026-01" });
  const victimJob = await createJob(hub, victim.automationId, employee.token);
  ids = { sector: sector.id, spareAutomation, queuedJob, runningJob, victimJob, victimUser: victimUser.id, unknown: randomUUID() };
  checksumSql = await buildChecksumSql();
}, 60_000);
afterAll(async () => {
  await hub?.stop();
});

/** One statement hashing every row of every table (minus {@link VOLATILE_COLUMNS}). */
async function buildChecksumSql(): Promise<string> {
  const { rows } = await hub.api.ctx.database.pool.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns
      where table_schema = current_schema() order by table_name, ordinal_position`,
  );
  const columnsByTable = new Map<string, string[]>();
  for (const { table_name, column_name } of rows) {
    if (VOLATILE_COLUMNS[table_name]?.includes(column_name)) continue;
    columnsByTable.set(table_name, [...(columnsByTable.get(table_name) ?? []), column_name]);
  }
  const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return [...columnsByTable]
    .map(([table, columns]) => {
      const row = `md5(row(${columns.map(ident).join(", ")})::text)`;
      return `select '${table}' as t, count(*) as n, md5(coalesce(string_agg(${row}, ',' order by ${row}), '')) as h from ${ident(table)}`;
    })
    .join(" union all ");
}

async function databaseChecksum(): Promise<string> {
  const { rows } = await hub.api.ctx.database.pool.query<{ t: string; n: string; h: string }>(checksumSql);
  return rows.map((row) => `${row.t}:${row.n}:${row.h}`).join("\n");
}

// ---------------------------------------------------------------- generators

type Caller = "admin" | "employee" | "admin-api-key" | "employee-api-key" | "worker" | "nobody" | "forged-token" | "unknown-worker-key";

interface FuzzRequest {
  caller: Caller;
  pathValues: Record<string, string>;
  query: string;
  headers: Record<string, string>;
  contentType: string | undefined;
  /** undefined: no body at all. */
  body: string | undefined;
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  enum?: unknown[];
  format?: string;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
};

function jsonSchemaOf(schema: z.ZodType | undefined): JsonSchema {
  if (!schema) return {};
  try {
    return z.toJSONSchema(schema, { io: "input", unrepresentable: "any", reused: "inline" }) as JsonSchema;
  } catch {
    // A field zod cannot describe (a transform): describe the object field by field instead.
    if (!(schema instanceof z.ZodObject)) return {};
    const shape = schema.shape as Record<string, z.ZodType>;
    return { type: "object", properties: Object.fromEntries(Object.entries(shape).map(([name, field]) => [name, jsonSchemaOf(field)])) };
  }
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 80 });
const anyIds = () => Object.values(ids).concat(stable.automationId, victim.automationId, stable.workerId, employee.id);
/** Text around a character databases and encoders trip on: NUL, a control, a lone surrogate. */
const awkwardText = fc
  .tuple(
    fc.string({ maxLength: 10 }),
    fc.constantFrom("\u0000", "\u0001", "\ud800", "\udfff", "\ufffe", "\u2028"),
    fc.string({ unit: "binary", maxLength: 10 }),
  )
  .map(([before, awkward, after]) => `${before}${awkward}${after}`);
const junkString = fc.oneof(
  fc.string({ maxLength: 60 }),
  awkwardText,
  fc.constantFrom("", " ", "null", "0", "-1", "1e309", "NaN", "true", "../..", "%00", "\u0000", "😀", "' or 1=1 --", "$2b$10$x", "2026-02-30T00:00:00Z"),
  fc.integer({ min: 200, max: 5000 }).map((n) => "x".repeat(n)),
);
/** encodeURIComponent, except that a lone surrogate (which URLs cannot carry) travels as U+FFFD. */
function encodeUriText(text: string): string {
  return encodeURIComponent(text.replace(/\p{Cs}/gu, "\ufffd"));
}

/** Date-times, with the calendar's edges: year 0 and offsets that cross into it or past 9999. */
const dateTimeText = fc.oneof(
  fc.date({ noInvalidDate: true, min: new Date("1900-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z") }).map((date) => date.toISOString()),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc
    .tuple(
      fc.constantFrom("0000", "0001", "1969", "2026", "9999"),
      fc.constantFrom("-01-01", "-12-31", "-02-29"),
      fc.constantFrom("", "T00:00:00Z", "T00:30:00+01:00", "T23:59:59-14:00", "T12:00:00.123456789"),
    )
    .map(([year, day, time]) => `${year}${day}${time}`),
);
const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, "", 0, -1, 1.5, 2 ** 53, 1e308, true, false, [], {}, [[[]]], { "": {} }) },
  { weight: 2, arbitrary: junkString },
);

/** A value that often passes the field's own schema, so requests reach the handlers. */
function plausibleValue(name: string, schema: JsonSchema): fc.Arbitrary<unknown> {
  if (name.endsWith("_id"))
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...idsNamed(name)) }, { weight: 1, arbitrary: fc.constantFrom(...anyIds(), "not-a-uuid") });
  if (name === "password") return fc.string({ minLength: 1, maxLength: 80 });
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema.format === "uuid") return fc.oneof(fc.uuid(), fc.constantFrom(...anyIds()));
  if (schema.format === "date-time") return dateTimeText;
  // fc.emailAddress() is RFC-exotic; the hub (like pydantic) wants a plain address to reach the handler.
  if (schema.format === "email" || name === "email") return fc.stringMatching(/^[a-z0-9]{1,12}$/).map((local) => `${local}@fuzz.example.com`);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      if (name === "color") return fc.oneof({ weight: 3, arbitrary: fc.constant("#A1B2C3") }, { weight: 1, arbitrary: fc.constantFrom("#zzzzzz", "red") });
      if (name === "slug") return fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,8}){0,2}$/);
      return fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 120 }) }, { weight: 1, arbitrary: awkwardText });
    case "integer":
    case "number":
      return fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.constantFrom(0, 1, 1000, 1001), integerBeyondBounds(schema));
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(schema.items?.properties ? objectOf(schema.items) : junkValue, { maxLength: 4 });
    case "object":
      return schema.properties ? objectOf(schema) : fc.dictionary(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
    default:
      return junkValue;
  }
}

/** An object with a subset of the schema's fields, each plausible or junk, plus stray fields. */
function objectOf(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(schema.properties ?? {});
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, fieldSchema] of fields) {
    record[name] = fc.oneof({ weight: 8, arbitrary: plausibleValue(name, fieldSchema) }, { weight: 1, arbitrary: junkValue });
  }
  return fc
    .tuple(fc.oneof(fc.record(record), fc.record(record, { requiredKeys: [] })), fc.dictionary(fc.string({ maxLength: 12 }), junkValue, { maxKeys: 2 }))
    .map(([known, stray]) => ({ ...stray, ...known }));
}

function bodyArbitrary(route: AnyRoute): fc.Arbitrary<string | undefined> {
  const schema = jsonSchemaOf(route.body);
  const isClaim = route.path === "/jobs/claim";
  const fieldAware = objectOf(schema).map((object) => JSON.stringify(isClaim ? withoutLongPoll(object) : object));
  return fc.oneof(
    { weight: 10, arbitrary: fieldAware },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(isClaim ? withoutLongPoll(value) : value)) },
    { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, "", "{}", "[]", "null", '{"a":1,"a":2}', "{", '"\\ud800"', "\ufeff{}") },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom("[", '{"a":', '{"context":{"x":'), fc.integer({ min: 10, max: 100_000 })).map(([open, depth]) => open.repeat(depth)),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 60 }).map((depth) => JSON.stringify({ context: nest(depth), result: nest(depth), parameters: [nest(depth)] })),
    },
    // Valid JSON nested far deeper than any sane body, inside the fields that take free-form objects.
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom("context", "result", "parameters"), fc.integer({ min: 150, max: 20_000 }), fc.constantFrom(...anyIds()))
        .map(([field, depth, id]) => `{"automation_id":"${id}",${JSON.stringify(field)}:${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`),
    },
    { weight: 1, arbitrary: fc.constantFrom(1024 * 1024 - 100, 1024 * 1024 + 1).map((size) => JSON.stringify({ name: "x".repeat(size) })) },
  );
}

/** Claims with wait_seconds > 0 would long-poll for up to 30 s: keep them immediate. */
function withoutLongPoll(value: unknown): unknown {
  if (typeof value !== "object" || value === null || !("wait_seconds" in value)) return value;
  const wait = (value as { wait_seconds: unknown }).wait_seconds;
  const waits = (typeof wait === "number" && wait > 0) || (typeof wait === "string" && Number(wait) > 0);
  return waits ? { ...value, wait_seconds: 0 } : value;
}

function nest(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = { [`k${level}`]: value, list: [value === "leaf" ? 1 : null] };
  return value;
}

/**
 * Integers at and just past a field's bounds, and past the 32-bit range every integer has when it
 * declares none (CONTRACT §6.15: outside → 422, never 500, e.g. `priority_min=2147483648`).
 */
function integerBeyondBounds(schema: { minimum?: number; maximum?: number }): fc.Arbitrary<number> {
  const edges = [2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53) + 1, 1e20];
  for (const bound of [schema.minimum, schema.maximum]) if (bound !== undefined) edges.push(bound - 1, bound, bound + 1);
  return fc.constantFrom(...edges);
}

function queryArbitrary(route: AnyRoute): fc.Arbitrary<string> {
  const properties = jsonSchemaOf(route.query).properties ?? {};
  const names = Object.keys(properties);
  const name = names.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: printable }) : printable;
  const value = fc.oneof(
    junkString,
    fc.integer({ min: -10, max: 2000 }).map(String),
    integerBeyondBounds({}).map(String),
    fc.constantFrom(...anyIds(), "queued", "running", "true", "false"),
    dateTimeText,
  );
  const knownPair =
    names.length > 0
      ? fc
          .constantFrom(...names)
          .chain((key) =>
            fc.tuple(fc.constant(key), fc.oneof({ weight: 3, arbitrary: plausibleQueryValue(key, properties[key] ?? {}) }, { weight: 1, arbitrary: value })),
          )
      : fc.tuple(name, value);
  // Mostly distinct keys (a repeated key arrives as a list, refused by every schema), sometimes repeats.
  const entries = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.uniqueArray(fc.oneof({ weight: 4, arbitrary: knownPair }, { weight: 1, arbitrary: fc.tuple(name, value) }), {
        selector: ([key]) => key,
        maxLength: 4,
      }),
    },
    { weight: 1, arbitrary: fc.array(fc.tuple(name, value), { maxLength: 5 }) },
  );
  const pairs = entries.map((entries) => entries.map(([key, v]) => `${encodeUriText(key)}=${encodeUriText(v)}`).join("&"));
  return fc.oneof({ weight: 5, arbitrary: pairs }, { weight: 1, arbitrary: fc.constantFrom("", "&&&", "=&=", "%zz=%", "limit=1&limit=2", "a[b]=c") });
}

/**
 * The fixture ids a field or path parameter of this name may name. Bearer routes never get the
 * stable automation or its running job by path, so the worker routes keep a worker and a lease.
 */
function idsNamed(name: string): string[] {
  switch (name) {
    case "automation_id":
      return [victim.automationId, ids.spareAutomation];
    case "job_id":
      return [ids.victimJob, ids.queuedJob];
    case "user_id":
      return [ids.victimUser];
    case "sector_id":
      return [ids.sector];
    default:
      return [ids.unknown];
  }
}

/** A query value that often passes the parameter's schema (as text, as it travels). */
function plausibleQueryValue(name: string, schema: JsonSchema): fc.Arbitrary<string> {
  return plausibleValue(name, schema).map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? "")));
}

/** Path values: the fixture ids a route may safely hit, unknown uuids, and junk. */
function pathValueArbitrary(route: AnyRoute, name: string): fc.Arbitrary<string> {
  const known = name === "job_id" && route.auth === "worker" ? [ids.runningJob, ids.queuedJob, ids.victimJob] : idsNamed(name);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.uuid() },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.constantFrom("claim", "00000000-0000-0000-0000-000000000000", "x".repeat(1000), "%", ".."),
      ),
    },
  );
}

function requestArbitrary(route: AnyRoute): fc.Arbitrary<FuzzRequest> {
  const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const pathValues: Record<string, fc.Arbitrary<string>> = {};
  for (const name of pathNames) pathValues[name] = pathValueArbitrary(route, name);
  const callers: Caller[] =
    route.auth === "worker"
      ? ["worker", "worker", "worker", "worker", "worker", "admin", "nobody", "unknown-worker-key"]
      : route.auth === "none"
        ? ["nobody", "nobody", "admin", "worker"]
        : ["admin", "admin", "admin", "admin", "admin-api-key", "employee", "employee", "employee-api-key", "nobody", "forged-token", "worker"];
  const headerNames = Object.keys(jsonSchemaOf(route.headers).properties ?? {});
  const headers = fc.record(
    {
      ...Object.fromEntries(headerNames.map((name) => [name, printable])),
      "content-encoding": fc.oneof(
        { weight: 6, arbitrary: fc.constant("identity") },
        { weight: 1, arbitrary: fc.constantFrom("gzip", "deflate", "br", "x-unknown") },
      ),
    },
    { requiredKeys: [] },
  ) as fc.Arbitrary<Record<string, string>>;
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant("application/json") },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        undefined,
        "application/json; charset=utf-8",
        "application/problem+json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "garbage",
        "",
        "application/json;;;",
      ),
    },
  );
  return fc.record({
    caller: fc.constantFrom(...callers),
    pathValues: fc.record(pathValues),
    query: route.query || route.method === "get" ? queryArbitrary(route) : fc.constant(""),
    headers,
    contentType,
    body: route.method === "get" ? fc.constant(undefined) : bodyArbitrary(route),
  });
}

// ---------------------------------------------------------------- the property

function credentials(caller: Caller): Record<string, string> {
  switch (caller) {
    case "admin":
      return { authorization: `Bearer ${hub.adminToken}` };
    case "employee":
      return { authorization: `Bearer ${employee.token}` };
    case "admin-api-key":
      return { authorization: `Bearer ${apiKeys.admin}` };
    case "employee-api-key":
      return { authorization: `Bearer ${apiKeys.employee}` };
    case "worker":
      return { "x-worker-api-key": stable.workerKey };
    case "forged-token":
      return { authorization: `Bearer ${hub.adminToken.slice(0, -4)}AAAA` };
    case "unknown-worker-key":
      return { "x-worker-api-key": "k".repeat(43) };
    case "nobody":
      return {};
    default: {
      const exhaustive: never = caller;
      throw new Error(`unknown caller ${String(exhaustive)}`);
    }
  }
}

async function send(route: AnyRoute, request: FuzzRequest) {
  const path = route.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeUriText(request.pathValues[name] ?? ""));
  const headers: Record<string, string> = { ...request.headers, ...credentials(request.caller) };
  if (request.contentType !== undefined && request.body !== undefined) headers["content-type"] = request.contentType;
  // Bytes, not a string: fetch would label a string body text/plain.
  const body = request.body === undefined ? undefined : new TextEncoder().encode(request.body);
  // A path value of ".." makes the URL another route's (`/sectors/..` is `/`, which redirects to the
  // console): the answer to judge is that redirect, not the console page it leads to, which answers
  // 503 on a checkout where the console is not built yet.
  const response = await fetch(`${hub.client.baseUrl}${path}${request.query ? `?${request.query}` : ""}`, {
    method: route.method.toUpperCase(),
    headers,
    body,
    redirect: "manual",
  });
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    // GET /events/stream stays open: its status and headers are the whole answer.
    await response.body?.cancel();
    return { status: response.status, contentType: "text/event-stream", text: "" };
  }
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text };
}

const errorBody = z.union([
  z.strictObject({ detail: z.string() }),
  // The 409 of a worker call about a job also says the job's status (CONTRACT §6.12).
  z.strictObject({ detail: z.string(), status: z.enum(JOB_STATUSES) }),
  z.strictObject({
    detail: z
      .array(
        z.looseObject({
          loc: z.tuple([z.enum(["body", "query", "path", "header"])], z.union([z.string(), z.number().int()])),
          msg: z.string(),
          type: z.string(),
        }),
      )
      .min(1),
  }),
]);

function describeRequest(route: AnyRoute, request: FuzzRequest): string {
  const body = request.body && request.body.length > 300 ? `${request.body.slice(0, 300)}… (${request.body.length} chars)` : request.body;
  return `${route.method.toUpperCase()} ${route.path} ${JSON.stringify({ ...request, body })}`;
}

/** Every answer, "METHOD /path status", to check the fuzz reached past validation. */
const statusesSeen: string[] = [];

describe("fuzz: every endpoint, arbitrary path, query, headers and body", () => {
  it("covers every route of allRoutes", () => {
    expect(allRoutes.length).toBeGreaterThan(20);
  });

  for (const route of allRoutes) {
    it(`${route.method.toUpperCase()} ${route.path}: never 5xx, errors in the contract's shape, nothing written when rejected`, async () => {
      let before = await databaseChecksum();
      await fc.assert(
        fc.asyncProperty(requestArbitrary(route), async (request) => {
          const result = await send(route, request);
          statusesSeen.push(`${route.method.toUpperCase()} ${route.path} ${result.status}`);
          const after = await databaseChecksum();
          const context = `${describeRequest(route, request)} → ${result.status} ${result.text.slice(0, 300)}`;
          expect(result.status, context).toBeLessThan(500);
          if (result.status >= 400) {
            expect(result.contentType, context).toMatch(/^application\/json/);
            const parsed = errorBody.safeParse(JSON.parse(result.text));
            expect(parsed.success, context).toBe(true);
            expect(Array.isArray(parsed.data?.detail), context).toBe(result.status === 422);
            expect(after, `${context}\na rejected request changed the database`).toBe(before);
          }
          before = after;
        }),
        { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: true },
      );
    }, 120_000);
  }

  it("reached past authentication and validation: some requests succeeded, others were refused at each stage", () => {
    const statuses = new Set(statusesSeen.map((line) => Number(line.split(" ").at(-1))));
    if (process.env.FUZZ_STATS) {
      const counts = new Map<string, number>();
      for (const line of statusesSeen) counts.set(line, (counts.get(line) ?? 0) + 1);
      process.stdout.write(
        `${[...counts]
          .sort()
          .map(([line, n]) => `${line} ×${n}`)
          .join("\n")}\n`,
      );
    }
    for (const status of [200, 201, 204, 401, 403, 404, 409, 413, 415, 422]) expect(statuses, `no ${status} among the answers`).toContain(status);
  });
});
