/**
 * Users and how they sign in: accounts, api keys and the login throttle's state. The README of
 * packages/db says what these declarations are for.
 */
import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { ROLES } from "@hub/shared";
import { sqlLiteralList } from "../sql-literals";
import { createdAt, tz } from "./columns";

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
    /** The sectors an employee reaches (CONTRACT §6.22); null is every sector. Kept for admins, who reach all. */
    sectorIds: uuid("sector_ids").array(),
  },
  (t) => [
    uniqueIndex("users_email_key").on(t.email),
    // GET /identity/users?include_inactive=true: every user, oldest first, keyset-paged.
    index("users_created_idx").on(t.createdAt, t.id),
    // GET /identity/users: active users, oldest first, keyset-paged.
    index("users_active_created_idx")
      .on(t.createdAt, t.id)
      .where(sql`${t.isActive}`),
    check("users_role_check", sql`${t.role} in (${sql.raw(sqlLiteralList(ROLES))})`),
    check("users_sector_ids_check", sql`${t.sectorIds} IS NULL OR cardinality(${t.sectorIds}) BETWEEN 1 AND 100`),
  ],
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
    /** Scopes fixed at creation (CONTRACT §6.22): the automations the key reaches (null: all its user reaches). */
    automationIds: uuid("automation_ids").array(),
    /** Only GET, streams and the key's own DELETE. */
    readOnly: boolean("read_only").notNull().default(false),
    /** "employee": an admin's key that acts as an employee; null acts with its user's role. */
    actsAsRole: text("acts_as_role", { enum: ["employee"] }),
  },
  (t) => [
    // Every request authenticated by a key: one unique-index lookup.
    uniqueIndex("api_keys_digest_key").on(t.digest),
    // GET /identity/api-keys: newest first, a user's keys, everyone's, or by prefix.
    index("api_keys_user_created_idx")
      .on(t.userId, t.createdAt, t.id)
      .where(sql`${t.revokedAt} is null`),
    index("api_keys_created_idx")
      .on(t.createdAt, t.id)
      .where(sql`${t.revokedAt} is null`),
    index("api_keys_prefix_idx")
      .on(t.prefix)
      .where(sql`${t.revokedAt} is null`),
    check("api_keys_automation_ids_check", sql`${t.automationIds} IS NULL OR cardinality(${t.automationIds}) BETWEEN 1 AND 100`),
    check("api_keys_acts_as_role_check", sql`${t.actsAsRole} IS NULL OR ${t.actsAsRole} = 'employee'`),
  ],
);

/**
 * The login throttle's sliding windows (CONTRACT §6.15): one row per subject (`email:<digest>`,
 * `pair:<digest>:<address>`, `address:<address>`), its attempts within the window, newest last,
 * at most the limit's number of them. Written only by ../sql/login-throttle/throttle.ts.
 */
export const loginAttemptWindows = pgTable(
  "login_attempt_windows",
  {
    subject: text("subject").primaryKey(),
    // Microseconds, not milliseconds: a successful login takes back exactly the attempt it added.
    attempts: timestamp("attempts", { withTimezone: true })
      .array()
      .notNull()
      .default(sql`'{}'`),
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
  (t) => [
    primaryKey({ name: "login_known_addresses_pkey", columns: [t.emailDigest, t.address] }),
    index("login_known_addresses_signed_in_idx").on(t.signedInAt),
  ],
);
