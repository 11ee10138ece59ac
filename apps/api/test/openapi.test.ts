/**
 * The OpenAPI document as a contract: every route the API registers is in it, named and
 * described, with every status code the route answers documented with its body — checked by
 * asking each route what a client could get wrong — and Spectral's OpenAPI ruleset finds nothing.
 */
import { execFile } from "node:child_process";
import { request as httpRequest } from "node:http";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { createApp } from "../src/app";
import { MAX_BODY_BYTES } from "../src/http/body";
import type { AnyRoute } from "../src/http/route";
import { allRoutes } from "../src/routes";
import { ADMIN_EMAIL, ADMIN_PASSWORD, type RequestOptions } from "./harness";
import { createAutomationWithWorker, useHubWithDispatcher } from "./job-fixtures";

const API_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** Served for people, not programs: the /docs page and its assets, and the root (a redirect to /console). */
const UNDOCUMENTED = new Set(["GET /", "GET /docs", "GET /docs/init.js", "GET /docs/assets/swagger-ui.css", "GET /docs/assets/swagger-ui-bundle.js"]);

const hub = useHubWithDispatcher();
let document: any;
let employeeToken: string;
let workerKey: string;

beforeAll(async () => {
  document = (await hub.client.get("/openapi.json")).body;
  employeeToken = (await hub.createUser("employee")).token;
  workerKey = (await createAutomationWithWorker(hub)).workerKey;
});

/** "GET /jobs/{job_id}" for every route an Express router stack holds (nested routers included). */
function registeredRoutes(stack: any[], found: string[] = []): string[] {
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) found.push(`${method.toUpperCase()} ${layer.route.path.replace(/:(\w+)/g, "{$1}")}`);
    } else if (layer.handle?.stack) {
      registeredRoutes(layer.handle.stack, found);
    }
  }
  return found;
}

function operationOf(route: AnyRoute): any {
  return document.paths[route.path]?.[route.method];
}

/** Credentials that get the route past authentication (an admin for bearer routes). */
function credentials(route: AnyRoute): RequestOptions {
  if (route.auth === "worker") return { workerKey };
  if (route.auth === "none") return {};
  return { token: hub.adminToken };
}

