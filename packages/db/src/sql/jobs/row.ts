/**
 * What the hand-written job statements share: the connection they run on and the mapping of a job
 * row, as PostgreSQL returns it, to the drizzle `Job` shape.
 */
import type { Job } from "../../schema";

/** Timestamps arrive as Date through node-postgres, as text through drizzle's raw `execute`. */
function toDate(value: unknown): Date | null {
  if (value == null) return null;
  return value instanceof Date ? value : new Date(value as string);
}

/** A job row (snake_case, from raw SQL) → the drizzle `Job` shape. */
export function fromRow(row: Record<string, unknown>): Job {
  return {
    id: row.id as string,
    automationId: row.automation_id as string,
    status: row.status as Job["status"],
    context: row.context as Job["context"],
    result: row.result as Job["result"],
    error: row.error as string | null,
    attempts: row.attempts as number,
    createdBy: row.created_by as string | null,
    workerId: row.worker_id as string | null,
    createdAt: toDate(row.created_at)!,
    startedAt: toDate(row.started_at),
    finishedAt: toDate(row.finished_at),
    leaseExpiresAt: toDate(row.lease_expires_at),
    priority: row.priority as number,
    availableAt: toDate(row.available_at)!,
    seq: Number(row.seq),
    retryOf: (row.retry_of as string | null | undefined) ?? null,
    runAt: toDate(row.run_at),
    scheduleId: (row.schedule_id as string | null | undefined) ?? null,
    fireTime: toDate(row.fire_time),
    progress: (row.progress as Job["progress"] | undefined) ?? null,
    logSeq: Number(row.log_seq ?? 0),
    logBytes: Number(row.log_bytes ?? 0),
    logTruncated: row.log_truncated === true,
    // Absent from the claim functions' rows, which name their columns: a tracing process's claim adds them (jobs/claim.ts).
    traceparent: (row.traceparent as string | null | undefined) ?? null,
    tracestate: (row.tracestate as string | null | undefined) ?? null,
    approvalStatus: (row.approval_status as Job["approvalStatus"] | undefined) ?? null,
    approvalExpiresAt: toDate(row.approval_expires_at),
    approvalDecidedBy: (row.approval_decided_by as string | null | undefined) ?? null,
    approvalDecidedAt: toDate(row.approval_decided_at),
    approvalComment: (row.approval_comment as string | null | undefined) ?? null,
    // Absent from the claim functions' rows: a claimed job waits for nothing.
    dependsOn: (row.depends_on as string[] | null | undefined) ?? null,
    onDependencyFailure: (row.on_dependency_failure as Job["onDependencyFailure"] | undefined) ?? null,
    pendingDependencies: (row.pending_dependencies as number | null | undefined) ?? null,
    hasDependents: (row.has_dependents as boolean | null | undefined) ?? null,
  };
}

/**
 * The lease fence of a worker call, as SQL over a `jobs` row aliased `j`: $worker, $attempt (nullable).
 * Every statement using it names its jobs by id, so the primary key must find them. Its status and
 * lease checks are written `(…) is true`, which PostgreSQL neither uses as an index condition nor
 * reads as implying a partial index's predicate: written plainly they matched jobs_running_lease_idx
 * (`where status = 'running'`, keyed on `lease_expires_at`), which a table analysed while nothing
 * ran shows as nearly empty, and cached generic plans would walk that index — every running job of
 * every automation, and the dead entries a burst leaves — instead of probing the key
 * (statement-plans.test.ts checks no fence uses it).
 */
export const leasedBy = (workerParam: string, attemptExpr: string) =>
  `((j.status = 'running') is true and j.worker_id = ${workerParam} and (j.lease_expires_at > now()) is true and (${attemptExpr} is null or j.attempts = ${attemptExpr}))`;

/**
 * A worker call's test that the `jobs` row aliased `j` is its automation's, written `(…) is true`
 * for the same reason as {@link leasedBy}'s checks: the statements name their jobs by id, and only
 * the primary key may find them. Written plainly, a custom plan (a prepared statement's first five
 * executions, and every one where PostgreSQL finds them cheaper than its generic plan) walked an
 * index leading with `automation_id` whenever the statistics said the automation had few jobs — as
 * they do for a burst's automation until autovacuum analyses the table again — reading every entry
 * of the automation, dead versions included, on each call: 8 ms and 1,700 buffers for a batch of 8
 * in a 40,000-job burst, growing with it (jobs/batch-fence-plans.test.ts).
 */
export const ofAutomation = (automationParam: string) => `(j.automation_id = ${automationParam}) is true`;
