/**
 * Schedules, the records people set up (CONTRACT §6.9): create, read, list, replace, delete, and
 * disabling those of a deactivated automation. Firing lives in ./fire.ts.
 *
 * Locking order, shared with ../automations/crud.ts and ../jobs/dispatch-scan.ts: the automation row before its
 * schedules' rows (a fire holds its schedule and, `FOR KEY SHARE`, its automation, both taken
 * without waiting, so it never waits on a change that follows this order).
 */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { schedules, type Schedule } from "../../schema";
import * as events from "../events/crud";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { automationIdReached, type Reach } from "../../reach";

/** What a client sets on a schedule (POST and PUT replace all of it). */
export type ScheduleSettings = Pick<Schedule, "key" | "cron" | "timezone" | "context" | "priority" | "enabled" | "overlap" | "description">;

/** The unique index that makes `key` idempotent set-up: one live schedule per key and automation. */
export const SCHEDULE_KEY_CONSTRAINT = "schedules_automation_key_key";

/** Inserts a schedule; a `key` taken by a live schedule of the automation raises {@link SCHEDULE_KEY_CONSTRAINT}. */
export async function insert(executor: Executor, values: ScheduleSettings & { automationId: string; nextRunAt: Date | null }): Promise<Schedule> {
  const tx = queryBuilder(executor);
  const [schedule] = await tx.insert(schedules).values(values).returning();
  if (!schedule) throw new Error("insert returned no row");
  return schedule;
}

const live = isNull(schedules.deletedAt);

/** Not deleted, and of an automation within `reach`. */
const liveWithin = (reach: Reach) => and(live, automationIdReached(reach, schedules.automationId));

/** A schedule that was not deleted, of an automation within `reach`. */
export async function find(executor: Executor, reach: Reach, id: string): Promise<Schedule | undefined> {
  const db = queryBuilder(executor);
  const [schedule] = await db
    .select()
    .from(schedules)
    .where(and(eq(schedules.id, id), liveWithin(reach)));
  return schedule;
}

/**
 * The schedule (not deleted), locked for the rest of the transaction. A fire in progress holds it:
 * the change waits for that fire and then sees its `next_run_at`.
 */
export async function lock(executor: Executor, reach: Reach, id: string): Promise<Schedule | undefined> {
  const tx = queryBuilder(executor);
  const [schedule] = await tx
    .select()
    .from(schedules)
    .where(and(eq(schedules.id, id), liveWithin(reach)))
    .for("update");
  return schedule;
}

/** Applies `changes` to a (locked) schedule and stamps `updated_at`. */
export async function update(executor: Executor, id: string, changes: Partial<ScheduleSettings & { nextRunAt: Date | null }>): Promise<Schedule> {
  const tx = queryBuilder(executor);
  const [schedule] = await tx
    .update(schedules)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(schedules.id, id))
    .returning();
  if (!schedule) throw new Error("update returned no row");
  return schedule;
}

/**
 * Deletes a schedule: it stops firing and disappears from reads, and its row stays for the jobs
 * that name it (their `schedule_id`). Its key is free again. False when it was unknown or deleted.
 */
export async function markDeleted(executor: Executor, reach: Reach, id: string): Promise<boolean> {
  const tx = queryBuilder(executor);
  const deleted = await tx
    .update(schedules)
    .set({ deletedAt: sql`now()`, nextRunAt: null, updatedAt: sql`now()` })
    .where(and(eq(schedules.id, id), liveWithin(reach)))
    .returning({ id: schedules.id });
  return deleted.length > 0;
}

export interface ScheduleFilter {
  automationId?: string | undefined;
  enabled?: boolean | undefined;
}

/** GET /schedules: oldest first by (created_at, id). */
export const SCHEDULES_LIST_ORDER: KeysetOrder = { createdAt: schedules.createdAt, id: schedules.id, direction: "oldest first" };

/** One page of GET /schedules (and GET /automations/{id}/schedules): schedules not deleted. */
export async function list(executor: Executor, reach: Reach, filter: ScheduleFilter, page: KeysetPageRequest): Promise<KeysetPage<Schedule>> {
  const db = queryBuilder(executor);
  const conditions: SQL[] = [liveWithin(reach)!];
  if (filter.automationId !== undefined) conditions.push(eq(schedules.automationId, filter.automationId));
  if (filter.enabled !== undefined) conditions.push(eq(schedules.enabled, filter.enabled));
  return keysetPage(
    SCHEDULES_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(schedules)
        .where(and(...conditions, after))
        .orderBy(...orderBy)
        .limit(limit),
    (schedule) => schedule,
  );
}

/**
 * Deactivation (CONTRACT §6.9): every enabled schedule of the automation is disabled, each with its
 * `schedule.updated {enabled: false}`. Call with the automation row locked `FOR UPDATE`, in the
 * transaction that deactivates it. Returns the ids disabled.
 */
export async function disableOfAutomation(executor: Executor, automationId: string, actorId: string | null): Promise<string[]> {
  const tx = queryBuilder(executor);
  const disabled = await tx
    .update(schedules)
    .set({ enabled: false, nextRunAt: null, updatedAt: sql`now()` })
    .where(and(eq(schedules.automationId, automationId), eq(schedules.enabled, true), live))
    .returning({ id: schedules.id });
  await events.recordMany(
    executor,
    disabled.map(({ id }) => ({ eventType: "schedule.updated", aggregateId: id, actorId, payload: { enabled: false } })),
  );
  return disabled.map(({ id }) => id);
}

/** The automation of each schedule among `ids`, deleted or not (an open event stream's filter). */
export async function automationIdsOf(executor: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const db = queryBuilder(executor);
  const rows = await db
    .select({ id: schedules.id, automationId: schedules.automationId })
    .from(schedules)
    .where(sql`${schedules.id} = any(${`{${ids.join(",")}}`}::uuid[])`);
  return new Map(rows.map((row) => [row.id, row.automationId]));
}
