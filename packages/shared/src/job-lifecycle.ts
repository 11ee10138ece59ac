/**
 * The life of a job (CONTRACT §3 "Job"), written once: its statuses, the moves between them, and
 * the groups of statuses that actions select. SQL that lists statuses, the drizzle schema and the
 * request schemas all read them from here.
 */

export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Every status a job may move to from each status:
 * - `queued` → `running` (a claim), `cancelled` (a cancel, or its automation deactivated);
 * - `running` → `completed`, `failed`, `cancelled`, or `queued` again (its lease lapsed, it timed
 *   out, it failed retryably or its worker was unregistered, while attempts remain).
 * A finished job never moves again; a retry (CONTRACT §6.4) creates a new job.
 */
export const JOB_TRANSITIONS = {
  queued: ["running", "cancelled"],
  running: ["completed", "failed", "cancelled", "queued"],
  completed: [],
  failed: [],
  cancelled: [],
} as const satisfies Record<JobStatus, readonly JobStatus[]>;

/** True when a job in status `from` may move to `to`. */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return (JOB_TRANSITIONS[from] as readonly JobStatus[]).includes(to);
}

/** Statuses a job never leaves: it has its outcome. */
export const FINISHED_JOB_STATUSES = JOB_STATUSES.filter((status) => JOB_TRANSITIONS[status].length === 0);

/** Statuses a cancel applies to (POST /jobs/{id}/cancel, bulk cancel): `queued`, `running`. */
export const CANCELLABLE_JOB_STATUSES = ["queued", "running"] as const satisfies readonly JobStatus[];

/** Statuses a retry applies to (POST /jobs/{id}/retry, bulk retry): finished without a result. */
export const RETRYABLE_JOB_STATUSES = ["failed", "cancelled"] as const satisfies readonly JobStatus[];

/** True for a job a retry applies to ({@link RETRYABLE_JOB_STATUSES}). */
export function isRetryable(status: JobStatus): boolean {
  return (RETRYABLE_JOB_STATUSES as readonly JobStatus[]).includes(status);
}

export function isJobStatus(value: string): value is JobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value);
}

/** Why a job went back to `queued` (`job.requeued` `reason`). */
export const REQUEUE_REASONS = ["lease_expired", "retryable_failure", "timeout", "worker_unregistered", "worker_key_rotated"] as const;
export type RequeueReason = (typeof REQUEUE_REASONS)[number];

/** Why a job was cancelled (`job.cancelled` `reason`). */
export const CANCEL_REASONS = ["cancelled_by_user", "automation_deactivated", "rejected", "approval_expired"] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/**
 * Where a job's approval stands (CONTRACT §6.17): `pending` until it is decided, then once
 * `approved`, `rejected` (POST /jobs/{id}/reject), `expired` (its timeout) or `withdrawn` (the job
 * cancelled in any other way while pending).
 */
export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired", "withdrawn"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export function isApprovalStatus(value: string): value is ApprovalStatus {
  return (APPROVAL_STATUSES as readonly string[]).includes(value);
}
