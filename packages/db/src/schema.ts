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
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

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
    role: text("role", { enum: ["admin", "employee"] }).notNull(),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    deactivatedAt: tz("deactivated_at"),
  },
  (t) => [
    uniqueIndex("users_email_key").on(t.email),
    // GET /identity/users: active users, oldest first, keyset-paged.
    index("users_active_created_idx").on(t.createdAt, t.id).where(sql`${t.isActive}`),
    check("users_role_check", sql`${t.role} in ('admin','employee')`),
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
    maxConcurrentJobs: integer("max_concurrent_jobs").notNull().default(1),
    /**
     * Attempts a job gets (CONTRACT §6.4). `null` = the hub's default, HUB_JOB_MAX_ATTEMPTS, read
     * by whoever decides (so changing the variable changes every automation that never set it).
     */
    maxAttempts: integer("max_attempts"),
    /** Back-off base: a failed attempt n waits this × 2^(n−1) seconds (±20 %, at most 1 h). */
    retryBackoffSeconds: integer("retry_backoff_seconds").notNull().default(10),
    /** A job running longer than this fails with `timeout` (retryable); `null` = no limit. */
    timeoutSeconds: integer("timeout_seconds"),
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
    check("automations_max_concurrent_jobs_check", sql`${t.maxConcurrentJobs} between 1 and 1000`),
    check("automations_max_attempts_check", sql`${t.maxAttempts} between 1 and 100`),
    check("automations_retry_backoff_seconds_check", sql`${t.retryBackoffSeconds} between 0 and 3600`),
    check("automations_timeout_seconds_check", sql`${t.timeoutSeconds} between 1 and 86400`),
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
    status: text("status", { enum: ["stopped", "running"] }).notNull().default("stopped"),
    lastSeenAt: tz("last_seen_at"),
    createdAt: createdAt(),
    /** Set when the worker is unregistered; the row is kept for the jobs and events that name it. */
    unregisteredAt: tz("unregistered_at"),
  },
  (t) => [
    // One registered worker per automation.
    uniqueIndex("workers_one_per_automation").on(t.automationId).where(sql`${t.unregisteredAt} is null`),
    uniqueIndex("workers_api_key_hash_key").on(t.apiKeyHash),
    index("workers_running_idx").on(t.lastSeenAt).where(sql`${t.status} = 'running' and ${t.unregisteredAt} is null`),
  ],
);

export const jobs = pgTable(
  "jobs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    automationId: uuid("automation_id")
      .notNull()
      .references(() => automations.id),
    status: text("status", { enum: ["queued", "running", "completed", "failed", "cancelled"] })
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
    /** The failed or cancelled job this one retries (POST /jobs/{id}/retry, CONTRACT §6.4). */
    retryOf: uuid("retry_of").references((): AnyPgColumn => jobs.id),
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
    // Reconciliation: every queued job, oldest first.
    index("jobs_queued_idx").on(t.createdAt, t.id).where(sql`${t.status} = 'queued'`),
    // GET /jobs: newest first, optionally by status.
    // Ascending, read backward for "newest first": an index built DESC NULLS LAST never matches
    // ORDER BY … DESC (which is NULLS FIRST), so the earlier DESC ones served no GET /jobs.
    index("jobs_created_idx").on(t.createdAt, t.id),
    index("jobs_status_created_idx").on(t.status, t.createdAt, t.id),
    index("jobs_automation_created_idx").on(t.automationId, t.createdAt, t.id),
    check("jobs_status_check", sql`${t.status} in ('queued','running','completed','failed','cancelled')`),
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
    jobId: uuid("job_id")
      .notNull()
      .references(() => jobs.id),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

export type Sector = typeof sectors.$inferSelect;
export type User = typeof users.$inferSelect;
export type Automation = typeof automations.$inferSelect;
export type Worker = typeof workers.$inferSelect;
export type Job = typeof jobs.$inferSelect;
export type HubEvent = typeof events.$inferSelect;
