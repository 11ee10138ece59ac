/** The worker's log lines (pino JSON): job ids and outcomes, never the api key, a context or a result. */
import { pino, type Logger } from "pino";
import type { WorkerEvent } from "./events.js";

/** A JSON-lines logger on stdout, as the hub's own processes write them. */
export function defaultLogger(level = "info"): Logger {
  return pino({ name: "hub-worker", level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime });
}

export function logWorkerEvent(logger: Logger, event: WorkerEvent): void {
  switch (event.type) {
    case "claimed":
      return logger.info({ job_id: event.job.id, attempt: event.job.attempts }, "job claimed");
    case "completed":
      return logger.info({ job_id: event.job.id }, "job completed");
    case "failed":
      return logger.warn({ job_id: event.job.id, error: event.error, retryable: event.retryable, status: event.job.status }, "job failed");
    case "lease_lost":
      return logger.warn(
        { job_id: event.jobId, during: event.during, reason: event.reason },
        "job taken back by the hub (cancelled or lease lapsed); work dropped",
      );
    case "report_unconfirmed":
      return logger.warn(
        { job_id: event.jobId, during: event.during },
        "report refused after an unanswered attempt; GET /jobs/{job_id} shows whether it was recorded",
      );
    case "abandoned":
      return logger.warn({ job_id: event.jobId }, "shutdown deadline passed: job failed as retryable, its handler abandoned");
    case "log_lines_dropped":
      return logger.warn(
        { job_id: event.jobId, dropped_total: event.total },
        "log lines dropped: the hub cannot take them now (told once until lines reach it again)",
      );
    case "log_lines_delivered_again":
      return logger.info({ dropped: event.dropped, dropped_total: event.total }, "log lines reach the hub again");
    case "signals_connected":
      return logger.debug("signals stream open");
    case "hub_error":
      return logger.warn({ operation: event.operation, error: event.message, retry_in_ms: event.retryInMs }, "hub call failed");
    default: {
      const exhaustive: never = event;
      throw new Error(`unknown worker event ${JSON.stringify(exhaustive)}`);
    }
  }
}

export type { Logger };
