/**
 * Sectors, automations, their workers and their schedules. The README of packages/db says what
 * these declarations are for.
 */
import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { APPROVERS_MAX, AUTOMATION_LIMITS, WORKER_STATUSES } from "@hub/shared";
import { within, createdAt, tz } from "./columns";

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
    /** Approvals (CONTRACT §6.17): every job of the automation waits for a person's decision before it may run. */
    requiresApproval: boolean("requires_approval").notNull().default(false),
    /** Who may decide besides admins (users of any role); never a job's own creator. */
    approverIds: uuid("approver_ids")
      .array()
      .notNull()
      .default(sql`'{}'`),
    /** How long an approval request waits before the job is cancelled (`approval_expired`); null: never. */
    approvalTimeoutSeconds: integer("approval_timeout_seconds"),
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
    check("automations_approval_timeout_seconds_check", within(t.approvalTimeoutSeconds, AUTOMATION_LIMITS.approvalTimeoutSeconds)),
    check("automations_approver_ids_check", sql`cardinality(${t.approverIds}) <= ${sql.raw(String(APPROVERS_MAX))}`),
    // A key and its per-key limit come together; a rate limit is a count and a period; per_key needs both a limit and a key.
    check("automations_concurrency_key_check", sql`(${t.concurrencyKey} is null) = (${t.maxConcurrentPerKey} is null)`),
    check(
      "automations_rate_limit_check",
      sql`(${t.rateLimitCount} is null) = (${t.rateLimitPeriodSeconds} is null) and (not ${t.rateLimitPerKey} or (${t.rateLimitCount} is not null and ${t.concurrencyKey} is not null))`,
    ),
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
    uniqueIndex("workers_one_per_automation")
      .on(t.automationId)
      .where(sql`${t.unregisteredAt} is null`),
    uniqueIndex("workers_api_key_hash_key").on(t.apiKeyHash),
    uniqueIndex("workers_previous_api_key_hash_key")
      .on(t.previousApiKeyHash)
      .where(sql`${t.previousApiKeyHash} is not null`),
    index("workers_running_idx")
      .on(t.lastSeenAt)
      .where(sql`${t.status} = 'running' and ${t.unregisteredAt} is null`),
    // The overlap sweep finds the previous keys whose time is up without reading every worker.
    index("workers_previous_api_key_expires_idx")
      .on(t.previousApiKeyExpiresAt)
      .where(sql`${t.previousApiKeyExpiresAt} is not null`),
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
    overlap: text("overlap", { enum: ["skip", "allow"] })
      .notNull()
      .default("skip"),
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
    uniqueIndex("schedules_automation_key_key")
      .on(t.automationId, t.key)
      .where(sql`${t.key} is not null and ${t.deletedAt} is null`),
    // GET /schedules and GET /automations/{id}/schedules: oldest first, keyset-paged.
    index("schedules_created_idx")
      .on(t.createdAt, t.id)
      .where(sql`${t.deletedAt} is null`),
    index("schedules_automation_created_idx")
      .on(t.automationId, t.createdAt, t.id)
      .where(sql`${t.deletedAt} is null`),
    // The dispatchers' timer: the earliest next fire, and the due schedules in fire order.
    index("schedules_next_run_idx")
      .on(t.nextRunAt)
      .where(sql`${t.nextRunAt} is not null`),
    check("schedules_priority_check", sql`${t.priority} between -100 and 100`),
    check("schedules_overlap_check", sql`${t.overlap} in ('skip','allow')`),
  ],
);
