/**
 * The sizes of what jobs carry (CONTRACT §6.15): a job's `context` and a worker's `result`, and
 * how many bytes one list page may hold. A context is copied into its job.created event, the
 * events stream, every stream reader and every webhook delivery, so one unbounded context costs
 * many times its size; these bounds keep each copy, and each list page, within what a process and
 * Redis can hold.
 *
 * The request schemas are built when their modules load, before the environment is read: they
 * read the limits from here at each validation, and {@link configurePayloadLimits} sets them once
 * at start-up.
 */
import { jsonObjectOfAtMost } from "@hub/shared";

/** The three settings, as ../env.ts parses them (their defaults come from here). */
interface PayloadLimitSettings {
  HUB_JOB_CONTEXT_MAX_BYTES: number;
  HUB_JOB_RESULT_MAX_BYTES: number;
  HUB_LIST_MAX_BYTES: number;
}

/** The defaults of the three settings (README "Configuration"). */
export const PAYLOAD_LIMIT_DEFAULTS: PayloadLimitSettings = {
  HUB_JOB_CONTEXT_MAX_BYTES: 65_536,
  HUB_JOB_RESULT_MAX_BYTES: 262_144,
  HUB_LIST_MAX_BYTES: 8 * 1024 * 1024,
};

let limits: PayloadLimitSettings = { ...PAYLOAD_LIMIT_DEFAULTS };

/** Takes the process's limits from its environment (called at start-up). */
export function configurePayloadLimits(env: PayloadLimitSettings): void {
  limits = {
    HUB_JOB_CONTEXT_MAX_BYTES: env.HUB_JOB_CONTEXT_MAX_BYTES,
    HUB_JOB_RESULT_MAX_BYTES: env.HUB_JOB_RESULT_MAX_BYTES,
    HUB_LIST_MAX_BYTES: env.HUB_LIST_MAX_BYTES,
  };
}

/** A job's `context` in a request body: a JSON object of at most HUB_JOB_CONTEXT_MAX_BYTES. */
export const jobContextField = () => jsonObjectOfAtMost(() => limits.HUB_JOB_CONTEXT_MAX_BYTES, "HUB_JOB_CONTEXT_MAX_BYTES");

/** A job's `result` in a worker's request: a JSON object of at most HUB_JOB_RESULT_MAX_BYTES. */
export const jobResultField = () => jsonObjectOfAtMost(() => limits.HUB_JOB_RESULT_MAX_BYTES, "HUB_JOB_RESULT_MAX_BYTES");

/** Most bytes of JSON one list page holds (it always holds at least one item). */
export function listMaxBytes(): number {
  return limits.HUB_LIST_MAX_BYTES;
}
