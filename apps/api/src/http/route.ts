/**
 * Every endpoint is one {@link RouteSpec}: its schemas validate the request here and produce the
 * OpenAPI document in ../openapi — one source of truth per contract.
 */
import type { Request, Response, Router } from "express";
import type { z } from "zod";
import { RequestValidationError, validate, type ValidationIssue } from "@hub/shared";
import type { AppContext } from "../context";
import type { AuthRequirement, Caller } from "./auth";
import { NO_BODY } from "./body";

export type HttpMethod = "get" | "post" | "put" | "delete";

export interface ResponseSpec {
  description: string;
  /** Omitted for bodiless responses (204) or non-JSON ones. */
  schema?: z.ZodType;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HandlerInput<A extends AuthRequirement, P, Q, B> {
  params: P;
  query: Q;
  body: B;
  caller: Caller<A>;
  ctx: AppContext;
  req: Request;
  res: Response;
}

export interface RouteSpec<
  A extends AuthRequirement = AuthRequirement,
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  /** OpenAPI-style path: `/automations/{automation_id}`. */
  path: string;
  summary: string;
  tag: string;
  auth: A;
  params?: P;
  query?: Q;
  body?: B;
  /** Content types the body may arrive in (OpenAPI only); JSON by default. */
  bodyContentTypes?: string[];
  responses: Record<number, ResponseSpec>;
  handler(input: HandlerInput<A, z.output<P>, z.output<Q>, z.output<B>>): Promise<HandlerResult>;
}

/** Identity function that keeps each route's schema types flowing into its handler. */
export function defineRoute<A extends AuthRequirement, P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  spec: RouteSpec<A, P, Q, B>,
): RouteSpec<A, P, Q, B> {
  return spec;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a heterogeneous list of routes; each was type-checked by defineRoute
export type AnyRoute = RouteSpec<any, any, any, any>;

/** `/automations/{automation_id}` → `/automations/:automation_id`. */
export function toExpressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}

/** Mounts the routes on `router`: authenticate, then validate path, query and body together. */
export function mountRoutes(router: Router, routes: AnyRoute[], ctx: AppContext): void {
  for (const route of routes) {
    router[route.method](toExpressPath(route.path), async (req: Request, res: Response) => {
      const caller = await ctx.auth.authenticate(req, route.auth);
      const issues: ValidationIssue[] = [];
      const pick = <S extends z.ZodType>(schema: S | undefined, input: unknown, loc: string) => {
        if (!schema) return undefined;
        const result = validate(schema, input, [loc]);
        if (result.ok) return result.value;
        issues.push(...result.issues);
        return undefined;
      };
      const params = pick(route.params, req.params, "path");
      const query = pick(route.query, { ...(req.query as object) }, "query");
      const rawBody: unknown = req.body === NO_BODY ? undefined : req.body;
      const body = pick(route.body, rawBody, "body");
      if (issues.length > 0) throw new RequestValidationError(issues);
      const result = await route.handler({ params, query, body, caller, ctx, req, res });
      if (result.headers) res.set(result.headers);
      if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    });
  }
}
