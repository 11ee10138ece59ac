/** The one error middleware: every failure leaves in the contract's shape (CONTRACT §1). */
import type { ErrorRequestHandler, RequestHandler } from "express";
import { isDatabaseUnavailable, loggableDatabaseError } from "@hub/db";
import { boundedValidationIssues, isRedisUnavailable } from "@hub/shared";
import { HttpError, RequestValidationError, UNAVAILABLE_RETRY_AFTER_SECONDS } from "./http-errors";
import type { AnyRoute } from "./route";
import { toExpressPath } from "./route";

export const errorHandler: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  if (error instanceof RequestValidationError) {
    res.status(422).json({ detail: boundedValidationIssues(error.issues) });
    return;
  }
  if (error instanceof HttpError) {
    res.status(error.status).set(error.headers).json(error.responseBody());
    return;
  }
  const status = (error as { status?: number; type?: string }).status;
  const type = (error as { type?: string }).type;
  if (status === 413 || type === "entity.too.large") {
    res.status(413).json({ detail: "Request body too large (limit 1 MiB)" });
    return;
  }
  if (typeof status === "number" && status >= 400 && status < 500) {
    res.status(status).json({ detail: "Bad request" });
    return;
  }
  if (isDependencyUnavailable(error)) {
    req.log.warn({ err: loggableDatabaseError(error) }, "a dependency is unavailable: answered 503");
    res.status(503).set("Retry-After", String(UNAVAILABLE_RETRY_AFTER_SECONDS)).json({ detail: "Service temporarily unavailable" });
    return;
  }
  req.log.error({ err: loggableDatabaseError(error) }, "unhandled error");
  res.status(500).json({ detail: "Internal Server Error" });
};

/**
 * PostgreSQL or Redis is unreachable, restarting or cut the connection: the request may succeed
 * when retried, so it gets 503 with Retry-After (CONTRACT §6.1), never a 500.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  return isDatabaseUnavailable(error) || isRedisUnavailable(error);
}

/** 405 for a known path with another method, 404 for anything else. */
export function notFoundHandler(routes: AnyRoute[]): RequestHandler {
  const known = routes.map((route) => ({
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${toExpressPath(route.path).replace(/:[^/]+/g, "[^/]+")}/?$`),
  }));
  return (req, res) => {
    const allowed = known.filter((k) => k.pattern.test(req.path)).map((k) => k.method);
    if (allowed.length > 0) {
      res
        .status(405)
        .set("Allow", [...new Set(allowed)].join(", "))
        .json({ detail: "Method Not Allowed" });
      return;
    }
    res.status(404).json({ detail: "Not Found" });
  };
}