/** The status of a request with this body; node:http, because fetch sends no body with GET. */
function statusWithBody(method: string, url: string, options: RequestOptions, contentType: string, body: string): Promise<number> {
  const headers: Record<string, string> = { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.workerKey) headers["x-worker-api-key"] = options.workerKey;
  return new Promise((resolve, reject) => {
    const sent = httpRequest(`${hub.api.url}${url}`, { method, headers }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    // The hub may answer (413) before it has read everything.
    sent.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" || error.code === "ECONNRESET" ? undefined : reject(error)));
    sent.end(body);
  });
}

/** The route's path with a fresh uuid for every parameter: an id nothing has. */
function unknownIdsPath(route: AnyRoute): string {
  return route.path.replace(/\{\w+\}/g, () => randomUUID());
}

describe("the OpenAPI document", () => {
  it("when the app's registered routes are listed, then each is in the document and the document has nothing else", () => {
    const registered = registeredRoutes((createApp(hub.api.ctx) as any).router.stack).filter((route) => !UNDOCUMENTED.has(route));
    const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`));

    expect([...documented].sort()).toEqual([...new Set(registered)].sort());
  });

  it("when operations are read, then each has a unique camelCase operationId, a summary, a description and a described tag", () => {
    const tags = new Map((document.tags as Array<{ name: string; description: string }>).map((tag) => [tag.name, tag.description]));
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item as object)) as any[];
    const ids = operations.map((operation) => operation.operationId);

    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) {
      expect(operation.operationId).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(operation.summary, operation.operationId).toBeTruthy();
      expect(operation.description, operation.operationId).toBeTruthy();
      for (const tag of operation.tags) expect(tags.get(tag), `${operation.operationId}: tag ${tag}`).toBeTruthy();
    }
  });

  it("when resources and errors are answered, then they are named component schemas", () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const json = (response: any) => response.content["application/json"].schema;

    expect(json(document.paths["/jobs/{job_id}"].get.responses["200"])).toEqual(ref("Job"));
    // A claimed job is the record plus its attempt's trace context (CONTRACT §6.20).
    expect(json(document.paths["/jobs/claim"].post.responses["200"])).toEqual(ref("ClaimedJob"));
    expect(json(document.paths["/automations/{automation_id}"].get.responses["200"])).toEqual(ref("Automation"));
    expect(json(document.paths["/sectors"].get.responses["200"])).toEqual({ type: "array", items: ref("Sector") });
    expect(json(document.paths["/events"].get.responses["200"]).items).toEqual(ref("Event"));
    expect(json(document.paths["/identity/me"].get.responses["200"])).toEqual(ref("User"));
    expect(json(document.paths["/jobs/{job_id}"].get.responses["404"])).toEqual(ref("HTTPError"));
    expect(json(document.components.responses.ValidationFailed)).toEqual(ref("ValidationError"));
    expect(document.components.schemas.Automation.properties.worker.anyOf).toContainEqual(ref("Worker"));
  });

  it("when a route takes a body, then the document shows an example the route accepts", () => {
    for (const route of allRoutes.filter((candidate) => candidate.body)) {
      const label = `${route.method.toUpperCase()} ${route.path}`;
      expect(route.example, label).toBeDefined();
      expect(route.body!.safeParse(route.example).success, label).toBe(true);
      expect(operationOf(route).requestBody.content["application/json"].example, label).toEqual(route.example);
    }
  });

  it("when a route needs PostgreSQL or Redis, then its 503 with Retry-After is documented", () => {
    for (const route of allRoutes.filter((candidate) => !candidate.servedWithoutDependencies)) {
      expect(operationOf(route).responses["503"], `${route.method.toUpperCase()} ${route.path}`).toBeDefined();
    }
    expect(document.components.responses.ServiceUnavailable.headers["Retry-After"]).toBeDefined();
  });
});

describe("the status codes each route answers", () => {
  it("when every route is called without credentials, as an employee, with an unknown query parameter, an oversized or non-JSON body, and unknown ids, then every answer is documented", async () => {
    const undocumented: string[] = [];
    const expectDocumented = (route: AnyRoute, probe: string, status: number, expected?: number) => {
      const label = `${route.method.toUpperCase()} ${route.path} ${probe}: ${status}`;
      if (expected !== undefined && status !== expected) undocumented.push(`${label} (expected ${expected})`);
      else if (!operationOf(route)?.responses[String(status)]) undocumented.push(`${label} is not documented`);
    };
    for (const route of allRoutes) {
      const method = route.method.toUpperCase();
      const url = unknownIdsPath(route);
      if (route.auth !== "none") expectDocumented(route, "without credentials", (await hub.client.request(method, url)).status, 401);
      if (route.auth === "admin")
        expectDocumented(route, "as an employee", (await hub.client.request(method, url, undefined, { token: employeeToken })).status, 403);
      const as = credentials(route);
      // A route that looks its ids up before validating (POST /jobs/{job_id}/retry, CONTRACT §6.14) answers 404 for them first.
      expectDocumented(
        route,
        "with ?not_a_parameter=1",
        (await hub.client.request(method, `${url}?not_a_parameter=1`, undefined, as)).status,
        route.beforeValidation ? 404 : 422,
      );
      expectDocumented(route, "with a body over 1 MiB", await statusWithBody(method, url, as, "application/json", "x".repeat(MAX_BODY_BYTES + 1)), 413);
      expectDocumented(route, "with a text/plain body", await statusWithBody(method, url, as, "text/plain", "hello"), 415);
      if (route.params) expectDocumented(route, "with unknown ids", (await hub.client.request(method, url, route.example, as)).status);
    }

    expect(undocumented).toEqual([]);
  });

  it("when /docs's Authorize posts the OAuth2 password form to the document's tokenUrl, then it gets a bearer token", async () => {
    const tokenUrl: string = document.components.securitySchemes.OAuth2.flows.password.tokenUrl;
    // What Swagger UI sends: the form, with empty client credentials in a Basic header.
    const form = new URLSearchParams({ grant_type: "password", scope: "", username: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    const response = await fetch(new URL(tokenUrl, `${hub.api.url}/openapi.json`), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${btoa(":")}` },
      body: form,
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ access_token: expect.any(String), token_type: "bearer" });
  });
});

