/**
 * The hub's PostgreSQL schema — the source of truth. Migrations in ../drizzle are generated from
 * this file by drizzle-kit.
 */
import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
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
import { AUTOMATION_LIMITS, FINISHED_JOB_STATUSES, JOB_LOG_LEVEL_CODES, JOB_STATUSES, ROLES, WORKER_STATUSES, type JobProgress } from "@hub/shared";
import { sqlLiteralList } from "./sql-literals";

/** `column between min and max`, for a check constraint that keeps a setting within its limits. */
const within = (column: AnyPgColumn, { min, max }: { min: number; max: number }) => sql`${column} between ${sql.raw(String(min))} and ${sql.raw(String(max))}`;

const createdAt = () => timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().defaultNow();
const tz = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

export interface AutomationParameter {
  name: string;
  description: string;
}

export const sectors = pgTable(
  "sectors",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull().unique(),
    color: text("color").notNull(),
    createdAt: createdAt(),
  },
  // GET /sectors: oldest first, keyset-paged.
  (t) => [index("sectors_created_idx").on(t.createdAt, t.id)],
);

export const users = pgTable(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Stored lower-case; the login identifier. */
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    deactivatedAt: tz("deactivated_at"),
    /**
     * Login tokens carry it as `gen`; a password change or reset, a role change and a deactivation
     * add 1, refusing every earlier token (CONTRACT §6.11). Reactivation keeps it.
     */
    credentialGeneration: integer("credential_generation").notNull().default(0),
  },
  (t) => [
    uniqueIndex("users_email_key").on(t.email),
    // GET /identity/users?include_inactive=true: every user, oldest first, keyset-paged.
    index("users_created_idx").on(t.createdAt, t.id),
    // GET /identity/users: active users, oldest first, keyset-paged.
    index("users_active_created_idx").on(t.createdAt, t.id).where(sql`${t.isActive}`),
    check("users_role_check", sql`${t.role} in (${sql.raw(sqlLiteralList(ROLES))})`),
  ],
);

export const automations = pgTable(
  "automations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    sectorId: uuid("sector_id")
      .notNull()
      .references(() => sectors.id),
    description: text("description").notNull().default(""),
    parameters: jsonb("parameters").$type<AutomationParameter[]>().notNull().default([]),
    maxConcurrentJobs: integer("max_concurrent_jobs").notNull().default(AUTOMATION_LIMITS.maxConcurrentJobs.default),
    /**
     * Attempts a job gets (CONTRACT §6.4). `null` = the hub's default, HUB_JOB_MAX_ATTEMPTS, read
     * by whoever decides (so changing the variable changes every automation that never set it).
     */
    maxAttempts: integer("max_attempts"),
    /** Back-off base: a failed attempt n waits this × 2^(n−1) seconds (±20 %, at most 1 h). */
    retryBackoffSeconds: integer("retry_backoff_seconds").notNull().default(AUTOMATION_LIMITS.retryBackoffSeconds.default),
    /** A job running longer than this fails with `timeout` (retryable); `null` = no limit. */
    timeoutSeconds: integer("timeout_seconds"),
    /**
     * Limits per key (CONTRACT §6.13): the parameter whose value in a job's context groups jobs, and
     * how many of one value run at once; both null or both set.
     */
    concurrencyKey: text("concurrency_key"),
    maxConcurrentPerKey: integer("max_concurrent_per_key"),
    /** Rate limit (§6.13): at most `count` starts per `period_seconds`, per key value with `per_key`; null = none. */
    rateLimitCount: integer("rate_limit_count"),
    rateLimitPeriodSeconds: integer("rate_limit_period_seconds"),
    rateLimitPerKey: boolean("rate_limit_per_key").notNull().default(false),
    isActive: boolean("is_active").notNull().default(true),
    isDevelopment: boolean("is_development").notNull().default(false),
    createdAt: createdAt(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("automations_slug_key").on(t.slug),
    index("automations_sector_idx").on(t.sectorId),
    // GET /automations: oldest first, keyset-paged.
    index("automations_created_idx").on(t.createdAt, t.id),
    check("automations_max_concurrent_jobs_check", within(t.maxConcurrentJobs, AUTOMATION_LIMITS.maxConcurrentJobs)),
    check("automations_max_attempts_check", within(t.maxAttempts, AUTOMATION_LIMITS.maxAttempts)),
    check("automations_retry_backoff_seconds_check", within(t.retryBackoffSeconds, AUTOMATION_LIMITS.retryBackoffSeconds)),
    check("automations_timeout_seconds_check", within(t.timeoutSeconds, AUTOMATION_LIMITS.timeoutSeconds)),
    check("automations_max_concurrent_per_key_check", within(t.maxConcurrentPerKey, AUTOMATION_LIMITS.maxConcurrentPerKey)),
    check("automations_rate_limit_count_check", within(t.rateLimitCount, AUTOMATION_LIMITS.rateLimitCount)),
    check("automations_rate_limit_period_seconds_check", within(t.rateLimitPeriodSeconds, AUTOMATION_LIMITS.rateLimitPeriodSeconds)),
  ],
);

