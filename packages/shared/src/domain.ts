/** Domain vocabulary shared by every app: roles, statuses and the event catalogue (CONTRACT §3–4). */

export const ROLES = ["admin", "employee"] as const;
export type Role = (typeof ROLES)[number];

export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const WORKER_STATUSES = ["stopped", "running"] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

export const EVENT_TYPES = [
  "sector.created",
  "automation.created",
  "automation.updated",
  "automation.deactivated",
  "automation.development_mode_entered",
  "automation.development_mode_exited",
  "worker.registered",
  "worker.unregistered",
  "worker.api_key_rotated",
  "worker.status_changed",
  "job.created",
  "job.started",
  "job.completed",
  "job.failed",
  "job.requeued",
  "job.cancelled",
  "user.created",
  "user.deactivated",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Why a job went back to `queued`. */
export type RequeueReason = "lease_expired" | "retryable_failure" | "timeout" | "worker_unregistered";
/** Why a job was cancelled. */
export type CancelReason = "cancelled_by_user" | "automation_deactivated";