describe("Spectral's OpenAPI ruleset", () => {
  it("when the document is linted, then there are no errors, warnings, infos or hints", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "hub-openapi-"));
    try {
      const file = path.join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(document));
      const spectral = path.join(API_DIR, "node_modules/.bin/spectral");
      const { stdout } = await promisify(execFile)(spectral, [
        "lint",
        file,
        "--ruleset",
        path.join(API_DIR, ".spectral.yaml"),
        "--format",
        "json",
        "--quiet",
      ]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));

      const findings = JSON.parse(stdout || "[]") as Array<{ code: string; message: string; path: string[] }>;
      expect(findings.map((finding) => `${finding.code}: ${finding.message} at ${finding.path.join(".")}`)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Redocly's recommended ruleset", () => {
  it("when the document is linted, then there are no errors or warnings", async () => {
    const config = await createConfig({ extends: ["recommended"] });

    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config });

    // The single sign-on hops are browser redirects by contract (§6.22: 302 and 303, never a 2xx),
    // so the one rule that asks every operation for a 2xx does not apply to those two.
    const redirectsOnly = ["#/paths/~1identity~1oidc~1login/get/responses", "#/paths/~1identity~1oidc~1callback/get/responses"];
    const findings = problems.filter((problem) => !(problem.ruleId === "operation-2xx-response" && redirectsOnly.includes(problem.location[0]?.pointer ?? "")));
    expect(findings.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? "?"}`)).toEqual([]);
  });
});

describe("what generated clients rely on (CONTRACT §6.21)", () => {
  it("when the document is read, then public operations say security: [], 401s declare WWW-Authenticate, secrets Cache-Control and Pragma, and info a licence", () => {
    const operation = (path: string, method: string) => document.paths[path][method];

    for (const [path, method] of [
      ["/healthz", "get"],
      ["/readyz", "get"],
      ["/identity/token", "post"],
      ["/openapi.json", "get"],
    ] as const) {
      expect(operation(path, method).security, `${method} ${path}`).toEqual([]);
    }
    expect(operation("/identity/token", "post").responses["401"].headers["WWW-Authenticate"]).toBeDefined();
    expect(operation("/metrics", "get").responses["401"].headers["WWW-Authenticate"]).toBeDefined();
    expect(document.components.responses.Unauthorized.headers["WWW-Authenticate"]).toBeDefined();
    for (const [path, method] of [
      ["/identity/token", "post"],
      ["/identity/me/password", "put"],
    ] as const) {
      expect(Object.keys(operation(path, method).responses["200"].headers), `${method} ${path}`).toEqual(["Cache-Control", "Pragma"]);
    }
    expect(Object.keys(operation("/identity/api-keys", "post").responses["201"].headers)).toEqual(["Cache-Control"]);
    expect(document.info.license).toEqual({ name: expect.any(String), identifier: expect.any(String) });
  });

  it("when the status filter of GET /jobs is read, then it is an array of the job statuses, comma-separated (style form, explode false)", () => {
    const status = document.paths["/jobs"].get.parameters.find((parameter: { name: string }) => parameter.name === "status");

    expect(status).toMatchObject({
      in: "query",
      style: "form",
      explode: false,
      schema: { type: "array", items: { type: "string", enum: ["queued", "running", "completed", "failed", "cancelled"] } },
    });
  });

  it("when the approval filter of GET /jobs is read, then it is an array of the approval statuses, comma-separated, and the approval events have named payloads", () => {
    const approval = document.paths["/jobs"].get.parameters.find((parameter: { name: string }) => parameter.name === "approval");

    expect(approval).toMatchObject({
      in: "query",
      style: "form",
      explode: false,
      schema: { type: "array", items: { type: "string", enum: ["pending", "approved", "rejected", "expired", "withdrawn"] } },
    });
    for (const type of ["job.approval_requested", "job.approved", "job.rejected"]) {
      expect(document.components.schemas.Event.discriminator.mapping[type], type).toBeTruthy();
    }
  });

  it("when the event record is read, then it is a oneOf of one schema per event type, with event_type as discriminator and a named payload", () => {
    const event = document.components.schemas.Event;

    expect(event.discriminator.propertyName).toBe("event_type");
    expect(event.oneOf).toContainEqual({ $ref: "#/components/schemas/JobCreatedEvent" });
    expect(event.discriminator.mapping["job.created"]).toBe("#/components/schemas/JobCreatedEvent");
    expect(document.components.schemas.JobCreatedEvent.properties.payload).toEqual({ $ref: "#/components/schemas/JobCreatedPayload" });
    expect(document.components.schemas.WorkerApiKeyRotatedPayload).toBeDefined();
    expect(Object.keys(event.discriminator.mapping).length).toBe(event.oneOf.length);
  });

  it("when /openapi.json is asked with an unknown query parameter, then 422 extra_forbidden, as every endpoint", async () => {
    const answer = await hub.client.get("/openapi.json?format=yaml");

    expect(answer.status).toBe(422);
    expect(answer.body.detail).toEqual([{ loc: ["query", "format"], msg: "Extra inputs are not permitted", type: "extra_forbidden" }]);
  });
});
