/**
 * What a caller reaches (CONTRACT §6.22): the automations it may see and act on, and everything
 * under them (jobs, their logs, schedules, stats, events). It is derived once per request from the
 * authenticated principal — the user's role and `sector_ids`, the api key's scopes — and every
 * statement that reads or writes automations or what is under them takes it as a required
 * argument and applies it as a predicate in SQL. What lies outside answers as if it did not exist,
 * because the statement never finds it: no route can forget the check, since it cannot call the
 * statement without a reach.
 *
 * {@link EVERYWHERE} (admins, unscoped employees, the hub's own loops) adds no predicate at all,
 * so the common case costs nothing.
 */
import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { eventTypesAbout } from "@hub/shared";

export interface Reach {
  /** The sectors reached; null: every sector. */
  readonly sectorIds: readonly string[] | null;
  /** The automations reached, within those sectors; null: every automation of them. */
  readonly automationIds: readonly string[] | null;
}

/** Reaches every automation: no predicate. */
export const EVERYWHERE: Reach = Object.freeze({ sectorIds: null, automationIds: null });

/** Whether `reach` leaves nothing out (then statements add no predicate). */
export function reachesEverything(reach: Reach): boolean {
  return reach.sectorIds === null && reach.automationIds === null;
}

/**
 * The reach of a principal: an employee's sectors (admins reach every sector whatever their
 * `sector_ids`), narrowed by the api key's automations, if any.
 */
export function reachOf(principal: { role: string; sectorIds: readonly string[] | null; keyAutomationIds?: readonly string[] | null | undefined }): Reach {
  const sectorIds = principal.role === "admin" ? null : principal.sectorIds;
  const automationIds = principal.keyAutomationIds ?? null;
  if (sectorIds === null && automationIds === null) return EVERYWHERE;
  return Object.freeze({ sectorIds, automationIds });
}

const uuidArray = (ids: readonly string[]) => sql`${`{${ids.join(",")}}`}::uuid[]`;

/**
 * The predicate "the automation row is reached", on the automations table's own columns.
 * Undefined (no condition) for {@link EVERYWHERE}.
 */
export function automationRowReached(reach: Reach, columns: { id: AnyPgColumn | SQL; sectorId: AnyPgColumn | SQL }): SQL | undefined {
  if (reachesEverything(reach)) return undefined;
  const conditions: SQL[] = [];
  if (reach.sectorIds !== null) conditions.push(sql`${columns.sectorId} = any(${uuidArray(reach.sectorIds)})`);
  if (reach.automationIds !== null) conditions.push(sql`${columns.id} = any(${uuidArray(reach.automationIds)})`);
  return sql.join(conditions, sql` and `);
}

/**
 * The predicate "the automation `automationId` names is reached", for a row under an automation
 * (a job, a schedule): the automation's sector is read by its primary key. Undefined for
 * {@link EVERYWHERE}.
 */
export function automationIdReached(reach: Reach, automationId: AnyPgColumn | SQL): SQL | undefined {
  if (reachesEverything(reach)) return undefined;
  const conditions: SQL[] = [];
  if (reach.automationIds !== null) conditions.push(sql`${automationId} = any(${uuidArray(reach.automationIds)})`);
  if (reach.sectorIds !== null) {
    conditions.push(
      sql`exists (select 1 from automations reach_a where reach_a.id = ${automationId} and reach_a.sector_id = any(${uuidArray(reach.sectorIds)}))`,
    );
  }
  return sql.join(conditions, sql` and `);
}