export const workers = pgTable(
  "workers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    automationId: uuid("automation_id")
      .notNull()
      .references(() => automations.id),
    cloudInstanceId: text("cloud_instance_id").notNull(),
    /** SHA-256 (hex) of the api key; the key itself is never stored. */
    apiKeyHash: text("api_key_hash").notNull(),
    status: text("status", { enum: WORKER_STATUSES }).notNull().default("stopped"),
    lastSeenAt: tz("last_seen_at"),
    createdAt: createdAt(),
    /** Set when the worker is unregistered; the row is kept for the jobs and events that name it. */
    unregisteredAt: tz("unregistered_at"),
    /** The key before the last rotation with an overlap (SHA-256, hex): accepted until `previousApiKeyExpiresAt` (CONTRACT §6.12). */
    previousApiKeyHash: text("previous_api_key_hash"),
    previousApiKeyExpiresAt: tz("previous_api_key_expires_at"),
  },
  (t) => [
    // One registered worker per automation.
    uniqueIndex("workers_one_per_automation").on(t.automationId).where(sql`${t.unregisteredAt} is null`),
    uniqueIndex("workers_api_key_hash_key").on(t.apiKeyHash),
    uniqueIndex("workers_previous_api_key_hash_key").on(t.previousApiKeyHash).where(sql`${t.previousApiKeyHash} is not null`),
    index("workers_running_idx").on(t.lastSeenAt).where(sql`${t.status} = 'running' and ${t.unregisteredAt} is null`),
  ],
);

/**
 * Recurring jobs (CONTRACT §6.9). A schedule is never removed: DELETE marks it `deleted_at`, so the
 * jobs it made keep a `schedule_id` that names it.
 */
