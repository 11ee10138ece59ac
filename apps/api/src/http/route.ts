/**
 * Every endpoint is one {@link RouteSpec}: its schemas validate the request here and produce the
 * OpenAPI document in ../openapi — one source of truth per contract.
 */
import type { Request, Response, Router } from "express";
import { z } from "zod";
import type { KeysetPosition } from "@hub/db";
import { validate, type ValidationIssue } from "@hub/shared";
import { RequestValidationError } from "./http-errors";
import type { AppContext } from "../context";
import type { ApiTag } from "../openapi/tags";
import type { AuthRequirement, Caller } from "./auth";
import { FORM_CONTENT_TYPE, NO_BODY, readRequestBody, unstorableTextIssues } from "./body";
import { CursorCodec, foreignCursorIssue, listPageWithin, nextPageLink } from "./pagination";
import { listMaxBytes } from "./payload-limits";
import { noStoreHeaders, type SecretInResponse } from "./security-headers";
import { addRequestLogFields, pathParamLogField, RESPONSE_ID_LOG_FIELD, type RequestLogFields } from "./request-log";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  /** Omitted for bodiless responses (204). */
  schema?: z.ZodType;
  /** The body's media type; default `application/json` (`text/event-stream` for GET /events/stream). */
  contentType?: string;
  /** An example body, shown in the OpenAPI document. */
  example?: unknown;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * A paginated route's position after the last item of `body`, when more items follow: the
   * response then carries `Link: <…cursor=…>; rel="next"`.
   */
  next?: KeysetPosition | undefined;
  /**
   * The handler answered on `res` itself and keeps it open (a server-sent event stream): nothing
   * more is sent here. `status` is what it answered with.
   */
  streaming?: true;
}

export interface HandlerInput<A extends AuthRequirement, P, Q, B, H = undefined> {
  params: P;
  query: Q;
  body: B;
  /** The validated request headers (only those named in the route's `headers` schema). */
  headers: H;
  caller: Caller<A>;
  /** A paginated route's decoded `cursor`: continue strictly after it (undefined: from the start). */
  after: KeysetPosition | undefined;
  ctx: AppContext;
  req: Request;
  res: Response;
}

export interface RouteSpec<
  A extends AuthRequirement = AuthRequirement,
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  H extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** OpenAPI-style path: `/automations/{automation_id}`. */
  path: string;
  /** The OpenAPI operationId: camelCase, named for what it does (`createJob`, `claimJob`); generated clients call it by this name. */
  operationId: string;
  /** One line for lists of operations (/docs, a client's method list). */
  summary: string;
  /** What it does and when to use it, in a sentence or a few: the rules a caller must know beyond the schemas. */
  description: string;
  tag: ApiTag;
  auth: A;
  params?: P;
  /**
   * The query-string schema, a zod object. Unknown parameters are refused (422
   * `extra_forbidden`) on every route, also on routes without a `query` schema.
   */
  query?: Q;
  /**
   * A list (CONTRACT §6.2): its query schema spreads `pageQueryShape()`, the handler receives the
   * decoded cursor as `after` and returns `next`, which becomes the `Link` header. A cursor is
   * bound to the route, so one list's cursor is refused by another.
   */
  paginated?: boolean;
  /**
   * Query parameters named by a pattern rather than listed in `query` (GET /jobs's
   * `context.<name>`): see {@link PatternQuery}. Their parsed value reaches the handler as
   * `query[patternQuery.name]`, which `query` declares (so it is typed there).
   */
  patternQuery?: PatternQuery;
  body?: B;
  /**
   * Request headers, validated with loc prefix "header" and described as header parameters.
   * Keys are lower-case header names (Node lower-cases them); unnamed headers are ignored.
   */
  headers?: H;
  /**
   * Schema of an `application/x-www-form-urlencoded` body, for an endpoint that also takes a form
   * (the OAuth2 password form of POST /identity/token). It produces what `body` produces.
   */
  formBody?: z.ZodType<z.output<B>>;
  /** Content types the body may arrive in (OpenAPI only); JSON by default. */
  bodyContentTypes?: string[];
  /** A request body the route accepts, shown in the OpenAPI document (and /docs's "Try it out"). */
  example?: z.input<B>;
  /**
   * Runs after authentication and before the body is read (CONTRACT §6.15: the login's
   * per-address limit comes before 413/415/422); throws to refuse the request.
   */
  beforeBody?(input: { req: Request; ctx: AppContext }): Promise<void>;
  /**
   * Runs after authentication and the body's 413 and 415, once the path parameters are valid,
   * before any 422 (malformed JSON included): the refusals the contract orders before a body's
   * 422 (POST /jobs/{job_id}/retry: 404, then 403). Throws to refuse the request.
   */
  beforeValidation?(input: { params: z.output<P>; caller: Caller<A>; ctx: AppContext }): Promise<void>;
  /** Its successful response carries a secret: `Cache-Control: no-store` (a token also `Pragma: no-cache`). */
  secretInResponse?: SecretInResponse;
  /**
   * A worker route that does not mark the worker seen (CONTRACT §6.12: POST /workers/me/offline);
   * every other worker call does (§3).
   */
  leavesWorkerUnseen?: boolean;
  /** The route answers without PostgreSQL or Redis (GET /healthz): no 503 is documented for it. */
  servedWithoutDependencies?: boolean;
  responses: Record<number, ResponseSpec>;
  handler(input: HandlerInput<A, z.output<P>, z.output<Q>, z.output<B>, z.output<H>>): Promise<HandlerResult>;
}

