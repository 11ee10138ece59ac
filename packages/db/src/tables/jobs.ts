/**
 * Jobs and what hangs off them: log lines, context values, idempotency keys and the claim's state.
 * The README of packages/db says what these declarations are for.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { APPROVAL_STATUSES, DEPENDENCY_FAILURE_POLICIES, FINISHED_JOB_STATUSES, JOB_LOG_LEVEL_CODES, STORED_JOB_STATUSES, type JobProgress } from "@hub/shared";
import { sqlLiteralList } from "../sql-literals";
import { automations, schedules, workers } from "./automations";
import { users } from "./identity";
import { createdAt, tz } from "./columns";

/**
 * Jobs. One column of the table is not declared here: `key_value`, the job's value of its automation's
 * concurrency_key, written in plain SQL by the statements that insert jobs (or by the key trigger)
 * and read only by the claim (packages/db/functions/hub_claim_jobs_v4.sql). Left out, it stays out
 * of `Job`, the row every statement answers, and of every `select()` of the table.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    automationId: uuid("automation_id")
      .notNull()
      .references(() => automations.id),
    /** As stored: `held` is a queued job not yet to be handed out (@hub/shared HELD_JOB_STATUS); the API shows it `queued`. */
    status: text("status", { enum: STORED_JOB_STATUSES }).notNull().default("queued"),
    context: jsonb("context").$type<Record<string, unknown>>().notNull().default({}),
    result: jsonb("result").$type<Record<string, unknown>>(),
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
    createdBy: uuid("created_by").references(() => users.id),
    /** The worker holding the current lease while `running`. */
    workerId: uuid("worker_id").references(() => workers.id),
    createdAt: createdAt(),
    startedAt: tz("started_at"),
    finishedAt: tz("finished_at"),
    leaseExpiresAt: tz("lease_expires_at"),
    /** Claim order (CONTRACT §6.8): higher first. */
    priority: integer("priority").notNull().default(0),
    /** When the job may be claimed: the later of `run_at` and creation, moved later only by back-off. */
    availableAt: tz("available_at").notNull().defaultNow(),
    /** Creation order, so claim-order ties never fall to random ids (items of a batch in input order). */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    /**
     * The failed or cancelled job this one retries (POST /jobs/{id}/retry, CONTRACT §6.4). No
     * foreign key: retention removes the old job in its time while the retry stays, so the id may
     * name a job that is gone (reading it answers 404).
     */
    retryOf: uuid("retry_of"),
    /** When the creator (or a reschedule) asked the job to run, as sent; null = as soon as possible (CONTRACT §6.8). */
    runAt: tz("run_at"),
    /** The schedule whose fire created the job (CONTRACT §6.9); null for jobs made by a request. */
    scheduleId: uuid("schedule_id"),
    /** The fire time of that schedule this job was made for (CONTRACT §6.9). */
    fireTime: tz("fire_time"),
    /** The worker's last reported progress (CONTRACT §6.12); null until reported and again once re-queued. */
    progress: jsonb("progress").$type<JobProgress>(),
    /** The `seq` of the job's last stored log line (0: none): the next line's seq follows it, under the row lock. */
    logSeq: bigint("log_seq", { mode: "number" }).notNull().default(0),
    /** UTF-8 bytes of the job's stored log messages, against HUB_JOB_LOG_MAX_BYTES. */
    logBytes: bigint("log_bytes", { mode: "number" }).notNull().default(0),
    /** A log line was dropped at the limit (and the one marker line stored). */
    logTruncated: boolean("log_truncated").notNull().default(false),
    /** W3C trace context of the request or schedule fire that created the job (CONTRACT §6.20); null when tracing was off. */
    traceparent: text("traceparent"),
    tracestate: text("tracestate"),
    /**
     * The job's approval (CONTRACT §6.17); every approval column is null for a job that needs none.
     * Requested at the job's `created_at`. `approval_decided_by` names a user without a foreign key:
     * its check would be a trigger call on every job insert, and users are never deleted.
     */
    approvalStatus: text("approval_status", { enum: APPROVAL_STATUSES }),
    approvalExpiresAt: tz("approval_expires_at"),
    approvalDecidedBy: uuid("approval_decided_by"),
    approvalDecidedAt: tz("approval_decided_at"),
    approvalComment: text("approval_comment"),
    /**
     * The jobs this one waits for (CONTRACT §6.16), in the order given; null for a job without any,
     * so a plain job stores nothing and has no entry in jobs_depends_on_idx.
     */
    dependsOn: uuid("depends_on").array(),
    /** What a failed or cancelled dependency does (`cancel` | `run`); null with no dependencies (reads `cancel`). */
    onDependencyFailure: text("on_dependency_failure", { enum: DEPENDENCY_FAILURE_POLICIES }),
    /** How many of `depends_on` are not finished yet; null with no dependencies (reads 0). Written under the row lock. */
    pendingDependencies: integer("pending_dependencies"),
    /**
     * True once a job lists this one in `depends_on`: the WHEN clause of the trigger that releases
     * or cancels dependents (packages/db/functions/hub_finish_dependency_v1.sql) tests it, so
     * finishing a job that no job waits for calls no function. Null otherwise.
     */
    hasDependents: boolean("has_dependents"),
  },
  (t) => [
    // Concurrency: the running jobs of one automation (counted by every claim); job lists by automation.
    index("jobs_automation_status_created_idx").on(t.automationId, t.status, t.createdAt, t.id),
    // Claim: the queued jobs of one automation in claim order (CONTRACT §6.8).
    index("jobs_claim_idx")
      .on(t.automationId, t.priority.desc(), t.availableAt, t.seq)
      .where(sql`${t.status} = 'queued'`),
    // Lease sweeper: running jobs by lease expiry.
    // GET /automations/{id}/stats: jobs finished in the last hour, by outcome.
    index("jobs_automation_finished_idx")
      .on(t.automationId, t.status, t.finishedAt)
      .where(sql`${t.finishedAt} is not null`),
    index("jobs_running_lease_idx")
      .on(t.leaseExpiresAt)
      .where(sql`${t.status} = 'running'`),
    // Reconciliation and the dispatcher's horizon: the queued jobs that are due, or come due soon, by
    // when; a job set for next week is not read until it nears (CONTRACT §6.8).
    index("jobs_queued_available_idx")
      .on(t.availableAt, t.id)
      .where(sql`${t.status} = 'queued'`),
    // GET /jobs: newest first, optionally by status.
    // Ascending, read backward for "newest first": an index built DESC NULLS LAST never matches
    // ORDER BY … DESC (which is NULLS FIRST), so the earlier DESC ones served no GET /jobs.
    index("jobs_created_idx").on(t.createdAt, t.id),
    index("jobs_status_created_idx").on(t.status, t.createdAt, t.id),
    index("jobs_automation_created_idx").on(t.automationId, t.createdAt, t.id),
    // Retention: finished jobs, oldest outcome first, so a sweep reads only what is due to go.
    index("jobs_finished_idx")
      .on(t.finishedAt)
      .where(sql`${t.status} in (${sql.raw(sqlLiteralList(FINISHED_JOB_STATUSES))})`),
    check("jobs_status_check", sql`${t.status} in (${sql.raw(sqlLiteralList(STORED_JOB_STATUSES))})`),
    check("jobs_on_dependency_failure_check", sql`${t.onDependencyFailure} in (${sql.raw(sqlLiteralList(DEPENDENCY_FAILURE_POLICIES))})`),
    // A job's dependents (CONTRACT §6.16): the release trigger, GET /jobs?depends_on=, retention. Only jobs with dependencies have entries.
    index("jobs_depends_on_idx")
      .using("gin", t.dependsOn)
      .where(sql`${t.dependsOn} is not null`),
    foreignKey({ name: "jobs_schedule_id_schedules_id_fk", columns: [t.scheduleId], foreignColumns: [schedules.id] }),
    // Exactly one job per fire, however many dispatchers fire at once.
    uniqueIndex("jobs_schedule_fire_key")
      .on(t.scheduleId, t.fireTime)
      .where(sql`${t.scheduleId} is not null`),
    // The claim's walk of one key value's queued jobs in claim order (key_value is not a column here: see below).
    index("jobs_key_claim_idx")
      .on(t.automationId, sql`key_value`, t.priority.desc().nullsLast(), t.availableAt, t.seq)
      .where(sql`${t.status} = 'queued' and key_value is not null`),
    check("jobs_approval_status_check", sql`${t.approvalStatus} in (${sql.raw(sqlLiteralList(APPROVAL_STATUSES))})`),
    // GET /approvals: the pending approvals, oldest first; a job without an approval has no entry.
    index("jobs_approval_pending_idx")
      .on(t.createdAt, t.id)
      .where(sql`${t.approvalStatus} = 'pending'`),
    // The dispatchers' expiry of pending approvals (apps/dispatcher/src/tasks/approval-expiry.ts).
    index("jobs_approval_expiry_idx")
      .on(t.approvalExpiresAt)
      .where(sql`${t.approvalStatus} = 'pending' and ${t.approvalExpiresAt} is not null`),
    // The retries of a job: GET /jobs?retry_of= and §6.16's retry with dependents. Partial: only retries have entries.
    index("jobs_retry_of_idx")
      .on(t.retryOf)
      .where(sql`${t.retryOf} is not null`),
    // A schedule's overlap check: its jobs still queued (held ones included) or running.
    index("jobs_schedule_active_idx")
      .on(t.scheduleId)
      .where(sql`${t.scheduleId} is not null and ${t.status} in ('queued','held','running')`),
  ],
);

