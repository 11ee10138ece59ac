/**
 * Job logs (CONTRACT §6.12): a worker's lines appended under its lease, read back by seq. The
 * stream is in ./job-log-stream.ts.
 */
import { jobLogs, jobs, type Executor, type Reach } from "@hub/db";
import type { AppContext } from "../context";
import type { AuthenticatedWorker } from "../http/auth";
import { NotFoundError } from "../http/http-errors";
import type { AppendJobLogsBody, AppendJobLogsResponse, JobLogLineRecord, ListJobLogsQuery } from "./job-logs.schemas";
import { refused } from "../worker-protocol/worker-protocol.service";

/** A stored line as the API shows it. */
export function toJobLogLineRecord(line: jobLogs.Line): JobLogLineRecord {
  return { seq: line.seq, ts: line.ts.toISOString(), level: line.level, message: line.message, attempt: line.attempt };
}

/**
 * POST /jobs/{job_id}/logs: stores the lines in order up to the job's HUB_JOB_LOG_MAX_BYTES (one
 * statement, under the job row's lock); 404/409 as every worker call, storing nothing.
 */
export async function appendLogsAsWorker(ctx: AppContext, worker: AuthenticatedWorker, jobId: string, body: AppendJobLogsBody): Promise<AppendJobLogsResponse> {
  const outcome = await jobLogs.append(
    ctx.database.pool,
    jobId,
    { id: worker.id, automationId: worker.automationId, attempt: body.attempt },
    body.lines.map((line) => ({ message: line.message, level: line.level, ts: line.ts })),
    ctx.env.HUB_JOB_LOG_MAX_BYTES,
  );
  if (!outcome.ok) throw await refused(ctx, "logs", jobId, outcome.refusal);
  const metrics = ctx.metrics.jobs;
  metrics.logLines.inc(outcome.accepted);
  metrics.logBytes.inc(outcome.acceptedBytes);
  if (outcome.accepted < body.lines.length) metrics.logLinesDropped.inc(body.lines.length - outcome.accepted);
  if (outcome.accepted > 0 || outcome.markerStored) ctx.jobLogs.announce(jobId);
  return { accepted: outcome.accepted, truncated: outcome.truncated };
}

/** GET /jobs/{job_id}/logs: a page of the job's lines by seq, after `afterSeq`. */
export async function listLogs(
  db: Executor,
  reach: Reach,
  jobId: string,
  query: ListJobLogsQuery,
  afterSeq: number | undefined,
): Promise<{ items: JobLogLineRecord[]; nextSeq: number | undefined }> {
  if (!(await jobs.readLogState(db, reach, jobId))) throw new NotFoundError("Job not found");
  // One more than the page: whether a next page exists.
  const lines = await jobLogs.list(db, jobId, { afterSeq, attempt: query.attempt, minLevel: query.level, limit: query.limit + 1 });
  const items = lines.slice(0, query.limit).map(toJobLogLineRecord);
  return { items, nextSeq: lines.length > query.limit ? items.at(-1)?.seq : undefined };
}
