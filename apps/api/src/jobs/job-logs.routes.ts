import { z } from "zod";
import { JOB_LOG_MAX_LINES_PER_REQUEST, JOB_LOG_MESSAGE_MAX_LENGTH } from "@hub/shared";
import { jobNotLeasedResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION, seqOfPosition, seqPosition } from "../http/pagination";
import { defineRoute } from "../http/route";
import { appendJobLogsBody, appendJobLogsResponse, jobLogLine, listJobLogsQuery } from "./job-logs.schemas";
import { appendLogsAsWorker, listLogs } from "./job-logs.service";
import { jobIdParams } from "./jobs.schemas";

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
    example: { lines: [{ message: "read 1200 rows", level: "info" }, { message: "row 17: missing VAT number", level: "warn", ts: "2026-11-26T10:00:01.250Z" }], attempt: 1 },
    responses: {
      200: { description: "What was stored", schema: appendJobLogsResponse },
      404: { description: "Unknown job, or a job of another automation" },
      409: {
        description: "The job is not running under this worker's current lease (or not in the attempt named); nothing was stored. `status` is the job's status now",
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
    handler: async ({ params, query, after, ctx }) => {
      const page = await listLogs(ctx.db, ctx.database.pool, params.job_id, query, seqOfPosition(after));
      return { status: 200, body: page.items, next: page.nextSeq === undefined ? undefined : seqPosition(page.nextSeq) };
    },
  }),
];
