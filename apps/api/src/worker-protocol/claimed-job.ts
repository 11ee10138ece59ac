/**
 * A job as the endpoints that hand one out show it (CONTRACT §6.20): its record plus the W3C trace
 * context of this attempt's `job.run <slug>` span — the creating request's trace, the span id
 * derived from the job and attempt — for the worker to run the job in. Null while tracing is off
 * in the API, or for a job created without a trace. With tracing off this adds nothing to the
 * claim: no read, no hashing.
 */
import { jobs } from "@hub/db";
import { activeTracing, runTraceContext } from "@hub/tracing";
import type { AppContext } from "../context";
import type { ClaimedJobRecord, JobRecord } from "../jobs/jobs.schemas";

/** The records of jobs just claimed, with their trace contexts (one read by primary key, only while tracing is on). */
export async function withRunTraceContexts(ctx: AppContext, records: JobRecord[]): Promise<ClaimedJobRecord[]> {
  if (!activeTracing() || records.length === 0) return records.map((record) => ({ ...record, traceparent: null, tracestate: null }));
  const stored = await jobs.readTraceContexts(
    ctx.database.pool,
    records.map((record) => record.id),
  );
  return records.map((record) => {
    const trace = stored.get(record.id);
    const run = trace && runTraceContext(trace, record.id, record.attempts);
    return { ...record, traceparent: run?.traceparent ?? null, tracestate: run?.tracestate ?? null };
  });
}