export const schedules = pgTable(
  "schedules",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    automationId: uuid("automation_id")
      .notNull()
      .references(() => automations.id),
    /** Optional name a deploy script sets the schedule up by; unique per automation among schedules not deleted. */
    key: text("key"),
    /** As sent; checked against the contract's syntax when set. */
    cron: text("cron").notNull(),
    /** As sent: any name Intl.DateTimeFormat accepts. */
    timezone: text("timezone").notNull(),
    context: jsonb("context").$type<Record<string, unknown>>().notNull().default({}),
    priority: integer("priority").notNull().default(0),
    enabled: boolean("enabled").notNull().default(true),
    overlap: text("overlap", { enum: ["skip", "allow"] }).notNull().default("skip"),
    description: text("description").notNull().default(""),
    /** The next fire time; null while disabled or deleted, so "due" is `next_run_at <= now()` alone. */
    nextRunAt: tz("next_run_at"),
    /** The fire time of the last job made. */
    lastRunAt: tz("last_run_at"),
    /**
     * The job of the last fire. No foreign key: retention removes old finished jobs (apps/dispatcher
     * retention), and the schedule keeps naming it; reading that job then answers 404.
     */
    lastJobId: uuid("last_job_id"),
    createdAt: createdAt(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
    deletedAt: tz("deleted_at"),
  },
  (t) => [
    uniqueIndex("schedules_automation_key_key").on(t.automationId, t.key).where(sql`${t.key} is not null and ${t.deletedAt} is null`),
    // GET /schedules and GET /automations/{id}/schedules: oldest first, keyset-paged.
    index("schedules_created_idx").on(t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    index("schedules_automation_created_idx").on(t.automationId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    // The dispatchers' timer: the earliest next fire, and the due schedules in fire order.
    index("schedules_next_run_idx").on(t.nextRunAt).where(sql`${t.nextRunAt} is not null`),
    check("schedules_priority_check", sql`${t.priority} between -100 and 100`),
    check("schedules_overlap_check", sql`${t.overlap} in ('skip','allow')`),
  ],
);

export const jobs = pgTable(
  "jobs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    automationId: uuid("automation_id")
      .notNull()
      .references(() => automations.id),
    status: text("status", { enum: JOB_STATUSES })
      .notNull()
      .default("queued"),
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
  },
  (t) => [
    // Concurrency: the running jobs of one automation (counted by every claim); job lists by automation.
    index("jobs_automation_status_created_idx").on(t.automationId, t.status, t.createdAt, t.id),
    // Claim: the queued jobs of one automation in claim order (CONTRACT §6.8).
    index("jobs_claim_idx").on(t.automationId, t.priority.desc(), t.availableAt, t.seq).where(sql`${t.status} = 'queued'`),
    // Lease sweeper: running jobs by lease expiry.
    // GET /automations/{id}/stats: jobs finished in the last hour, by outcome.
    index("jobs_automation_finished_idx").on(t.automationId, t.status, t.finishedAt).where(sql`${t.finishedAt} is not null`),
    index("jobs_running_lease_idx").on(t.leaseExpiresAt).where(sql`${t.status} = 'running'`),
    // Reconciliation and the dispatcher's horizon: the queued jobs that are due, or come due soon, by
    // when; a job set for next week is not read until it nears (CONTRACT §6.8).
    index("jobs_queued_available_idx").on(t.availableAt, t.id).where(sql`${t.status} = 'queued'`),
    // GET /jobs: newest first, optionally by status.
    // Ascending, read backward for "newest first": an index built DESC NULLS LAST never matches
    // ORDER BY … DESC (which is NULLS FIRST), so the earlier DESC ones served no GET /jobs.
    index("jobs_created_idx").on(t.createdAt, t.id),
    index("jobs_status_created_idx").on(t.status, t.createdAt, t.id),
    index("jobs_automation_created_idx").on(t.automationId, t.createdAt, t.id),
    // Retention: finished jobs, oldest outcome first, so a sweep reads only what is due to go.
    index("jobs_finished_idx").on(t.finishedAt).where(sql`${t.status} in (${sql.raw(sqlLiteralList(FINISHED_JOB_STATUSES))})`),
    check("jobs_status_check", sql`${t.status} in (${sql.raw(sqlLiteralList(JOB_STATUSES))})`),
    foreignKey({ name: "jobs_schedule_id_schedules_id_fk", columns: [t.scheduleId], foreignColumns: [schedules.id] }),
    // Exactly one job per fire, however many dispatchers fire at once.
    uniqueIndex("jobs_schedule_fire_key").on(t.scheduleId, t.fireTime).where(sql`${t.scheduleId} is not null`),
    // A schedule's overlap check: its jobs still queued or running.
    index("jobs_schedule_active_idx").on(t.scheduleId).where(sql`${t.scheduleId} is not null and ${t.status} in ('queued','running')`),
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

export const events = pgTable(
  "events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Insertion order; the relay publishes by it (per-aggregate order follows, see event-relay). */
    position: bigint("position", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    aggregateId: uuid("aggregate_id").notNull(),
    eventType: text("event_type").notNull(),
    actorId: uuid("actor_id"),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    dispatchedAt: tz("dispatched_at"),
  },
  (t) => [
    uniqueIndex("events_position_key").on(t.position),
    // The relay's query: undispatched events in insertion order.
    index("events_undispatched_idx").on(t.position).where(sql`${t.dispatchedAt} is null`),
    // GET /events filters, each ordered by (created_at, id).
    index("events_created_idx").on(t.createdAt, t.id),
    index("events_aggregate_created_idx").on(t.aggregateId, t.createdAt, t.id),
    index("events_type_created_idx").on(t.eventType, t.createdAt, t.id),
  ],
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
 * Users' api keys for programs (CONTRACT §6.10). The key is 256 random bits shown once; only its
 * SHA-256 digest is stored (a slow password hash would buy nothing against 256 random bits and
 * cost milliseconds on every request: see docs/decisions.md "API keys at rest"). Revoked keys keep their row (for
 * `last_used_at` and the logs' `api_key_id`) and leave every list and lookup.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    /** The first 8 characters after `hub_`: shown in lists so a leaked key can be found. */
    prefix: text("prefix").notNull(),
    /** SHA-256 (hex) of the whole key; the key itself is never stored. */
    digest: text("digest").notNull(),
    createdAt: createdAt(),
    expiresAt: tz("expires_at").notNull(),
    /** Written at most once a minute per key, never on every request. */
    lastUsedAt: tz("last_used_at"),
    /** Set by DELETE /identity/api-keys/{id}: the key stops working and leaves the lists. */
    revokedAt: tz("revoked_at"),
  },
  (t) => [
    // Every request authenticated by a key: one unique-index lookup.
    uniqueIndex("api_keys_digest_key").on(t.digest),
    // GET /identity/api-keys: newest first, a user's keys, everyone's, or by prefix.
    index("api_keys_user_created_idx").on(t.userId, t.createdAt, t.id).where(sql`${t.revokedAt} is null`),
    index("api_keys_created_idx").on(t.createdAt, t.id).where(sql`${t.revokedAt} is null`),
    index("api_keys_prefix_idx").on(t.prefix).where(sql`${t.revokedAt} is null`),
  ],
);

/**
 * Webhook subscriptions (CONTRACT §6.7). The signing secret is stored encrypted (AES-256-GCM with
 * HUB_WEBHOOK_ENCRYPTION_KEY, see @hub/shared/webhook-secrets), never in clear and never hashed:
 * the relay needs it to sign. A deleted subscription keeps its row (and its delivery log) with
 * `deleted_at` set; the API no longer shows it.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    url: text("url").notNull(),
    /** Catalogue event types, or `{*}` for every type. */
    eventTypes: text("event_types").array().notNull(),
    description: text("description").notNull().default(""),
    secretCiphertext: text("secret_ciphertext").notNull(),
    /** The secret replaced by the last rotation: deliveries are signed with it too until `previous_secret_expires_at`. */
    previousSecretCiphertext: text("previous_secret_ciphertext"),
    previousSecretExpiresAt: tz("previous_secret_expires_at"),
    createdBy: uuid("created_by").references(() => users.id),
    createdAt: createdAt(),
    /** Set when its deliveries had failed for 24 h (`webhook.disabled`); nothing is delivered after. */
    disabledAt: tz("disabled_at"),
    deletedAt: tz("deleted_at"),
    /** First failed attempt since the last delivered one; null while deliveries succeed. */
    failingSince: tz("failing_since"),
    /** Failed attempts in a row (the failure streak metric). */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  },
  // GET /webhooks: subscriptions not deleted, oldest first, keyset-paged.
  (t) => [index("webhooks_listed_idx").on(t.createdAt, t.id).where(sql`${t.deletedAt} is null`)],
);

/**
 * One event to deliver to one subscription, created by the event relay in the statement that
 * stamps the event's `dispatched_at` (so exactly the committed events get one), sent by the
 * relay's delivery loop. A delivery is sent only while no earlier pending delivery of the same
 * subscription and aggregate exists (`event_position` order), and only under a lease.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    webhookId: uuid("webhook_id")
      .notNull()
      .references(() => webhooks.id),
    eventId: uuid("event_id")
      .notNull()
      .references(() => events.id),
    /** Copied from the event: per-aggregate order without a join. */
    aggregateId: uuid("aggregate_id").notNull(),
    eventPosition: bigint("event_position", { mode: "number" }).notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull().default("pending"),
    /** Every attempt ever made, redeliveries included. */
    attempts: integer("attempts").notNull().default(0),
    /** Attempts since the delivery was created or last redelivered: the step of the retry schedule. */
    scheduleStep: integer("schedule_step").notNull().default(0),
    /** When the next attempt is due; null once delivered or failed. */
    nextAttemptAt: tz("next_attempt_at").defaultNow(),
    /** A relay sending it holds it until then; a relay that died loses it then. */
    leaseExpiresAt: tz("lease_expires_at"),
    /** Names the claim: only the holder of the current lease records the attempt's outcome. */
    leaseToken: uuid("lease_token"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    deliveredAt: tz("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_webhook_event_key").on(t.webhookId, t.eventId),
    // The delivery loop: a subscription's pending deliveries in event order; also the order check.
    index("webhook_deliveries_pending_idx").on(t.webhookId, t.eventPosition).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_pending_aggregate_idx").on(t.webhookId, t.aggregateId, t.eventPosition).where(sql`${t.status} = 'pending'`),
    // The delivery loop's in-flight count per subscription: only leased deliveries, however long
    // the backlog of pending ones behind them.
    index("webhook_deliveries_leased_idx")
      .on(t.webhookId, t.leaseExpiresAt)
      .where(sql`${t.status} = 'pending' and ${t.leaseExpiresAt} is not null`),
    // GET /webhooks/{id}/deliveries: newest first, keyset-paged.
    index("webhook_deliveries_list_idx").on(t.webhookId, t.createdAt, t.id),
    // An event's deliveries: retention checks that none is pending before removing the event, and
    // the foreign key's check on each removed event reads it (without it, a sequential scan each).
    index("webhook_deliveries_event_idx").on(t.eventId),
    check("webhook_deliveries_status_check", sql`${t.status} in ('pending','delivered','failed')`),
  ],
);

