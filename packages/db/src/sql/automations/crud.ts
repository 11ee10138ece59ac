/**
 * Automations and their worker registration (CONTRACT §3 "Automation").
 *
 * Locking order, shared with ../jobs/dispatch-scan.ts: an automation row before any of its job rows. Every change
 * to an automation, or to its worker, starts with {@link lock}.
 */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { DbOrTx, Tx } from "../../client";
import { automations, sectors, workers, type Automation, type Sector, type Worker } from "../../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";

/**
 * How strongly to lock an automation row:
 * - `"key share"` only keeps it from being deactivated meanwhile (what a job insert takes): schedule
 *   changes take it, so `is_active` holds until they commit;
 * - `"no key update"` serialises with claims (which take the same lock) but not with job
 *   creation, which holds only `FOR KEY SHARE` (insertJobIfActive);
 * - `"update"` also conflicts with `FOR KEY SHARE`: deactivation takes it so no job can be
 *   inserted, and no schedule enabled, under a stale `is_active`.
 */
export type AutomationLockStrength = "update" | "no key update" | "key share";

/** Locks the automation row for the rest of the transaction; undefined when it does not exist. */
export async function lock(tx: Tx, id: string, strength: AutomationLockStrength): Promise<Automation | undefined> {
  const [automation] = await tx.select().from(automations).where(eq(automations.id, id)).for(strength);
  return automation;
}

/** The settings of CONTRACT §6.13 (limits per key, rate limit). */
export type AutomationLimitField = "concurrencyKey" | "maxConcurrentPerKey" | "rateLimitCount" | "rateLimitPeriodSeconds" | "rateLimitPerKey";

export type NewAutomation = Pick<
  typeof automations.$inferInsert,
    | "name"
  | "slug"
  | "sectorId"
  | "description"
  | "parameters"
  | "maxConcurrentJobs"
  | "maxAttempts"
  | "retryBackoffSeconds"
  | "timeoutSeconds"
  | AutomationLimitField
>;

/** Inserts an automation; a taken slug raises the unique violation `automations_slug_key`. */
export async function insert(tx: Tx, values: NewAutomation): Promise<Automation> {
  const [automation] = await tx.insert(automations).values(values).returning();
  if (!automation) throw new Error("insert returned no row");
  return automation;
}

export type AutomationChanges = Partial<
  Pick<
    Automation,
    | "name"
    | "sectorId"
    | "description"
    | "parameters"
    | "maxConcurrentJobs"
    | "maxAttempts"
    | "retryBackoffSeconds"
    | "timeoutSeconds"
    | AutomationLimitField
    | "isActive"
    | "isDevelopment"
  >
>;

/** Applies `changes` to a (locked) automation and stamps `updated_at`. */
export async function update(tx: Tx, id: string, changes: AutomationChanges): Promise<void> {
  await tx
    .update(automations)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(automations.id, id));
}

export async function sectorExists(db: DbOrTx, id: string): Promise<boolean> {
  const [sector] = await db.select({ id: sectors.id }).from(sectors).where(eq(sectors.id, id));
  return sector !== undefined;
}

/** An automation as its readers see it: with its sector and its registered worker, if any. */
export interface AutomationView {
  automation: Automation;
  sector: Pick<Sector, "id" | "name" | "color">;
  worker: Pick<Worker, "id" | "cloudInstanceId" | "status" | "createdAt" | "lastSeenAt"> | null;
}

function selectAutomationViews(db: DbOrTx, where: SQL | undefined) {
  return db
    .select({
      automation: automations,
      sector: { id: sectors.id, name: sectors.name, color: sectors.color },
      worker: {
        id: workers.id,
        cloudInstanceId: workers.cloudInstanceId,
        status: workers.status,
        createdAt: workers.createdAt,
        lastSeenAt: workers.lastSeenAt,
      },
    })
    .from(automations)
    .innerJoin(sectors, eq(sectors.id, automations.sectorId))
    .leftJoin(workers, and(eq(workers.automationId, automations.id), isNull(workers.unregisteredAt)))
    .where(where);
}

export async function findView(db: DbOrTx, id: string): Promise<AutomationView | undefined> {
  const [view] = await selectAutomationViews(db, eq(automations.id, id));
  return view;
}

export interface AutomationFilter {
  sectorId?: string | undefined;
  isActive?: boolean | undefined;
}

/** GET /automations: oldest first by (created_at, id). */
export const AUTOMATIONS_LIST_ORDER: KeysetOrder = { createdAt: automations.createdAt, id: automations.id, direction: "oldest first" };

/** One page of GET /automations. */
export async function listViews(db: DbOrTx, filter: AutomationFilter, page: KeysetPageRequest): Promise<KeysetPage<AutomationView>> {
  const conditions: SQL[] = [];
  if (filter.sectorId !== undefined) conditions.push(eq(automations.sectorId, filter.sectorId));
  if (filter.isActive !== undefined) conditions.push(eq(automations.isActive, filter.isActive));
  return keysetPage(
    AUTOMATIONS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      selectAutomationViews(db, and(...conditions, after))
        .orderBy(...orderBy)
        .limit(limit),
    (view) => view.automation,
  );
}
