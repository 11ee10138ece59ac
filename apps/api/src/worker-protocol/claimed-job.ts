/**
 * A job as the endpoints that hand one out show it: its record plus
 * - the W3C trace context of this attempt's `job.run <slug>` span (CONTRACT §6.20) — the creating
 *   request's trace, the span id derived from the job and attempt — for the worker to run the job
 *   in. Null while tracing is off in the API, or for a job created without a trace. The stored
 *   context comes with the claimed job (a tracing API's claim statement reads it: @hub/db
 *   jobs/claim.ts); with tracing off this adds nothing to the claim: no read, no hashing;
 * - its `dependencies` with their outcomes (CONTRACT §6.16), in `depends_on` order, their results
 *   at most DEPENDENCY_RESULTS_MAX_BYTES in all. One read for every handed-out job that has
 *   dependencies; none when no job has any.
 */
import { type Job, jobs } from "@hub/db";
import { activeTracing, runTraceContext } from "@hub/tracing";
import type { AppContext } from "../context";
import type { ClaimedJobRecord, JobRecord } from "../jobs/jobs.schemas";
import { toJobRecord } from "../jobs/jobs.service";
import { DEPENDENCY_RESULTS_MAX_BYTES, type JobDependencyRecord } from "../jobs/dependencies.schemas";

/** A dependency as the worker reads it. */
export function toDependencyRecord(dependency: jobs.JobDependency): JobDependencyRecord {
  return {
    id: dependency.id,
    automation_id: dependency.automationId,
    status: dependency.status as JobDependencyRecord["status"],
    result: dependency.result,
    error: dependency.error,
    ...(dependency.resultOmitted ? { result_omitted: true as const } : {}),
  };
}

/** The records of jobs just handed out (as their claim returned them), with their trace contexts and dependencies. */
export async function handedOutRecords(ctx: AppContext, handedOut: readonly Job[]): Promise<ClaimedJobRecord[]> {
  const records = handedOut.map(toJobRecord);
  const dependencies = await jobs.dependenciesOf(
    ctx.database.pool,
    records.map((record) => ({ id: record.id, dependsOn: record.depends_on })),
    DEPENDENCY_RESULTS_MAX_BYTES,
  );
  return records.map((record, index) => ({
    ...record,
    ...runTraceContextOf(handedOut[index]!, record),
    dependencies: (dependencies.get(record.id) ?? []).map(toDependencyRecord),
  }));
}

/** This attempt's trace context, from the job's stored one (only while tracing is on). */
function runTraceContextOf(job: Job, record: JobRecord): Pick<ClaimedJobRecord, "traceparent" | "tracestate"> {
  const run =
    activeTracing() && job.traceparent ? runTraceContext({ traceparent: job.traceparent, tracestate: job.tracestate }, record.id, record.attempts) : undefined;
  return { traceparent: run?.traceparent ?? null, tracestate: run?.tracestate ?? null };
}