/**
 * A family of query parameters named by a pattern (`context.<name>=…`, `context[<name>]=…`): the
 * raw parameters it {@link claims} are exempt from `extra_forbidden` and read together by
 * {@link parse}, whose value replaces `query[name]` before the query schema runs (that schema
 * declares `name` and passes the value through). `/openapi.json` declares it as the one parameter
 * `name` with `style: deepObject`, as OpenAPI 3.1 describes `name[key]=value` parameters.
 */
export interface PatternQuery {
  name: string;
  /** Whether a raw query parameter belongs to the family. */
  claims(key: string): boolean;
  /** Reads the claimed parameters, in the order sent (a repeated one once per value); issues carry their whole `loc`. */
  parse(parameters: Array<[key: string, value: string]>): { ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] };
}

/** Identity function that keeps each route's schema types flowing into its handler. */
export function defineRoute<A extends AuthRequirement, P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, H extends z.ZodType = z.ZodUndefined>(
  spec: RouteSpec<A, P, Q, B, H>,
): RouteSpec<A, P, Q, B, H> {
  return spec;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous list of routes; each was type-checked by defineRoute
export type AnyRoute = RouteSpec<any, any, any, any, any>;

/** `/automations/{automation_id}` → `/automations/:automation_id`. */
export function toExpressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}

/**
 * Mounts the routes on `router`. Order of the answers (CONTRACT §6.1): authenticate (401/403),
 * the route's `beforeBody` check, read the body (413, 415, 422 malformed JSON), then validate path, query, headers and body
 * together (422 with every problem).
 */
export function mountRoutes(router: Router, routes: AnyRoute[], ctx: AppContext): void {
  const cursors = new CursorCodec(ctx.env.HUB_JWT_SECRET);
  for (const route of routes) {
    const listName = `${route.method.toUpperCase()} ${route.path}`;
    const querySchema = strictQuerySchema(route);
    const responseIdLogField = RESPONSE_ID_LOG_FIELD[`${route.method.toUpperCase()} ${route.path}`];
    router[route.method](toExpressPath(route.path), async (req: Request, res: Response) => {
      if (route.secretInResponse) res.set(noStoreHeaders(route.secretInResponse));
      const caller = await ctx.auth.authenticate(req, route.auth === "worker" && route.leavesWorkerUnseen ? "worker-unseen" : route.auth);
      await route.beforeBody?.({ req, ctx });
      const parsedBody = await readBodyBefore(
        route,
        () => readRequestBody(req, res, route.formBody !== undefined),
        async () => {
          // An invalid path is reported below with every other problem.
          const path = route.params ? validate(route.params, req.params, ["path"]) : { ok: true as const, value: undefined };
          if (path.ok) await route.beforeValidation!({ params: path.value, caller, ctx });
        },
      );
      const issues: ValidationIssue[] = [];
      const pick = <S extends z.ZodType>(schema: S | undefined, input: unknown, loc: string) => {
        if (!schema) return undefined;
        const result = validate(schema, input, [loc]);
        if (result.ok) return result.value;
        issues.push(...result.issues);
        return undefined;
      };
      const params = pick(route.params, req.params, "path");
      const rawQuery = { ...(req.query as Record<string, unknown>) };
      if (route.patternQuery) issues.push(...takePatternQuery(route.patternQuery, rawQuery));
      const query = pick(querySchema, rawQuery, "query");
      // Decoded from the raw value, so a bad cursor is reported with every other problem.
      let after: KeysetPosition | undefined;
      if (route.paginated && typeof rawQuery.cursor === "string") {
        after = cursors.decode(listName, rawQuery.cursor);
        if (!after) issues.push(foreignCursorIssue);
      }
      const headers = pick(route.headers, { ...req.headers }, "header");
      const rawBody: unknown = parsedBody === NO_BODY ? undefined : parsedBody;
      const body = pick(route.formBody && req.is(FORM_CONTENT_TYPE) ? route.formBody : route.body, rawBody, "body");
      // What passed the schemas (unknown fields already dropped) must also fit in PostgreSQL.
      issues.push(...unstorableTextIssues(params, ["path"]), ...unstorableTextIssues(query, ["query"]), ...unstorableTextIssues(body, ["body"]));
      if (issues.length > 0) throw new RequestValidationError(issues);
      addRequestLogFields(req, touchedIds(params, body));
      const result = await route.handler({ params, query, body, headers, caller, after, ctx, req, res });
      if (result.streaming) return;
      if (responseIdLogField && result.status < 300) {
        const id = (result.body as { id?: unknown } | undefined)?.id;
        if (typeof id === "string") addRequestLogFields(req, { [responseIdLogField]: id });
      }
      if (result.headers) res.set(result.headers);
      if (route.paginated && Array.isArray(result.body)) {
        const page = listPageWithin(result.body, listMaxBytes(), result.next);
        if (page.next) res.set("Link", nextPageLink(req.originalUrl, cursors.encode(listName, page.next)));
        res.status(result.status).type("application/json").send(page.json);
        return;
      }
      if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    });
  }
}

