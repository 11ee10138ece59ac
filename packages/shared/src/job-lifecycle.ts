/**
 * The life of a job (CONTRACT §3 "Job"), written once: its statuses, the moves between them, and
 * the groups of statuses that actions select. SQL that lists statuses, the drizzle schema and the
 * request schemas all read them from here.
 */

export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * `held`: a storage status only — a queued job that may not be handed out yet, because a
 * dependency is unfinished (CONTRACT §6.16) or an approval is pending (§6.17). Every answer of
 * the API shows it as `queued` ({@link shownJobStatus}); every claim path, dispatch scan and queue
 * count reads `status = 'queued'` alone, so a held job is never handed out, offered or counted
 * there, at no cost to other jobs. It leaves `held` for `queued` when its last hold goes (the
 * release, packages/db/src/sql/jobs/hold.ts) or for `cancelled`.
 */
export const HELD_JOB_STATUS = "held" as const;

/** What the `status` column may hold: the statuses clients see, and `held`. */
export const STORED_JOB_STATUSES = [...JOB_STATUSES, HELD_JOB_STATUS] as const;
export type StoredJobStatus = (typeof STORED_JOB_STATUSES)[number];

/** The status the API shows for a stored one: `held` reads `queued`. */
export function shownJobStatus(status: StoredJobStatus): JobStatus {
  return status === HELD_JOB_STATUS ? "queued" : status;
}

/** The stored statuses a filter on shown statuses matches: `queued` matches `held` too. */
export function storedJobStatusesOf(statuses: readonly JobStatus[]): StoredJobStatus[] {
  return statuses.flatMap((status): StoredJobStatus[] => (status === "queued" ? ["queued", HELD_JOB_STATUS] : [status]));
}

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

/** Stored statuses a cancel applies to: {@link CANCELLABLE_JOB_STATUSES} and `held` (a queued job, as shown). */
export const CANCELLABLE_STORED_JOB_STATUSES = [...CANCELLABLE_JOB_STATUSES, HELD_JOB_STATUS] as const satisfies readonly StoredJobStatus[];

/** Statuses a retry applies to (POST /jobs/{id}/retry, bulk retry): finished without a result. */
export const RETRYABLE_JOB_STATUSES = ["failed", "cancelled"] as const satisfies readonly JobStatus[];

/** True for a job a retry applies to ({@link RETRYABLE_JOB_STATUSES}). */
export function isRetryable(status: JobStatus): boolean {
  return (RETRYABLE_JOB_STATUSES as readonly JobStatus[]).includes(status);
}

export function isJobStatus(value: string): value is JobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value);
}

/** What a job does when a dependency ends `failed` or `cancelled` (CONTRACT §6.16); `cancel` is the default. */
export const DEPENDENCY_FAILURE_POLICIES = ["cancel", "run"] as const;
export type DependencyFailurePolicy = (typeof DEPENDENCY_FAILURE_POLICIES)[number];

/** Why a job went back to `queued` (`job.requeued` `reason`). */
export const REQUEUE_REASONS = ["lease_expired", "retryable_failure", "timeout", "worker_unregistered", "worker_key_rotated"] as const;
export type RequeueReason = (typeof REQUEUE_REASONS)[number];

/**
 * Why a job was cancelled (`job.cancelled` `reason`); `dependency_failed` carries `dependency_id` (CONTRACT §6.16);
 * `rejected` and `approval_expired` end a job whose approval was refused or ran out (§6.17).
 */
export const CANCEL_REASONS = ["cancelled_by_user", "automation_deactivated", "dependency_failed", "rejected", "approval_expired"] as const;
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
