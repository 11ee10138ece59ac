/**
 * Maintenance windows, the records people set up (CONTRACT §6.18): create, read, list, replace,
 * delete. Their occurrences (what the claim reads) are written by ./occurrences.ts in the same
 * transaction; the dispatchers' passes are ./passes.ts.
 *
 * Who reaches a window (§6.22): `windowReached` in ../../reach.ts.
 */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { maintenanceWindows, WHOLE_HUB_SCOPE_ID, type MaintenanceWindow } from "../../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { windowReached, type Reach } from "../../reach";

/** What a client sets on a window (POST and PUT replace all of it). */
export type WindowSettings = Pick<
  MaintenanceWindow,
  "automationId" | "sectorId" | "startsAt" | "endsAt" | "cron" | "timezone" | "durationSeconds" | "drain" | "description"
>;

/** The scope id of the window's occurrences: its automation, its sector, or every automation. */
export function scopeIdOf(window: Pick<MaintenanceWindow, "automationId" | "sectorId">): string {
  return window.automationId ?? window.sectorId ?? WHOLE_HUB_SCOPE_ID;
}

const uuidArray = (ids: readonly string[]) => sql`${`{${ids.join(",")}}`}::uuid[]`;

const live = isNull(maintenanceWindows.deletedAt);
const liveWithin = (reach: Reach) => and(live, windowReached(reach, maintenanceWindows));

export async function insert(executor: Executor, values: WindowSettings): Promise<MaintenanceWindow> {
  const [window] = await queryBuilder(executor).insert(maintenanceWindows).values(values).returning();
  if (!window) throw new Error("insert returned no row");
  return window;
}

/** A window that was not deleted, within `reach`. */
export async function find(executor: Executor, reach: Reach, id: string): Promise<MaintenanceWindow | undefined> {
  const [window] = await queryBuilder(executor)
    .select()
    .from(maintenanceWindows)
    .where(and(eq(maintenanceWindows.id, id), liveWithin(reach)));
  return window;
}

/** The window (not deleted, within `reach`), locked for the rest of the transaction: a dispatcher's fill of it waits. */
export async function lock(executor: Executor, reach: Reach, id: string): Promise<MaintenanceWindow | undefined> {
  const [window] = await queryBuilder(executor)
    .select()
    .from(maintenanceWindows)
    .where(and(eq(maintenanceWindows.id, id), liveWithin(reach)))
    .for("update");
  return window;
}

/** Applies `changes` to a (locked) window and stamps `updated_at`. */
export async function update(executor: Executor, id: string, changes: Partial<WindowSettings & { filledUntil: Date | null }>): Promise<MaintenanceWindow> {
  const [window] = await queryBuilder(executor)
    .update(maintenanceWindows)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(maintenanceWindows.id, id))
    .returning();
  if (!window) throw new Error("update returned no row");
  return window;
}

/** Deletes a (locked) window: it is gone for every read; its row stays for its events' reach. */
export async function markDeleted(executor: Executor, id: string): Promise<void> {
  await queryBuilder(executor)
    .update(maintenanceWindows)
    .set({ deletedAt: sql`now()`, filledUntil: null, updatedAt: sql`now()` })
    .where(eq(maintenanceWindows.id, id));
}

export interface WindowFilter {
  automationId?: string | undefined;
  sectorId?: string | undefined;
  /** true: in effect now; false: not in effect now. */
  active?: boolean | undefined;
}

/** GET /maintenance-windows: oldest first by (created_at, id). */
export const WINDOWS_LIST_ORDER: KeysetOrder = { createdAt: maintenanceWindows.createdAt, id: maintenanceWindows.id, direction: "oldest first" };

/** "An occurrence of the window is in effect now". */
export const windowInEffect = sql`exists (select 1 from maintenance_occurrences o
  where o.window_id = ${maintenanceWindows.id} and o.starts_at <= now() and o.ends_at > now())`;

/** One page of GET /maintenance-windows: windows not deleted, within `reach`. */
export async function list(executor: Executor, reach: Reach, filter: WindowFilter, page: KeysetPageRequest): Promise<KeysetPage<MaintenanceWindow>> {
  const db = queryBuilder(executor);
  const conditions: SQL[] = [liveWithin(reach)!];
  if (filter.automationId !== undefined) conditions.push(eq(maintenanceWindows.automationId, filter.automationId));
  if (filter.sectorId !== undefined) conditions.push(eq(maintenanceWindows.sectorId, filter.sectorId));
  if (filter.active !== undefined) conditions.push(filter.active ? windowInEffect : sql`not ${windowInEffect}`);
  return keysetPage(
    WINDOWS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(maintenanceWindows)
        .where(and(...conditions, after))
        .orderBy(...orderBy)
        .limit(limit),
    (window) => window,
  );
}

/** What the record shows of each window's occurrences: in effect now, the next start, the end of the one in effect or next. */
export interface WindowTimes {
  active: boolean;
  nextStartAt: Date | null;
  nextEndAt: Date | null;
  /** PostgreSQL's now() of the statement. */
  now: Date;
}

/** {@link WindowTimes} of each of `ids`, from their occurrence rows, in one statement. */
export async function timesOf(executor: Executor, ids: readonly string[]): Promise<Map<string, WindowTimes>> {
  const db = queryBuilder(executor);
  if (ids.length === 0) return new Map();
  const result = await db.execute<{ id: string; active: boolean; next_start_at: string | null; next_end_at: string | null; now: string }>(sql`
    select w.id,
      exists (select 1 from maintenance_occurrences o where o.window_id = w.id and o.starts_at <= now() and o.ends_at > now()) as active,
      (select min(o.starts_at) from maintenance_occurrences o where o.window_id = w.id and o.starts_at > now()) as next_start_at,
      (select min(o.ends_at) from maintenance_occurrences o where o.window_id = w.id and o.ends_at > now()) as next_end_at,
      now() as now
    from unnest(${uuidArray(ids)}) as w(id)`);
  return new Map(
    result.rows.map((row) => [
      row.id,
      {
        active: row.active,
        nextStartAt: row.next_start_at === null ? null : new Date(row.next_start_at),
        nextEndAt: row.next_end_at === null ? null : new Date(row.next_end_at),
        now: new Date(row.now),
      },
    ]),
  );
}

/** The active automations a scope id covers (to wake their claims when a window stops holding them). */
export async function automationIdsInScope(executor: Executor, scopeIds: readonly string[]): Promise<string[]> {
  if (scopeIds.length === 0) return [];
  const db = queryBuilder(executor);
  const result = await db.execute<{ id: string }>(sql`
    select a.id from automations a
    where a.is_active and (a.id = any(${uuidArray(scopeIds)}) or a.sector_id = any(${uuidArray(scopeIds)})
      or ${WHOLE_HUB_SCOPE_ID}::uuid = any(${uuidArray(scopeIds)}))`);
  return result.rows.map((row) => row.id);
}

/** The windows among `ids` (deleted or not: their events stay readable) that `reach` covers (an open event stream's filter). */
export async function reachedAmong(executor: Executor, reach: Reach, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await queryBuilder(executor)
    .select({ id: maintenanceWindows.id })
    .from(maintenanceWindows)
    .where(and(sql`${maintenanceWindows.id} = any(${uuidArray(ids)})`, windowReached(reach, maintenanceWindows)));
  return new Set(rows.map((row) => row.id));
}
