/**
 * Job logs and progress (CONTRACT §6.12): the levels and the bounds of a worker's log lines and
 * progress, read by the request schemas, the statements and the worker SDK alike.
 */

/** Log levels, lowest first: a `level` filter keeps that level and those after it. */
export const JOB_LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type JobLogLevel = (typeof JOB_LOG_LEVELS)[number];

/**
 * How a level is stored (`job_logs.level`, a smallint): pino's numbers, so `level >= 40` reads as
 * "warn and above" to anyone who knows pino, and a filter is one comparison.
 */
export const JOB_LOG_LEVEL_CODES: Readonly<Record<JobLogLevel, number>> = { debug: 20, info: 30, warn: 40, error: 50 };

/** The level a stored code stands for. */
export function jobLogLevelOf(code: number): JobLogLevel {
  const level = JOB_LOG_LEVELS.find((candidate) => JOB_LOG_LEVEL_CODES[candidate] === code);
  if (!level) throw new Error(`unknown job log level code ${code}`);
  return level;
}

/** Characters of one log line's `message`. */
export const JOB_LOG_MESSAGE_MAX_LENGTH = 8192;
/** Lines of one POST /jobs/{id}/logs request. */
export const JOB_LOG_MAX_LINES_PER_REQUEST = 1000;
/** HUB_JOB_LOG_MAX_BYTES: UTF-8 bytes of a job's stored messages over all its attempts. */
export const JOB_LOG_MAX_BYTES_DEFAULT = 1024 * 1024;
export const JOB_LOG_MAX_BYTES_RANGE = { min: 8 * 1024, max: 64 * 1024 * 1024 } as const;
/** Characters of a progress `message`. */
export const JOB_PROGRESS_MESSAGE_MAX_LENGTH = 500;

/** The one line stored when a job's log reaches its limit (outside the limit). */
export const jobLogLimitMessage = (maxBytes: number) => `log limit of ${maxBytes} bytes reached: later lines dropped`;

/** A job's progress as the job record and the log stream show it. */
export interface JobProgress {
  percent: number | null;
  message: string | null;
  updated_at: string;
}
