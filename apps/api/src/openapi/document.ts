/**
 * GET /openapi.json — OpenAPI 3.1.0 built from the same zod schemas that validate requests
 * (zod 4 emits JSON Schema 2020-12, which OpenAPI 3.1 uses as is).
 */
import { z } from "zod";
import { FORM_CONTENT_TYPE } from "../http/body";
import type { AnyRoute } from "../http/route";
import { errorResponse, validationErrorResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any", reused: "inline" }) as JsonSchema;
  return rest;
}

function parametersOf(schema: z.ZodType | undefined, location: "path" | "query" | "header") {
  if (!schema) return [];
  // Output side: query preprocessors (string → int) are described by what they produce.
  const objectSchema = jsonSchema(schema, "output") as { properties?: Record<string, JsonSchema>; required?: string[] };
  // Input side for "required": a parameter with a default (limit=200) may be left out.
  const required = (jsonSchema(schema, "input") as { required?: string[] }).required ?? [];
  return Object.entries(objectSchema.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || required.includes(name),
    schema: property,
  }));
}

const STATUS_TEXT: Record<number, string> = {
  401: "Missing, malformed, expired or revoked credentials",
  403: "Not allowed for this caller",
  422: "Validation error",
};

export function buildOpenApiDocument(routes: AnyRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(route.responses)) {
      responses[status] = spec.schema
        ? { description: spec.description, content: { "application/json": { schema: jsonSchema(spec.schema, "output") } } }
        : Number(status) >= 400
          ? { description: spec.description, content: { "application/json": { schema: jsonSchema(errorResponse, "output") } } }
          : { description: spec.description };
    }
    if (route.auth !== "none") {
      responses["401"] ??= { description: STATUS_TEXT[401], content: { "application/json": { schema: jsonSchema(errorResponse, "output") } } };
    }
    if (route.auth === "admin") {
      responses["403"] ??= { description: STATUS_TEXT[403], content: { "application/json": { schema: jsonSchema(errorResponse, "output") } } };
    }
    if (route.paginated && responses["200"]) {
      responses["200"] = { ...(responses["200"] as object), headers: { Link: { description: LINK_HEADER_DESCRIPTION, schema: { type: "string" } } } };
    }
    responses["422"] = { description: STATUS_TEXT[422], content: { "application/json": { schema: jsonSchema(validationErrorResponse, "output") } } };

    const operation: Record<string, unknown> = {
      operationId: `${route.method}${route.path.replace(/[{}]/g, "").replace(/[/_-](\w)/g, (_m, c: string) => c.toUpperCase())}`,
      summary: route.summary,
      tags: [route.tag],
      parameters: [
        ...parametersOf(route.params, "path"),
        ...parametersOf(route.query, "query"),
        ...parametersOf(route.headers, "header"),
      ],
      responses,
    };
    if (route.body) {
      const schema = jsonSchema(route.body, "input");
      const types = route.bodyContentTypes ?? ["application/json"];
      const content: Record<string, unknown> = Object.fromEntries(types.map((type) => [type, { schema }]));
      if (route.formBody) content[FORM_CONTENT_TYPE] = { schema: jsonSchema(route.formBody, "input") };
      // A body schema that accepts "no body" (POST /jobs/claim) makes the body optional.
      operation.requestBody = { required: !route.body.safeParse(undefined).success, content };
    }
    if (route.auth === "worker") operation.security = [{ WorkerApiKey: [] }];
    else if (route.auth !== "none") operation.security = [{ BearerAuth: [] }];
    paths[route.path] = { ...paths[route.path], [route.method]: operation };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Automation Hub",
      version: "1.0.0",
      description: "Registry of automations, jobs, remote workers, hub users and an event log.",
    },
    paths,
    components: {
      securitySchemes: {
        BearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "POST /identity/token" },
        WorkerApiKey: { type: "apiKey", in: "header", name: "X-Worker-Api-Key" },
      },
    },
  };
}
