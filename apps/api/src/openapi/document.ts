/**
 * GET /openapi.json — OpenAPI 3.1.0 built from the same zod schemas that validate requests
 * (zod 4 emits JSON Schema 2020-12, which OpenAPI 3.1 uses as is). Named zod schemas become
 * components (./components.ts), the answers every route shares are ./responses.ts, tags
 * ./tags.ts. Spectral's OpenAPI ruleset finds nothing to report (apps/api/test/openapi.test.ts).
 */
import { z } from "zod";
import { FORM_CONTENT_TYPE } from "../http/body";
import { errorResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import type { AnyRoute } from "../http/route";
import { ComponentSchemas, type JsonSchema } from "./components";
import { sharedResponses, sharedResponsesOf } from "./responses";
import { API_TAGS } from "./tags";

/**
 * Path, query or header parameters from a zod object (no named parts: rendered inline). A route's
 * pattern parameter (`context[<name>]=…`) is an object sent in OpenAPI's `deepObject` style.
 */
function parametersOf(schema: z.ZodType | undefined, location: "path" | "query" | "header", deepObject?: string) {
  if (!schema) return [];
  // Output side: query preprocessors (string → int) are described by what they produce.
  const { properties = {} } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any", reused: "inline" }) as { properties?: Record<string, JsonSchema> };
  // Input side for "required": a parameter with a default (limit=200) may be left out.
  const { required = [] } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", reused: "inline" }) as { required?: string[] };
  return Object.entries(properties).map(([name, { description, ...property }]) => ({
    name,
    in: location,
    required: location === "path" || required.includes(name),
    ...(name === deepObject ? { style: "deepObject", explode: true } : {}),
    // A list in one parameter, comma-separated (`status=failed,cancelled`), as the hub reads it.
    ...(location === "query" && property.type === "array" ? { style: "form", explode: false } : {}),
    ...(typeof description === "string" ? { description } : {}),
    schema: property,
  }));
}

/**
 * Who may call, by route auth: either bearer credential — a login token (`OAuth2`) or a user's api
 * key (`ApiKey`) — or the login token only, or the worker key.
 */
const SECURITY: Record<AnyRoute["auth"], Record<string, never[]>[] | undefined> = {
  none: undefined,
  user: [{ OAuth2: [] }, { ApiKey: [] }],
  admin: [{ OAuth2: [] }, { ApiKey: [] }],
  "user-login-token": [{ OAuth2: [] }],
  "admin-login-token": [{ OAuth2: [] }],
  worker: [{ WorkerApiKey: [] }],
  "worker-unseen": [{ WorkerApiKey: [] }],
};

/** The operation's answers: its own (a 4xx/5xx without a schema carries HTTPError), then the shared ones it lacks. */
function responsesOf(route: AnyRoute, schemas: ComponentSchemas): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const schema = spec.schema ?? (Number(status) >= 400 ? errorResponse : undefined);
    const headers: Record<string, unknown> = {};
    if (route.paginated && status === "200") headers.Link = { description: LINK_HEADER_DESCRIPTION, schema: { type: "string" } };
    // A 429 or 503 always says when to come back (CONTRACT §6.15).
    if (status === "429" || status === "503") headers["Retry-After"] = { description: "Seconds to wait before trying again", schema: { type: "integer" } };
    if (status === "401") headers["WWW-Authenticate"] = WWW_AUTHENTICATE;
    if (Number(status) < 300) Object.assign(headers, secretHeaders(route));
    responses[status] = {
      description: spec.description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(schema
        ? {
            content: {
              [spec.contentType ?? "application/json"]: {
                schema: schemas.render(schema, "output"),
                ...(spec.example === undefined ? {} : { example: spec.example }),
              },
            },
          }
        : {}),
    };
  }
  for (const [status, shared] of Object.entries(sharedResponsesOf(route))) responses[status] ??= shared;
  return responses;
}

function requestBodyOf(route: AnyRoute, schemas: ComponentSchemas) {
  if (!route.body) return undefined;
  const schema = schemas.render(route.body, "input");
  const example = route.example === undefined ? {} : { example: route.example };
  const content: Record<string, unknown> = Object.fromEntries((route.bodyContentTypes ?? ["application/json"]).map((type) => [type, { schema, ...example }]));
  if (route.formBody) content[FORM_CONTENT_TYPE] = { schema: schemas.render(route.formBody, "input") };
  // A body schema that accepts "no body" (POST /jobs/claim) makes the body optional.
  return { required: !route.body.safeParse(undefined).success, content };
}

