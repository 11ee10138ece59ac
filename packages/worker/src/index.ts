/**
 * @hub/worker — connect an automation to Automation Hub.
 *
 * `createWorker({ url, apiKey, handler })` claims the automation's jobs, keeps their leases alive
 * while `handler` works (its log lines, progress and the hub's cancels travel meanwhile), and
 * reports each result; `HubWorkerClient` is the protocol underneath,
 * for callers who want the calls themselves. The `hub-worker` command (./cli) runs any program as
 * the handler.
 */
export { createWorker, type HubWorker, type JobHandler, type JobTools, type WorkerJob, type WorkerOptions } from "./worker.js";
export { ABANDONED_AT_SHUTDOWN, JobAbortedError } from "./loop.js";
export type { CancelSignal } from "./signals.js";
export type { LeaseLossCause, WorkerEvent } from "./events.js";
export type { JobResult } from "./outcome.js";
export type { StandardSchemaV1 } from "./standard-schema.js";
export type { Logger } from "./logging.js";
export {
  HubWorkerClient,
  JOB_STATUSES,
  LOG_LEVELS,
  MAX_BATCH_SIZE,
  MAX_LOG_LINE_LENGTH,
  MAX_LOG_LINES_PER_REQUEST,
  MAX_PROGRESS_MESSAGE_LENGTH,
  MAX_CLAIM_WAIT_SECONDS,
  MAX_FAILURE_ERROR_LENGTH,
  type CompleteBatchVerdict,
  type HubJob,
  type JobDependency,
  type HubWorkerClientOptions,
  type JobProgress,
  type JobStatus,
  type LogLevel,
  type LogLine,
} from "./hub-client.js";
export { HubRequestError, HubUnreachableError, LeaseLostError, RetryableError, WorkerUnauthorizedError, type WorkerOperation } from "./errors.js";