/**
 * GET /jobs's context filters (CONTRACT §6.14): one row per top-level string pair of each job's
 * context, keyed by `hub_job_context_pair_hash(name, value)` and ordered as GET /jobs lists, so
 * the newest jobs holding a pair are one index range (sql/jobs/find.ts). Written only by the
 * triggers on jobs of migration 0018, which follow every insert and delete of jobs.
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

/**
 * The login throttle's sliding windows (CONTRACT §6.15): one row per subject (`email:<digest>`,
 * `pair:<digest>:<address>`, `address:<address>`), its attempts within the window, newest last,
 * at most the limit's number of them. Written only by ./sql/login-throttle/throttle.ts.
 */
export const loginAttemptWindows = pgTable(
  "login_attempt_windows",
  {
    subject: text("subject").primaryKey(),
    // Microseconds, not milliseconds: a successful login takes back exactly the attempt it added.
    attempts: timestamp("attempts", { withTimezone: true }).array().notNull().default(sql`'{}'`),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  // Rows whose window has passed are removed a few at a time, oldest first.
  (t) => [index("login_attempt_windows_updated_idx").on(t.updatedAt)],
);

/** Where each e-mail (as its digest) signed in from: the per-e-mail limit spares these addresses for 30 days. */
export const loginKnownAddresses = pgTable(
  "login_known_addresses",
  {
    emailDigest: text("email_digest").notNull(),
    address: text("address").notNull(),
    signedInAt: timestamp("signed_in_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "login_known_addresses_pkey", columns: [t.emailDigest, t.address] }), index("login_known_addresses_signed_in_idx").on(t.signedInAt)],
);

export type Sector = typeof sectors.$inferSelect;
export type User = typeof users.$inferSelect;
export type Automation = typeof automations.$inferSelect;
export type Worker = typeof workers.$inferSelect;
export type Job = typeof jobs.$inferSelect;
export type Schedule = typeof schedules.$inferSelect;
export type HubEvent = typeof events.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type Webhook = typeof webhooks.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
