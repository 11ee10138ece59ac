/**
 * Limits and windows of the hub's interface (CONTRACT), each written once: request schemas,
 * database constraints and statements, environment defaults and the OpenAPI texts read them here.
 * Limits that belong to one module alone (the claim's long-poll, batch sizes of worker calls,
 * the request body limit) stay named where they are used.
 */

/** How long an Idempotency-Key remembers the job(s) its first request created, per user (§3 "Job"). */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

/** Most items one list page holds (§6.2). */
export const LIST_MAX_LIMIT = 1000;
/** Items of a list page when the client names no `limit` (§6.2). */
export const LIST_DEFAULT_LIMIT = 100;
/** Items of a GET /events page when the client names no `limit` (§4). */
export const EVENTS_DEFAULT_LIMIT = 200;

/**
 * Bounds and defaults of an automation's settings (§3 "Automation", §6.4). The database's check
 * constraints and column defaults are built from the same numbers.
 */
export const AUTOMATION_LIMITS = {
  maxConcurrentJobs: { min: 1, max: 1000, default: 1 },
  maxAttempts: { min: 1, max: 100 },
  retryBackoffSeconds: { min: 0, max: 3600, default: 10 },
  timeoutSeconds: { min: 1, max: 86_400 },
  /** Jobs of one `concurrency_key` value running at once (§6.13). */
  maxConcurrentPerKey: { min: 1, max: 1000 },
  /** `rate_limit.count`: starts allowed per window (§6.13). */
  rateLimitCount: { min: 1, max: 100_000 },
  /** `rate_limit.period_seconds`: the window's length (§6.13). */
  rateLimitPeriodSeconds: { min: 1, max: 86_400 },
  /** `approval_timeout_seconds`: how long an approval request waits before it expires (§6.17). */
  approvalTimeoutSeconds: { min: 60, max: 2_592_000 },
} as const;

/** Most users an automation names in `approver_ids` (§6.17). */
export const APPROVERS_MAX = 50;
/** Longest comment of an approval's decision (§6.17). */
export const APPROVAL_COMMENT_MAX = 1000;

/** Defaults of the job lease and retries and of the worker's liveness (§3, §5). */
export const JOB_DEFAULTS = {
  /** HUB_JOB_LEASE_SECONDS: what a claim or heartbeat leases a job for. */
  leaseSeconds: 60,
  /** HUB_JOB_MAX_ATTEMPTS: attempts where an automation sets no `max_attempts`. */
  maxAttempts: 3,
  /** HUB_WORKER_TTL_SECONDS: a worker silent this long is `stopped`. */
  workerTtlSeconds: 30,
} as const;
