/**
 * Maintenance windows (CONTRACT §6.18): the windows people set up and their occurrences, one row
 * each, which the claim reads (packages/db/functions/hub_claim_jobs_v4.sql). Migration 0030 says
 * why the occurrences are rows of their own. The README of packages/db says what these
 * declarations are for.
 */
import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { automations, sectors } from "./automations";
import { createdAt, tz } from "./columns";

/** The scope id of a window over every automation (maintenance_occurrences.scope_id). */
export const WHOLE_HUB_SCOPE_ID = "00000000-0000-0000-0000-000000000000";

export const maintenanceWindows = pgTable(
  "maintenance_windows",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** At most one of automation_id and sector_id; neither: every automation. */
    automationId: uuid("automation_id").references(() => automations.id),
    sectorId: uuid("sector_id").references(() => sectors.id),
    /** A one-off window: both set, the recurring fields null. */
    startsAt: tz("starts_at"),
    endsAt: tz("ends_at"),
    /** A recurring window: cron and timezone as sent (CONTRACT §6.9), and each occurrence's length. */
    cron: text("cron"),
    timezone: text("timezone"),
    durationSeconds: integer("duration_seconds"),
    drain: boolean("drain").notNull().default(false),
    description: text("description").notNull().default(""),
    /** A recurring window's fire times up to this instant have their occurrences written. */
    filledUntil: tz("filled_until"),
    createdAt: createdAt(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
    deletedAt: tz("deleted_at"),
  },
  (t) => [
    index("maintenance_windows_created_idx")
      .on(t.createdAt, t.id)
      .where(sql`${t.deletedAt} is null`),
    index("maintenance_windows_fill_idx")
      .on(t.filledUntil)
      .where(sql`${t.deletedAt} is null and ${t.cron} is not null`),
    check("maintenance_windows_scope_check", sql`${t.automationId} is null or ${t.sectorId} is null`),
    check(
      "maintenance_windows_form_check",
      sql`(${t.startsAt} is not null and ${t.endsAt} is not null and ${t.endsAt} > ${t.startsAt} and ${t.cron} is null and ${t.timezone} is null and ${t.durationSeconds} is null)
        or (${t.startsAt} is null and ${t.endsAt} is null and ${t.cron} is not null and ${t.timezone} is not null and ${t.durationSeconds} between 60 and 604800)`,
    ),
  ],
);

/**
 * One occurrence of a window: from `starts_at` to `ends_at` (overlapping occurrences of one window
 * merged into one row). `scope_id` is the window's automation, its sector, or
 * {@link WHOLE_HUB_SCOPE_ID}; `drain` is the window's. `started_at` and `ended_at` are stamped in the
 * transaction that writes `maintenance_window.started` / `.ended`.
 */
export const maintenanceOccurrences = pgTable(
  "maintenance_occurrences",
  {
    windowId: uuid("window_id")
      .notNull()
      .references(() => maintenanceWindows.id),
    startsAt: tz("starts_at").notNull(),
    endsAt: tz("ends_at").notNull(),
    scopeId: uuid("scope_id").notNull(),
    drain: boolean("drain").notNull(),
    startedAt: tz("started_at"),
    endedAt: tz("ended_at"),
  },
  (t) => [
    primaryKey({ columns: [t.windowId, t.startsAt] }),
    // The claim's probe: the occurrences that have not ended, scope filtered on the included columns (INCLUDE
    // (scope_id, starts_at, drain) in migration 0030, which drizzle's declarations cannot say).
    index("maintenance_occurrences_end_idx").on(t.endsAt),
    index("maintenance_occurrences_start_due_idx")
      .on(t.startsAt)
      .where(sql`${t.startedAt} is null`),
    index("maintenance_occurrences_end_due_idx")
      .on(t.endsAt)
      .where(sql`${t.endedAt} is null`),
    check("maintenance_occurrences_span_check", sql`${t.endsAt} >= ${t.startsAt}`),
  ],
);
