import type { HubJob } from "./hub-client.js";

/**
 * How a worker learns that a job is no longer its own while working it: the hub refused a
 * heartbeat or a batch of log lines (409/404), the lease expired before a heartbeat renewed it,
 * or the signals stream said so (`event: cancel`).
 */
export type LeaseLossCause = "heartbeat" | "logs" | "expired" | "signal";

/** What happened, for logs, metrics and tests; never holds the api key. */
export type WorkerEvent =
  | { type: "claimed"; job: HubJob }
  /** The hub accepted the result: this is the job's one recorded result. */
  | { type: "completed"; job: HubJob; result: Record<string, unknown> }
  /** The hub recorded the failure; `job.status` says whether it was queued again or failed for good. */
  | { type: "failed"; job: HubJob; error: string; retryable: boolean }
  /**
   * The job is no longer this worker's: the hub refused a heartbeat or the report (409/404), or
   * the lease expired before a heartbeat renewed it. The work was dropped; nothing was recorded.
   */
  | {
      type: "lease_lost";
      jobId: string;
      during: LeaseLossCause | "complete" | "fail";
      /** What the hub said: the signal's reason (`cancelled_by_user`, `timeout` …) or the job's status in a 409's body. */
      reason?: string;
    }
  /**
   * A report whose first attempt went unanswered was refused on retry (409): either that first
   * attempt was recorded, or the lease was lost meanwhile. `GET /jobs/{id}` tells which.
   */
  | { type: "report_unconfirmed"; jobId: string; during: "complete" | "fail" }
  /** The shutdown deadline passed while the job's handler still ran: it is failed as retryable. */
  | { type: "abandoned"; jobId: string }
  /**
   * Log lines were dropped (the hub unreachable while the buffer was full, or lines still unsent
   * when the job ended): told once, at the first drop, until lines reach the hub again.
   */
  | { type: "log_lines_dropped"; jobId: string; total: number }
  /** Log lines reach the hub again after some were dropped: `dropped` since the last delivery, `total` since the worker started. */
  | { type: "log_lines_delivered_again"; dropped: number; total: number }
  /** The signals stream is open (at start, and again after it dropped): a cancel reaches a handler within a second. */
  | { type: "signals_connected" }
  /** A call failed; `retryInMs` is the wait before the next try, -1 when it is not retried. */
  | { type: "hub_error"; operation: string; message: string; retryInMs: number };

export type EmitWorkerEvent = (event: WorkerEvent) => void;
