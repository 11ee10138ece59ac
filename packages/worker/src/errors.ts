/** The errors of the worker protocol client and of a job handler. */

export type WorkerOperation =
  "claim" | "heartbeat" | "complete" | "complete-and-claim" | "fail" | "claim-batch" | "complete-batch" | "logs" | "signals" | "offline" | "dependencies";

/**
 * Throw from a handler for a failure worth another attempt (an upstream timeout, a locked file):
 * the hub queues the job again, after its automation's back-off, while attempts remain. Any other
 * error fails the job for good.
 */
export class RetryableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RetryableError";
  }
}

/** The hub answered with a status the operation does not expect. */
export class HubRequestError extends Error {
  constructor(
    readonly operation: WorkerOperation,
    readonly status: number,
    /** The body's `detail` (a string, or the 422 issue list). */
    readonly detail: unknown,
    /** The answer's `Retry-After` in milliseconds (503, 429), when it had one. */
    readonly retryAfterMs?: number,
  ) {
    super(`${operation}: hub answered ${status}${detail === undefined ? "" : ` ${typeof detail === "string" ? detail : JSON.stringify(detail)}`}`);
    this.name = "HubRequestError";
  }
}

/** 409: the job is not running under this worker's current lease (cancelled, finished, re-queued). */
export class LeaseLostError extends HubRequestError {
  constructor(
    operation: WorkerOperation,
    readonly jobId: string,
    detail: unknown,
    /** The job's status now, as the 409's body names it (`cancelled`, `queued` …); undefined when the hub did not say. */
    readonly jobStatus?: string,
  ) {
    super(operation, 409, detail);
    this.name = "LeaseLostError";
  }
}

/** 401: the api key is not (or no longer) valid. Retrying will not help. */
export class WorkerUnauthorizedError extends HubRequestError {
  constructor(operation: WorkerOperation, detail: unknown) {
    super(operation, 401, detail);
    this.name = "WorkerUnauthorizedError";
  }
}

/** No answer (connection refused or reset, timeout): whether the hub acted on the call is unknown. */
export class HubUnreachableError extends Error {
  constructor(
    readonly operation: WorkerOperation,
    cause: unknown,
  ) {
    super(`${operation}: hub unreachable (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.name = "HubUnreachableError";
  }
}

/** Worth calling again: the hub was unreachable, overloaded (503, 429) or failed internally. */
export function isTransient(error: unknown): boolean {
  return error instanceof HubUnreachableError || (error instanceof HubRequestError && (error.status >= 500 || error.status === 429));
}

/** 409, or 404 (the job is not, or no longer, one of this worker's automation). */
export function isTakenBack(error: unknown): boolean {
  return error instanceof LeaseLostError || (error instanceof HubRequestError && error.status === 404);
}
