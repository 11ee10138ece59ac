/** Request and response shapes of job logs and progress (CONTRACT §6.12). */
import { z } from "zod";
import { AUTOMATION_LIMITS, isoDateTime, JOB_LOG_LEVELS, JOB_LOG_MAX_LINES_PER_REQUEST, JOB_LOG_MESSAGE_MAX_LENGTH, queryInt } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";
import { LAST_EVENT_ID_HEADER } from "../events/events.schemas";
import { attemptFence } from "./jobs.schemas";

export const jobLogLevel = z.enum(JOB_LOG_LEVELS);

export const appendJobLogsBody = z
  .object({
    lines: z
      .array(
        z.object({
          message: z.string().min(1).max(JOB_LOG_MESSAGE_MAX_LENGTH).describe(`1–${JOB_LOG_MESSAGE_MAX_LENGTH} characters`),
          level: jobLogLevel.default("info"),
          ts: isoDateTime().optional().describe("When the worker wrote the line (RFC 3339); default the hub's time of acceptance"),
        }),
      )
      .min(1)
      .max(JOB_LOG_MAX_LINES_PER_REQUEST)
      .describe(`1–${JOB_LOG_MAX_LINES_PER_REQUEST} lines, stored in this order`),
    attempt: attemptFence,
  })
  .meta({ id: "AppendJobLogsRequest" });
export type AppendJobLogsBody = z.output<typeof appendJobLogsBody>;

export const appendJobLogsResponse = z
  .object({
    accepted: z.int().min(0).describe("The request's lines stored (never the limit's marker line)"),
    truncated: z.boolean().describe("True once a line of this job was dropped at HUB_JOB_LOG_MAX_BYTES, in this answer and every later one"),
  })
  .meta({ id: "AppendJobLogsResult" });
export type AppendJobLogsResponse = z.infer<typeof appendJobLogsResponse>;

export const jobLogLine = z
  .object({
    seq: z.int().describe("The line's place in the job's log: increasing in order of acceptance over all attempts, not necessarily consecutive"),
    ts: z.iso.datetime().describe("As the worker sent it, in UTC (or the hub's time of acceptance)"),
    level: jobLogLevel,
    message: z.string(),
    attempt: z.int().describe("The job's attempts when the line was accepted"),
  })
  .meta({ id: "JobLogLine" });
export type JobLogLineRecord = z.infer<typeof jobLogLine>;

const levelFilter = jobLogLevel.optional().describe("Only lines of this level and above (debug < info < warn < error)");

export const listJobLogsQuery = z.object({
  attempt: queryInt({ min: 1, max: AUTOMATION_LIMITS.maxAttempts.max }).optional().describe("Only the lines of this attempt"),
  level: levelFilter,
  ...pageQueryShape(),
});
export type ListJobLogsQuery = z.output<typeof listJobLogsQuery>;

export const jobLogStreamQuery = z.object({ level: levelFilter });

export const jobLogStreamHeaders = z.object({
  [LAST_EVENT_ID_HEADER]: z
    .string()
    .optional()
    .describe(
      "The `id` of the last message received: a seq, and the stream starts with the lines after it; or `end`, and the answer is 204 (the client already saw `event: end`). Browsers' EventSource sends it when it reconnects. Any other value is read as absent",
    ),
});
