/**
 * A job as the endpoints that hand one out show it: its record plus
 * - the W3C trace context of this attempt's `job.run <slug>` span (CONTRACT §6.20) — the creating
 *   request's trace, the span id derived from the job and attempt — for the worker to run the job
 *   in. Null while tracing is off in the API, or for a job created without a trace. With tracing
 *   off this adds nothing to the claim: no read, no hashing;
 * - its `dependencies` with their outcomes (CONTRACT §6.16), in `depends_on` order, their results
 *   at most DEPENDENCY_RESULTS_MAX_BYTES in all. One read for every handed-out job that has
 *   dependencies; none when no job has any.
 */
import { jobs } from "@hub/db";
import { activeTracing, runTraceContext } from "@hub/tracing";
import type { AppContext } from "../context";
import type { ClaimedJobRecord, JobRecord } from "../jobs/jobs.schemas";
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

/** The records of jobs just handed out, with their trace contexts and dependencies. */
export async function handedOutRecords(ctx: AppContext, records: JobRecord[]): Promise<ClaimedJobRecord[]> {
  const [traced, dependencies] = await Promise.all([
    withRunTraceContexts(ctx, records),
    jobs.dependenciesOf(
      ctx.database.pool,
      records.map((record) => ({ id: record.id, dependsOn: record.depends_on })),
      DEPENDENCY_RESULTS_MAX_BYTES,
    ),
  ]);
  return traced.map((record) => ({ ...record, dependencies: (dependencies.get(record.id) ?? []).map(toDependencyRecord) }));
}

/** The records of jobs just claimed, with their trace contexts (one read by primary key, only while tracing is on). */
async function withRunTraceContexts(ctx: AppContext, records: JobRecord[]): Promise<Array<Omit<ClaimedJobRecord, "dependencies">>> {
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