/**
 * Log lines of jobs (CONTRACT §6.12), never in the outbox. Keyed by job and `seq` (the order of
 * acceptance, assigned from `jobs.log_seq`); deleted with their job (cascade), so retention takes
 * them along.
 */
export const jobLogs = pgTable(
  "job_logs",
  {
    jobId: uuid("job_id")
      .notNull()
      .references(() => jobs.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    /** As the worker sent it (default: the hub's time of acceptance). */
    ts: tz("ts").notNull(),
    /** The job's `attempts` when the line was accepted. */
    attempt: smallint("attempt").notNull(),
    /** pino's number of the level (JOB_LOG_LEVEL_CODES). */
    level: smallint("level").notNull(),
    message: text("message").notNull(),
  },
  (t) => [
    primaryKey({ name: "job_logs_pkey", columns: [t.jobId, t.seq] }),
    check("job_logs_level_check", sql`${t.level} in (${sql.raw(Object.values(JOB_LOG_LEVEL_CODES).join(", "))})`),
  ],
);

/**
 * GET /jobs's context filters (CONTRACT §6.14): one row per top-level string pair of each job's
 * context, keyed by `hub_job_context_pair_hash(name, value)` and ordered as GET /jobs lists, so
 * the newest jobs holding a pair are one index range (sql/jobs/find.ts). Written only by the
 * triggers on jobs (packages/db/functions/hub_*_job_context_values.sql), which follow every insert and delete of jobs.
 */
export const jobContextValues = pgTable(
  "job_context_values",
  {
    pairHash: bigint("pair_hash", { mode: "bigint" }).notNull(),
    createdAt: tz("created_at").notNull(),
    jobId: uuid("job_id").notNull(),
    automationId: uuid("automation_id").notNull(),
  },
  (t) => [index("job_context_values_pair_created_idx").on(t.pairHash, t.createdAt, t.jobId)],
);

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    key: text("key").notNull(),
    /**
     * No foreign key: a binding lives 24 h (IDEMPOTENCY_WINDOW_HOURS), far less than any retention
     * period, so an expired binding may outlive its job; it is never read after its window.
     */
    jobId: uuid("job_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

/**
 * The claim's state per automation (packages/db/functions/hub_claim_jobs_v4.sql, "Where the state
 * lives"): the start counter of fair sharing and the ring of its last rate_limit.count start times.
 * Written only by the claim.
 */
export const automationStartStates = pgTable("automation_start_states", {
  automationId: uuid("automation_id")
    .primaryKey()
    .references(() => automations.id),
  startCount: bigint("start_count", { mode: "number" }).notNull().default(0),
  starts: timestamp("starts", { withTimezone: true })
    .array()
    .notNull()
    .default(sql`'{}'`),
  head: integer("head").notNull().default(1),
});

/**
 * The claim's state per automation and key value (hub_claim_jobs_v4.sql, "Where the state lives"):
 * whether the value waits, its last start by the start counter, its ring and, while it never
 * started, its head in claim order. Written by the claim and the key trigger (hub_job_key_value.sql).
 */
export const jobKeyStates = pgTable(
  "job_key_states",
  {
    automationId: uuid("automation_id")
      .notNull()
      .references(() => automations.id),
    keyValue: jsonb("key_value").notNull(),
    waiting: boolean("waiting").notNull().default(true),
    /** The start counter's value at its last start; null: never started. */
    lastStart: bigint("last_start", { mode: "number" }),
    starts: timestamp("starts", { withTimezone: true })
      .array()
      .notNull()
      .default(sql`'{}'`),
    head: integer("head").notNull().default(1),
    headPriority: integer("head_priority"),
    headAvailableAt: timestamp("head_available_at", { withTimezone: true }),
    headSeq: bigint("head_seq", { mode: "number" }),
  },
  (t) => [
    primaryKey({ name: "job_key_states_pkey", columns: [t.automationId, t.keyValue] }),
    // The claim's walk: the waiting values of an automation, never started (NULL) apart, the others by last start.
    index("job_key_states_waiting_idx")
      .on(t.automationId, t.lastStart)
      .where(sql`${t.waiting}`),
    // The claim's read of the values that never started, in head order (unknown heads first).
    index("job_key_states_never_started_idx")
      .on(t.automationId, t.headPriority.desc().nullsFirst(), t.headAvailableAt.asc().nullsFirst(), t.headSeq.asc().nullsFirst())
      .where(sql`${t.waiting} and ${t.lastStart} is null`),
  ],
);

/**
 * Which running jobs the previous worker key holds while a rotation's overlap lasts (CONTRACT
 * §6.21): a row only for a job claimed or last heartbeated with that key, in that attempt, so the
 * jobs go back to the queue when the key stops working.
 */
export const workerKeyHolds = pgTable(
  "worker_key_holds",
  {
    jobId: uuid("job_id")
      .primaryKey()
      .references(() => jobs.id, { onDelete: "cascade" }),
    workerId: uuid("worker_id")
      .notNull()
      .references(() => workers.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
  },
  (t) => [index("worker_key_holds_worker_idx").on(t.workerId)],
);
