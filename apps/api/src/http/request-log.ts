/**
 * What each request's log line says beyond method, path, status and duration: who called and
 * which job or automation it touched, so an operator can follow one job through the logs
 * (`jq 'select(.job_id == "…")'`). Ids only: never a body, a header or a credential.
 */
import type { IncomingMessage } from "node:http";

/** The fields added to a request's log line. Caller: `user_id`, or `worker_id` and `automation_id`. */
export interface RequestLogFields {
  user_id?: string;
  worker_id?: string;
  automation_id?: string;
  job_id?: string;
  sector_id?: string;
  /** The user a request acted on (`/identity/users/{user_id}`), distinct from the calling `user_id`. */
  target_user_id?: string;
  [id: `${string}_id`]: string | undefined;
}

// Keyed by the request itself: pino-http hands its customProps the same object at the response's end.
const fieldsByRequest = new WeakMap<IncomingMessage, RequestLogFields>();

/** Adds ids to the request's log line; later calls add to (and may refine) earlier ones. */
export function addRequestLogFields(req: IncomingMessage, fields: RequestLogFields): void {
  fieldsByRequest.set(req, { ...fieldsByRequest.get(req), ...fields });
}

/** The ids recorded for `req` so far (pino-http `customProps`). */
export function requestLogFields(req: IncomingMessage): RequestLogFields {
  return fieldsByRequest.get(req) ?? {};
}

/**
 * The log field of a path parameter: ids under their own name, except the path's `user_id`,
 * which would be mistaken for the caller's.
 */
export function pathParamLogField(name: string): `${string}_id` | undefined {
  if (!name.endsWith("_id")) return undefined;
  return name === "user_id" ? "target_user_id" : (name as `${string}_id`);
}

/** Routes whose response `id` is the job or automation they created or handed out. */
export const RESPONSE_ID_LOG_FIELD: Readonly<Record<string, `${string}_id`>> = {
  "POST /jobs": "job_id",
  "POST /jobs/claim": "job_id",
  "POST /automations": "automation_id",
  "POST /sectors": "sector_id",
  "POST /identity/users": "target_user_id",
};
