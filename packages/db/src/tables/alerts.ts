/**
 * Alerts (CONTRACT §6.19): the rules people set up, the state of each alert while its condition
 * holds, the history of resolved ones, and the row each evaluation round claims. The evaluation
 * (../sql/alerts/evaluate.ts) says how they are used.
 */
import { sql } from "drizzle-orm";
import { boolean, check, doublePrecision, index, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { ALERT_KINDS, ALERT_LIMITS } from "@hub/shared";
import { sqlLiteralList } from "../sql-literals";
import { automations } from "./automations";
import { users } from "./identity";
import { createdAt, tz, within } from "./columns";

export const alertRules = pgTable(
  "alert_rules",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Null: every automation, each on its own. */
    automationId: uuid("automation_id").references(() => automations.id),
    kind: text("kind", { enum: ALERT_KINDS }).notNull(),
    /** In the kind's unit; null for `worker_offline`. */
    threshold: doublePrecision("threshold"),
    forSeconds: integer("for_seconds").notNull().default(ALERT_LIMITS.forSeconds.default),
    windowSeconds: integer("window_seconds").notNull().default(ALERT_LIMITS.windowSeconds.default),
    minJobs: integer("min_jobs").notNull().default(ALERT_LIMITS.minJobs.default),
    description: text("description").notNull().default(""),
    createdBy: uuid("created_by").references(() => users.id),
    createdAt: createdAt(),
    updatedAt: tz("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("alert_rules_created_idx").on(t.createdAt, t.id),
    check("alert_rules_kind_check", sql`${t.kind} in (${sql.raw(sqlLiteralList(ALERT_KINDS))})`),
    check("alert_rules_for_seconds_check", within(t.forSeconds, ALERT_LIMITS.forSeconds)),
    check("alert_rules_window_seconds_check", within(t.windowSeconds, ALERT_LIMITS.windowSeconds)),
    check("alert_rules_min_jobs_check", within(t.minJobs, ALERT_LIMITS.minJobs)),
  ],
);

/**
 * An alert (a rule and one automation) while its condition holds: pending from the first
 * evaluation that found it, firing once it held for the rule's `for_seconds`. Gone at the first
 * evaluation that no longer finds it (a firing one moves to {@link alertHistory}).
 */
export const alertStates = pgTable(
  "alert_states",
  {
    /** Names the alert in GET /alerts' keyset order (firing_since, id). */
    id: uuid("id").notNull().defaultRandom(),
    ruleId: uuid("rule_id").notNull(),
    automationId: uuid("automation_id").notNull(),
    pendingSince: tz("pending_since").notNull(),
    firingSince: tz("firing_since"),
    value: doublePrecision("value").notNull(),
    message: text("message").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ruleId, t.automationId] }),
    // GET /alerts: the firing ones, oldest first.
    index("alert_states_firing_idx")
      .on(t.firingSince, t.id)
      .where(sql`${t.firingSince} is not null`),
    // A deactivation resolves its automation's alerts.
    index("alert_states_automation_idx").on(t.automationId),
  ],
);

/** Resolved alerts (GET /alerts?state=resolved): what fired, from when, until when. */
export const alertHistory = pgTable(
  "alert_history",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ruleId: uuid("rule_id").notNull(),
    automationId: uuid("automation_id").notNull(),
    kind: text("kind", { enum: ALERT_KINDS }).notNull(),
    value: doublePrecision("value").notNull(),
    threshold: doublePrecision("threshold"),
    message: text("message").notNull(),
    since: tz("since").notNull(),
    resolvedAt: tz("resolved_at").notNull(),
  },
  (t) => [index("alert_history_resolved_idx").on(t.resolvedAt, t.id)],
);

/** One row: the last evaluation round. A round claims it (FOR UPDATE SKIP LOCKED), so rounds never overlap. */
export const alertEvaluator = pgTable(
  "alert_evaluator",
  {
    id: boolean("id").primaryKey().default(true),
    lastEvaluatedAt: tz("last_evaluated_at")
      .notNull()
      .default(sql`'-infinity'`),
  },
  (t) => [check("alert_evaluator_one_row_check", sql`${t.id}`)],
);
