/**
 * The hub's error family. Anything thrown from a route ends in the API's one error middleware,
 * which turns an {@link HttpError} into the contract's body (`{"detail": ...}`) and anything else
 * into a 500 that shows no internals.
 */
import type { JobStatus, ValidationIssue } from "@hub/shared";

/**
 * Seconds a client is asked to wait after a 503. PostgreSQL restarts in a few seconds and the hub
 * reconnects within a second of its return (pool on demand, Redis at most every second).
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
  }

  /** The response body: `{"detail": …}`, and what a subclass adds. */
  responseBody(): Record<string, unknown> {
    return { detail: this.detail };
  }
}

/** 503 with Retry-After, as the error middleware answers when PostgreSQL or Redis is away (CONTRACT §6.1). */
export class ServiceUnavailableError extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(503, "Service temporarily unavailable", { "Retry-After": String(retryAfterSeconds) });
  }
}

/** 401: missing, malformed, expired or revoked credentials. */
export class UnauthorizedError extends HttpError {
  /** `bearerChallenge`: the `WWW-Authenticate` value of a bearer refusal, `Bearer` by default. */
  constructor(detail = "Not authenticated", scheme: "Bearer" | "WorkerApiKey" = "Bearer", bearerChallenge = "Bearer") {
    super(401, detail, scheme === "Bearer" ? { "WWW-Authenticate": bearerChallenge } : {});
  }
}

/**
 * 401 for a bearer credential that was sent and refused, with RFC 6750's `error="invalid_token"`
 * and, when it only expired, an `error_description` that tells a script to sign in again rather
 * than suspect its secret (CONTRACT §6.11).
 */
export class InvalidBearerTokenError extends UnauthorizedError {
  constructor(detail = "Could not validate credentials", description?: "The access token expired" | "The api key expired") {
    super(detail, "Bearer", description ? `Bearer error="invalid_token", error_description="${description}"` : 'Bearer error="invalid_token"');
  }
}

/** 403: authenticated, but this caller may not do this. */
export class ForbiddenError extends HttpError {
  constructor(detail = "Not enough permissions") {
    super(403, detail);
  }
}

/** 404: unknown id or route. */
export class NotFoundError extends HttpError {
  constructor(detail = "Not Found") {
    super(404, detail);
  }
}

/** 409: the request conflicts with the current state of a resource. */
export class ConflictError extends HttpError {
  constructor(detail: string) {
    super(409, detail);
  }
}

/**
 * 409 of a worker call about a job (CONTRACT §6.12): the body also carries the job's `status` now,
 * so a worker that missed a cancel signal learns it here.
 */
export class JobNotLeasedError extends ConflictError {
  constructor(
    detail: string,
    readonly jobStatus: JobStatus,
  ) {
    super(detail);
  }

  override responseBody(): Record<string, unknown> {
    return { detail: this.detail, status: this.jobStatus };
  }
}

/** 429: too many attempts; `retryAfterSeconds` becomes the Retry-After header. */
export class RateLimitedError extends HttpError {
  constructor(detail: string, retryAfterSeconds: number) {
    super(429, detail, { "Retry-After": String(retryAfterSeconds) });
  }
}

/** 422 in the FastAPI/pydantic v2 shape: every problem of the request at once. */
export class RequestValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super("Request validation failed");
    this.name = "RequestValidationError";
  }
}
