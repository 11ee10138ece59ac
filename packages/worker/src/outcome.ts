/** What a handler's run amounts to: a result to complete the job with, or a failure to report. */
import { RetryableError } from "./errors.js";
import { MAX_FAILURE_ERROR_LENGTH } from "./hub-client.js";

export type JobResult = Record<string, unknown>;

export type Outcome = { ok: true; result: JobResult } | { ok: false; error: string; retryable: boolean };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A failure message the hub will store: at most {@link MAX_FAILURE_ERROR_LENGTH} characters
 * (longer is cut, marked with "…"), never empty, without the NUL characters and lone surrogates
 * PostgreSQL cannot hold (the hub would refuse the report with 422 and the job would wait out its
 * lease instead of failing).
 */
export function failureText(text: string): string {
  const cut = text.length <= MAX_FAILURE_ERROR_LENGTH ? text : `${text.slice(0, MAX_FAILURE_ERROR_LENGTH - 1)}…`;
  return cut.replaceAll("\u0000", "").replace(LONE_SURROGATE, "\ufffd").trim() || "failed";
}

/** A failure outcome for something a handler threw: retryable only for a {@link RetryableError}. */
export function failureOf(error: unknown): Outcome {
  const message = error instanceof Error ? error.message || error.name : String(error);
  return { ok: false, error: failureText(message), retryable: error instanceof RetryableError };
}

function isJsonObject(value: unknown): value is JobResult {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Awaits a handler's run: a returned object (nothing counts as `{}`) completes, a throw fails. */
export async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    const result = await run();
    if (result === undefined) return { ok: true, result: {} };
    if (isJsonObject(result)) return { ok: true, result };
    return { ok: false, error: `the handler returned ${Array.isArray(result) ? "an array" : typeof result}, not a JSON object`, retryable: false };
  } catch (error) {
    return failureOf(error);
  }
}
