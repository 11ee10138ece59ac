/**
 * The answers every route can give whatever its handler does (CONTRACT §1, §6.1), documented once
 * under `components/responses` and referenced by each operation they apply to.
 */
import { errorResponse, validationErrorResponse } from "../http/common-schemas";
import { MAX_BODY_BYTES } from "../http/body";
import type { AnyRoute } from "../http/route";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../http/http-errors";
import type { ComponentSchemas, JsonSchema } from "./components";

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** `components/responses`: the shared answers, their bodies referencing HTTPError and ValidationError. */
export function sharedResponses(schemas: ComponentSchemas): Record<string, JsonSchema> {
  const httpError = { "application/json": { schema: schemas.render(errorResponse, "output") } };
  return {
    Unauthorized: {
      description: "Missing, malformed, expired or revoked credentials (a worker key on a bearer endpoint, or a bearer token on a worker endpoint, too)",
      headers: { "WWW-Authenticate": { description: "`Bearer`, on endpoints that take a bearer token", schema: { type: "string" } } },
      content: httpError,
    },
    Forbidden: { description: "Authenticated, but not allowed to do this (admins only; or a login token is needed, not an api key)", content: httpError },
    PayloadTooLarge: { description: `The request body is over ${MAX_BODY_BYTES / 1024 / 1024} MiB`, content: httpError },
    UnsupportedMediaType: {
      description: "A non-empty request body that is not `application/json` or `application/*+json` (`Unsupported Media Type: send application/json`)",
      content: httpError,
    },
    ValidationFailed: {
      description:
        "The request is invalid: every problem at once, in FastAPI/pydantic v2's shape (`loc` starts with body, query, path or header). " +
        "Also for an unknown query parameter (`extra_forbidden`) and malformed JSON (`json_invalid`)",
      content: { "application/json": { schema: schemas.render(validationErrorResponse, "output") } },
    },
    ServiceUnavailable: {
      description: "PostgreSQL or Redis is unreachable: `Service temporarily unavailable`. Nothing changed; the request may be repeated as it is",
      headers: { "Retry-After": { description: `Seconds to wait before retrying (${UNAVAILABLE_RETRY_AFTER_SECONDS})`, schema: { type: "integer" } } },
      content: httpError,
    },
  };
}

/**
 * The shared answers `route` can give, by status: 401/403 by its authentication, 413 and 415
 * because every route reads its body the same way, 422 for its parameters and body (and unknown
 * query parameters, refused everywhere), 503 unless it needs neither PostgreSQL nor Redis.
 */
export function sharedResponsesOf(route: AnyRoute): Record<number, { $ref: string }> {
  const answers: Record<number, { $ref: string }> = {};
  if (route.auth !== "none") answers[401] = ref("Unauthorized");
  if (route.auth === "admin" || route.auth === "admin-login-token" || route.auth === "user-login-token") answers[403] = ref("Forbidden");
  answers[413] = ref("PayloadTooLarge");
  answers[415] = ref("UnsupportedMediaType");
  answers[422] = ref("ValidationFailed");
  if (!route.servedWithoutDependencies) answers[503] = ref("ServiceUnavailable");
  return answers;
}
