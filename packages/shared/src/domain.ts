/**
 * Domain vocabulary shared by every app: roles and worker statuses (CONTRACT §2–3). Jobs have
 * their own module (job-lifecycle.ts), events theirs (event-catalogue.ts).
 */

export const ROLES = ["admin", "employee"] as const;
export type Role = (typeof ROLES)[number];

export const WORKER_STATUSES = ["stopped", "running"] as const;
export type WorkerStatus = (typeof WORKER_STATUSES)[number];

/** A job's `priority` (CONTRACT §6.8): claims hand out higher priorities first. */
export const JOB_PRIORITY_MIN = -100;
export const JOB_PRIORITY_MAX = 100;
export const JOB_PRIORITY_DEFAULT = 0;
/** Furthest ahead a job's `run_at` may be (CONTRACT §6.8). */
export const RUN_AT_MAX_DAYS_AHEAD = 365;

/** What a schedule does at a fire time while a job of it is still queued or running (CONTRACT §6.9). */
export const SCHEDULE_OVERLAP_POLICIES = ["skip", "allow"] as const;
export type ScheduleOverlapPolicy = (typeof SCHEDULE_OVERLAP_POLICIES)[number];

/** Why a schedule's fire created no job (`schedule.skipped`). */
export type ScheduleSkipReason = "overlap" | "invalid_context";
