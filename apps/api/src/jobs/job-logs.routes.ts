import { z } from "zod";
import { JOB_LOG_MAX_LINES_PER_REQUEST, JOB_LOG_MESSAGE_MAX_LENGTH } from "@hub/shared";
import { jobNotLeasedResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION, seqOfPosition, seqPosition } from "../http/pagination";
import { defineRoute } from "../http/route";
import { appendJobLogsBody, appendJobLogsResponse, jobLogLine, jobLogStreamHeaders, jobLogStreamQuery, listJobLogsQuery } from "./job-logs.schemas";
import { serveJobLogStream } from "./job-log-stream";
import { LAST_EVENT_ID_HEADER } from "../events/events.schemas";
import { appendLogsAsWorker, listLogs } from "./job-logs.service";
import { jobIdParams } from "./jobs.schemas";

const STREAM_EXAMPLE =
  "retry: 2000\n: connected\n\n" +
  'id: 1\ndata: {"seq":1,"ts":"2026-11-26T10:00:00.000Z","level":"info","message":"read 1200 rows","attempt":1}\n\n' +
  'event: progress\ndata: {"percent":40,"message":"reading rows","updated_at":"2026-11-26T10:00:01.000Z"}\n\n' +
  'id: end\nevent: end\ndata: {"status":"completed"}\n\n';

/** Job logs (CONTRACT §6.12): the worker writes them, whoever may read the job reads them. */
export const jobLogRoutes = [
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/logs",
    operationId: "appendJobLogs",
    summary: "Send log lines of a running job",
    description:
      `Stores up to ${JOB_LOG_MAX_LINES_PER_REQUEST} lines (each 1–${JOB_LOG_MESSAGE_MAX_LENGTH} characters) of a job running under this worker's lease, in order, each with the next \`seq\` of the job. ` +
      "A job's stored messages hold at most HUB_JOB_LOG_MAX_BYTES (1 MiB) of UTF-8 over all its attempts: the line that would pass it, the rest of the request and every later line are dropped, " +
      'one `warn` line "log limit of <N> bytes reached: later lines dropped" is stored once, and `truncated` is true from then on. A job not running under this worker\'s lease (or not in `attempt`) is 409 and nothing is stored. ' +
      "Log lines write no event.",
    tag: "worker protocol",
    auth: "worker",
    params: jobIdParams,
    body: appendJobLogsBody,
    example: {
      lines: [
        { message: "read 1200 rows", level: "info" },
        { message: "row 17: missing VAT number", level: "warn", ts: "2026-11-26T10:00:01.250Z" },
      ],
      attempt: 1,
    },
    responses: {
      200: { description: "What was stored", schema: appendJobLogsResponse },
      404: { description: "Unknown job, or a job of another automation" },
      409: {
        description:
          "The job is not running under this worker's current lease (or not in the attempt named); nothing was stored. `status` is the job's status now",
        schema: jobNotLeasedResponse,
      },
    },
    handler: async ({ params, body, caller, ctx }) => ({ status: 200, body: await appendLogsAsWorker(ctx, caller.worker, params.job_id, body) }),
  }),
  defineRoute({
    method: "get",
    path: "/jobs/{job_id}/logs",
    operationId: "listJobLogs",
    summary: "List a job's log lines",
    description:
      "The job's log lines in `seq` order (the order the hub accepted them, over all attempts; never by `ts`, which is shown as the worker sent it), a page at a time (follow the `Link` header). " +
      "`attempt` keeps one attempt's lines, `level` that level and those above. Lines go with their job (retention).",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    query: listJobLogsQuery,
    paginated: true,
    responses: {
      200: { description: `The lines, by seq. ${LINK_HEADER_DESCRIPTION}`, schema: z.array(jobLogLine) },
      404: { description: "Unknown job" },
    },
    handler: async ({ params, query, after, caller, ctx }) => {
      const page = await listLogs(ctx.database.pool, caller.reach, params.job_id, query, seqOfPosition(after));
      return { status: 200, body: page.items, next: page.nextSeq === undefined ? undefined : seqPosition(page.nextSeq) };
    },
  }),
  defineRoute({
    method: "get",
    path: "/jobs/{job_id}/logs/stream",
    operationId: "streamJobLogs",
    summary: "Follow a job's log live (server-sent events)",
    description:
      "The job's stored lines after `Last-Event-ID` (a seq), or all of them; then the job's progress once (`event: progress`), when it has one; then new lines within a second of being accepted, " +
      "`event: progress` on each change (`null` after the job is queued again), and `event: end` `{status}` within a second of the job finishing, after which the stream closes. " +
      "A line is a message with `id: <seq>` and `data` a JobLogLine; `progress` carries no id, `end` carries `id: end`, so a reconnecting EventSource sends `Last-Event-ID: end` and gets 204, on which it stops. Resuming with `Last-Event-ID` is always exact (no gap, no repeat, never a reset). " +
      "`level` keeps that level and above. Counts against the caller's 5 open streams (CONTRACT §6.15); the credential is checked again as on GET /events/stream. " +
      "Authenticate with the Authorization header (read the stream with fetch; a browser's EventSource cannot send it).",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    query: jobLogStreamQuery,
    headers: jobLogStreamHeaders,
    responses: {
      200: {
        description:
          "The stream, open until the job finished (after `event: end`), the client leaves, its credential stops being valid or the API shuts down. Messages: `id:` + `data:` (a JobLogLine), `event: progress` (a JobProgress or null), `id: end` + `event: end` (`{status}`), and `:` comments (heartbeats)",
        contentType: "text/event-stream",
        schema: z.string(),
        example: STREAM_EXAMPLE,
      },
      204: {
        description: "`Last-Event-ID: end`: the client already received `event: end`; nothing follows (a standard EventSource stops reconnecting on a 204)",
      },
      404: { description: "Unknown job" },
      429: {
        description:
          "Too many open streams: the caller's user already has 5 open on this path (a request with Last-Event-ID takes the oldest one's place instead); see Retry-After",
      },
    },
    handler: async ({ params, query, headers, caller, ctx, req, res }) => {
      const served = await serveJobLogStream({
        ctx,
        req,
        res,
        caller,
        jobId: params.job_id,
        minLevel: query.level,
        lastEventId: headers[LAST_EVENT_ID_HEADER],
      });
      return served === "ended" ? { status: 204 } : { status: 200, streaming: true };
    },
  }),
];