/** The same predicate in plain SQL text, for statements written as text: `$n` placeholders start at `firstParam`. */
export function automationIdReachedText(reach: Reach, automationIdExpr: string, firstParam: number): { text: string; values: unknown[] } {
  if (reachesEverything(reach)) return { text: "true", values: [] };
  const parts: string[] = [];
  const values: unknown[] = [];
  if (reach.automationIds !== null) {
    values.push(`{${reach.automationIds.join(",")}}`);
    parts.push(`${automationIdExpr} = any($${firstParam + values.length - 1}::uuid[])`);
  }
  if (reach.sectorIds !== null) {
    values.push(`{${reach.sectorIds.join(",")}}`);
    parts.push(
      `exists (select 1 from automations reach_a where reach_a.id = ${automationIdExpr} and reach_a.sector_id = any($${firstParam + values.length - 1}::uuid[]))`,
    );
  }
  return { text: `(${parts.join(" and ")})`, values };
}

/**
 * The predicate "the maintenance window is reached" (§6.22), on a window's `automation_id` and
 * `sector_id`: one scoped to an automation as that automation; one scoped to a sector when the
 * caller reaches that sector (narrowed to some automations: when one of them is in it); one over
 * every automation, always. Undefined for {@link EVERYWHERE}.
 */
export function windowReached(reach: Reach, columns: { automationId: AnyPgColumn | SQL; sectorId: AnyPgColumn | SQL }): SQL | undefined {
  if (reachesEverything(reach)) return undefined;
  const ofAutomation = automationIdReached(reach, columns.automationId)!;
  const sectorConditions: SQL[] = [];
  if (reach.sectorIds !== null) sectorConditions.push(sql`${columns.sectorId} = any(${uuidArray(reach.sectorIds)})`);
  if (reach.automationIds !== null) {
    sectorConditions.push(
      sql`exists (select 1 from automations reach_wa where reach_wa.sector_id = ${columns.sectorId} and reach_wa.id = any(${uuidArray(reach.automationIds)}))`,
    );
  }
  return sql`((${columns.automationId} is not null and ${ofAutomation})
    or (${columns.sectorId} is not null and ${sql.join(sectorConditions, sql` and `)})
    or (${columns.automationId} is null and ${columns.sectorId} is null))`;
}

const typesAbout = (aggregate: Parameters<typeof eventTypesAbout>[0]) => sql`${`{${eventTypesAbout(aggregate).join(",")}}`}::text[]`;

/**
 * The predicate "the event is reached" (CONTRACT §6.22): its aggregate is a reached automation
 * (workers' events are about their automation), one of its jobs (named in the payload, so an event
 * outlives its job's removal), one of its schedules, or a maintenance window it reaches ({@link windowReached}).
 * Events about anything else (sectors, users, webhooks, api keys) are left out for a scoped caller. Alert events
 * (§6.19) are about their rule, and shown when the automation they name in the payload is reached: a rule for
 * every automation shows a scoped caller only its own automations' alerts. Undefined for {@link EVERYWHERE}.
 */
export function eventReached(reach: Reach, columns: { aggregateId: AnyPgColumn; eventType: AnyPgColumn; payload: AnyPgColumn }): SQL | undefined {
  if (reachesEverything(reach)) return undefined;
  const ofAutomation = automationIdReached(reach, columns.aggregateId)!;
  const ofJob = automationIdReached(reach, sql`(${columns.payload}->>'automation_id')::uuid`)!;
  const ofSchedule = automationIdReached(reach, sql`(select reach_s.automation_id from schedules reach_s where reach_s.id = ${columns.aggregateId})`)!;
  const ofWindow = windowReached(reach, { automationId: sql.raw("reach_w.automation_id"), sectorId: sql.raw("reach_w.sector_id") })!;
  return sql`((${columns.eventType} = any(${typesAbout("automation")}) and ${ofAutomation})
    or (${columns.eventType} = any(${typesAbout("job")}) and ${ofJob})
    or (${columns.eventType} = any(${typesAbout("schedule")}) and ${ofSchedule})
    or (${columns.eventType} = any(${typesAbout("alert_rule")}) and ${ofJob})
    or (${columns.eventType} = any(${typesAbout("maintenance_window")})
      and exists (select 1 from maintenance_windows reach_w where reach_w.id = ${columns.aggregateId} and ${ofWindow})))`;
}