/** A public operation says so (`security: []`), so no generated client or linter assumes a credential. */
function securityOf(route: AnyRoute) {
  return { security: SECURITY[route.auth] ?? [] };
}

/** `WWW-Authenticate` of a 401: what the hub sends with it (CONTRACT §6.21). */
const WWW_AUTHENTICATE = { description: "The authentication scheme to use: `Bearer`", schema: { type: "string" } };

/** The headers of a response that carries a secret (CONTRACT §6.15): never cached. */
function secretHeaders(route: AnyRoute): Record<string, unknown> {
  if (!route.secretInResponse) return {};
  return {
    "Cache-Control": { description: "`no-store`: the response carries a secret", schema: { type: "string", const: "no-store" } },
    ...(route.secretInResponse === "token" ? { Pragma: { description: "`no-cache` (RFC 6749 §5.1)", schema: { type: "string", const: "no-cache" } } } : {}),
  };
}

/** Served outside the route list (no body, no validation): documented by hand. */
const OPERATIONAL_PATHS = {
  "/openapi.json": {
    get: {
      operationId: "getOpenApiDocument",
      summary: "This document",
      description: "The OpenAPI 3.1.0 description of every endpoint, generated from the schemas that validate requests. `/docs` renders it.",
      tags: ["operations"],
      security: [],
      responses: {
        200: { description: "The document", content: { "application/json": { schema: { type: "object" } } } },
        422: { $ref: "#/components/responses/ValidationFailed" },
      },
    },
  },
  "/metrics": {
    get: {
      operationId: "getMetrics",
      summary: "Prometheus metrics",
      description:
        "Request durations, job outcomes and per-automation queue gauges in the Prometheus text format. Open unless HUB_METRICS_TOKEN is set; keep the port internal.",
      tags: ["operations"],
      security: [{}, { MetricsToken: [] }],
      responses: {
        200: { description: "The metrics", content: { "text/plain": { schema: { type: "string" } } } },
        401: {
          description: "HUB_METRICS_TOKEN is set and the request does not carry it",
          headers: { "WWW-Authenticate": WWW_AUTHENTICATE },
          content: { "application/json": { schema: { $ref: "#/components/schemas/HTTPError" } } },
        },
      },
    },
  },
};

export function buildOpenApiDocument(routes: AnyRoute[]) {
  const schemas = new ComponentSchemas();
  const responses = sharedResponses(schemas);
  const operations = routes.map((route) => ({
    route,
    operation: {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
      parameters: [
        ...parametersOf(route.params, "path"),
        ...parametersOf(route.query, "query", route.patternQuery?.name),
        ...parametersOf(route.headers, "header"),
      ],
      ...securityOf(route),
      responses: responsesOf(route, schemas),
    } as Record<string, unknown>,
  }));
  // Requests after every response, so a schema named for both keeps its name for the response.
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route, operation } of operations) {
    const requestBody = requestBodyOf(route, schemas);
    if (requestBody) operation.requestBody = requestBody;
    paths[route.path] = { ...paths[route.path], [route.method]: operation };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Automation Hub",
      version: "1.0.0",
      description:
        "Registry of automations, jobs, remote workers, hub users and an event log. Log in with `POST /identity/token` (on /docs: Authorize, " +
        "with your e-mail as username); workers authenticate with the `X-Worker-Api-Key` their registration returned.",
      contact: { name: "The hub's operators" },
      // The hub is not published under an open licence (every package.json says UNLICENSED).
      license: { name: "Proprietary: all rights reserved by the hub's operators", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "This hub" }],
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    paths: { ...paths, ...OPERATIONAL_PATHS },
    components: {
      schemas: schemas.all(),
      responses,
      securitySchemes: {
        OAuth2: {
          type: "oauth2",
          description:
            "E-mail (as username) and password, exchanged at POST /identity/token for a login token (JWT) sent as `Authorization: Bearer <token>` (what /docs's Authorize does)",
          flows: { password: { tokenUrl: "/identity/token", scopes: {} } },
        },
        ApiKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "hub_…",
          description: "A user's api key from POST /identity/api-keys, sent as `Authorization: Bearer hub_…`: the user's role, on every bearer endpoint",
        },
        WorkerApiKey: { type: "apiKey", in: "header", name: "X-Worker-Api-Key", description: "The api key POST /automations/{automation_id}/worker returned" },
        MetricsToken: { type: "http", scheme: "bearer", description: "HUB_METRICS_TOKEN, when the hub sets one" },
      },
    },
  };
}
