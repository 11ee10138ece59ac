/**
 * What each request's log line says beyond method, path, status and duration: who called and
 * which job or automation it touched, so an operator can follow one job through the logs
 * (`jq 'select(.job_id == "…")'`). Ids only: never a body, a header or a credential.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "@hub/shared";
import { activeTracing } from "@hub/tracing";

declare module "node:http" {
  interface IncomingMessage {
    /** The request's logger: its lines carry `req: {id, method, url}` (see {@link requestLogger}). */
    log: Logger;
  }
}

/**
 * The fields added to a request's log line. Caller: `user_id` (and `api_key_id` when the user
 * sent an api key), or `worker_id` and `automation_id`.
 */
export interface RequestLogFields {
  user_id?: string;
  /** The api key the caller authenticated with (CONTRACT §6.10); never the key itself. */
  api_key_id?: string;
  worker_id?: string;
  automation_id?: string;
  job_id?: string;
  sector_id?: string;
  /** The user a request acted on (`/identity/users/{user_id}`), distinct from the calling `user_id`. */
  target_user_id?: string;
  /** The api key a request acted on (`/identity/api-keys/{api_key_id}`), distinct from the caller's `api_key_id`. */
  target_api_key_id?: string;
  [id: `${string}_id`]: string | undefined;
}

// Keyed by the request itself, read when its line is written at the response's end.
const fieldsByRequest = new WeakMap<IncomingMessage, RequestLogFields>();

/** Adds ids to the request's log line; later calls add to (and may refine) earlier ones. */
export function addRequestLogFields(req: IncomingMessage, fields: RequestLogFields): void {
  fieldsByRequest.set(req, { ...fieldsByRequest.get(req), ...fields });
}

/** The ids recorded for `req` so far. */
export function requestLogFields(req: IncomingMessage): RequestLogFields {
  return fieldsByRequest.get(req) ?? {};
}

/** Log fields that name the caller: a path id of the same name is logged as `target_<name>`. */
const CALLER_LOG_FIELDS: ReadonlySet<string> = new Set(["user_id", "api_key_id"]);

/**
 * The log field of a path parameter: ids under their own name, except the path's `user_id` and
 * `api_key_id`, which would be mistaken for the caller's.
 */
export function pathParamLogField(name: string): `${string}_id` | undefined {
  if (!name.endsWith("_id")) return undefined;
  const field = name as `${string}_id`;
  return CALLER_LOG_FIELDS.has(field) ? `target_${field}` : field;
}

/** Routes whose response `id` is the resource they created or handed out. */
export const RESPONSE_ID_LOG_FIELD: Readonly<Record<string, `${string}_id`>> = {
  "POST /jobs": "job_id",
  "POST /jobs/claim": "job_id",
  "POST /automations": "automation_id",
  "POST /sectors": "sector_id",
  "POST /automations/{automation_id}/schedules": "schedule_id",
  "POST /identity/users": "target_user_id",
  "POST /identity/api-keys": "target_api_key_id",
  "POST /webhooks": "webhook_id",
};

/** Paths that get no request line: probes and scrapes. */
const UNLOGGED_PATHS = new Set(["/healthz", "/metrics"]);

/**
 * Claims that found nothing (204) are logged at debug: an idle worker's every slot long-polls, and
 * one info line per slot every `wait_seconds` would bury everything else in an idle hub's log.
 */
const IDLE_CLAIM_PATHS = new Set(["/jobs/claim", "/jobs/claim-batch"]);

const INCOMING_REQUEST_ID = /^[\w.-]{1,128}$/;

/**
 * One log line per request, written when the response is finished (or the connection closed
 * first): `req: {id, method, url}` (path only: never headers, query strings or bodies), `res:
 * {statusCode}`, `responseTime` (ms), `trace_id`/`span_id` of its server span while tracing is on
 * (sampled or not), the ids recorded with {@link addRequestLogFields}, message
 * `request completed` (`request errored` for a 5xx). Answers `X-Request-Id` (the caller's when it
 * is a plain token, else a fresh UUID), and gives the request `req.log` for error lines.
 *
 * The same lines pino-http writes, at a fraction of the cost: pino-http builds two or three child
 * loggers per request (each serialising and redacting its bindings) whether or not anything else
 * is logged; here `req.log` is built only when asked for, and the line is one call.
 */
export function requestLogger(logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const startedAt = Date.now();
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && INCOMING_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", id);
    const url = req.url ?? "/";
    const queryAt = url.indexOf("?");
    const request = { id, method: req.method ?? "GET", url: queryAt === -1 ? url : url.slice(0, queryAt) };
    let child: Logger | undefined;
    Object.defineProperty(req, "log", {
      configurable: true,
      enumerable: false,
      get: () => (child ??= logger.child({ req: request, ...activeTracing()?.requestLogFields(req) })),
    });
    if (UNLOGGED_PATHS.has(url)) {
      next();
      return;
    }
    let written = false;
    const writeLine = () => {
      if (written) return;
      written = true;
      res.removeListener("finish", writeLine);
      res.removeListener("close", writeLine);
      const statusCode = res.statusCode;
      const line = {
        req: request,
        res: { statusCode },
        responseTime: Date.now() - startedAt,
        ...activeTracing()?.requestLogFields(req),
        ...fieldsByRequest.get(req),
      };
      if (statusCode >= 500) logger.info({ ...line, err: { type: "Error", message: `failed with status code ${statusCode}` } }, "request errored");
      else if (statusCode === 204 && IDLE_CLAIM_PATHS.has(request.url)) logger.debug(line, "request completed");
      else logger.info(line, "request completed");
    };
    res.on("finish", writeLine);
    res.on("close", writeLine);
    next();
  };
}