/**
 * Reads the body (413, 415, 422 malformed JSON); for a route with `beforeValidation`, runs that
 * check after 413 and 415 but before any 422, malformed JSON included.
 */
async function readBodyBefore(route: AnyRoute, read: () => Promise<unknown>, check: () => Promise<void>): Promise<unknown> {
  if (!route.beforeValidation) return read();
  let body: unknown;
  let malformed: RequestValidationError | undefined;
  try {
    body = await read();
  } catch (error) {
    if (!(error instanceof RequestValidationError)) throw error;
    malformed = error;
  }
  await check();
  if (malformed) throw malformed;
  return body;
}

/**
 * Moves the parameters `pattern` claims out of `rawQuery` and puts its parsed value in their place,
 * at `rawQuery[pattern.name]`; returns its issues. The bare `name` is no parameter of the family:
 * sent as such, it is an unknown parameter.
 */
function takePatternQuery(pattern: PatternQuery, rawQuery: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (Object.hasOwn(rawQuery, pattern.name)) issues.push({ loc: ["query", pattern.name], msg: "Extra inputs are not permitted", type: "extra_forbidden" });
  const claimed: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(rawQuery)) {
    if (!pattern.claims(key)) continue;
    delete rawQuery[key];
    // The query parser gives a string, or an array of strings for a repeated parameter.
    for (const one of Array.isArray(value) ? value : [value]) claimed.push([key, String(one)]);
  }
  delete rawQuery[pattern.name];
  const parsed = pattern.parse(claimed);
  if (!parsed.ok) return [...issues, ...parsed.issues];
  if (parsed.value !== undefined) rawQuery[pattern.name] = parsed.value;
  return issues;
}

/** Routes without query parameters take none: an empty strict object refuses any. */
const NO_QUERY_PARAMETERS = z.strictObject({});

/**
 * The route's query schema with unknown parameters refused (CONTRACT §6.2). FastAPI would ignore
 * them, but a misspelt `?statuss=failed` silently returning every job is the failure the contract
 * names, and `GET /jobs/{id}?foo=1` is the same mistake: every route refuses them alike.
 */
function strictQuerySchema(route: AnyRoute): z.ZodType {
  if (route.query === undefined) return NO_QUERY_PARAMETERS;
  if (route.query instanceof z.ZodObject) return route.query.strict();
  throw new Error(`${route.method.toUpperCase()} ${route.path}: a query schema must be a zod object`);
}

/** The ids a validated request names: its path ids and a body's `automation_id` (POST /jobs). */
function touchedIds(params: unknown, body: unknown): RequestLogFields {
  const fields: RequestLogFields = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    const field = pathParamLogField(name);
    if (field && typeof value === "string") fields[field] = value;
  }
  const bodyAutomationId = (body as { automation_id?: unknown } | undefined)?.automation_id;
  if (typeof bodyAutomationId === "string" && fields.automation_id === undefined) fields.automation_id = bodyAutomationId;
  return fields;
}
