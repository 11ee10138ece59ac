/**
 * Automations and their worker registration (CONTRACT §3 "Automation").
 *
 * Locking order, shared with ../jobs/dispatch-scan.ts: an automation row before any of its job rows. Every change
 * to an automation, or to its worker, starts with {@link lock}.
 */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { automations, sectors, workers, type Automation, type Sector, type Worker } from "../../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { automationRowReached, type Reach } from "../../reach";

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

/** Locks the automation row for the rest of the transaction; undefined when it does not exist or lies outside `reach`. */
export async function lock(executor: Executor, reach: Reach, id: string, strength: AutomationLockStrength): Promise<Automation | undefined> {
  const tx = queryBuilder(executor);
  const [automation] = await tx
    .select()
    .from(automations)
    .where(and(eq(automations.id, id), automationRowReached(reach, automations)))
    .for(strength);
  return automation;
}

/** The settings of CONTRACT §6.13 (limits per key, rate limit). */
export type AutomationLimitField = "concurrencyKey" | "maxConcurrentPerKey" | "rateLimitCount" | "rateLimitPeriodSeconds" | "rateLimitPerKey";

/** The settings of CONTRACT §6.17 (approvals). */
export type AutomationApprovalField = "requiresApproval" | "approverIds" | "approvalTimeoutSeconds";

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
  | AutomationApprovalField
>;

/** Inserts an automation; a taken slug raises the unique violation `automations_slug_key`. */
export async function insert(executor: Executor, values: NewAutomation): Promise<Automation> {
  const tx = queryBuilder(executor);
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
    | AutomationApprovalField
    | "isActive"
    | "isDevelopment"
  >
>;

/** Applies `changes` to a (locked) automation and stamps `updated_at`. */
export async function update(executor: Executor, id: string, changes: AutomationChanges): Promise<void> {
  const tx = queryBuilder(executor);
  await tx
    .update(automations)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(eq(automations.id, id));
}

export async function sectorExists(executor: Executor, id: string): Promise<boolean> {
  const db = queryBuilder(executor);
  const [sector] = await db.select({ id: sectors.id }).from(sectors).where(eq(sectors.id, id));
  return sector !== undefined;
}

/** An automation as its readers see it: with its sector and its registered worker, if any. */
export interface AutomationView {
  automation: Automation;
  sector: Pick<Sector, "id" | "name" | "color">;
  worker: Pick<Worker, "id" | "cloudInstanceId" | "status" | "createdAt" | "lastSeenAt"> | null;
}

function selectAutomationViews(executor: Executor, where: SQL | undefined) {
  const db = queryBuilder(executor);
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

/** An automation with its sector and worker; undefined when unknown or outside `reach`. */
export async function findView(executor: Executor, reach: Reach, id: string): Promise<AutomationView | undefined> {
  const [view] = await selectAutomationViews(executor, and(eq(automations.id, id), automationRowReached(reach, automations)));
  return view;
}

export interface AutomationFilter {
  sectorId?: string | undefined;
  isActive?: boolean | undefined;
}

/** GET /automations: oldest first by (created_at, id). */
export const AUTOMATIONS_LIST_ORDER: KeysetOrder = { createdAt: automations.createdAt, id: automations.id, direction: "oldest first" };

/** One page of GET /automations. */
export async function listViews(executor: Executor, reach: Reach, filter: AutomationFilter, page: KeysetPageRequest): Promise<KeysetPage<AutomationView>> {
  const conditions: SQL[] = [];
  const reached = automationRowReached(reach, automations);
  if (reached) conditions.push(reached);
  if (filter.sectorId !== undefined) conditions.push(eq(automations.sectorId, filter.sectorId));
  if (filter.isActive !== undefined) conditions.push(eq(automations.isActive, filter.isActive));
  return keysetPage(
    AUTOMATIONS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      selectAutomationViews(executor, and(...conditions, after))
        .orderBy(...orderBy)
        .limit(limit),
    (view) => view.automation,
  );
}

/** The ids among `ids` of automations within `reach` (an open event stream's filter, CONTRACT §6.22). */
export async function reachedAmong(executor: Executor, reach: Reach, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const db = queryBuilder(executor);
  const rows = await db
    .select({ id: automations.id })
    .from(automations)
    .where(and(sql`${automations.id} = any(${`{${ids.join(",")}}`}::uuid[])`, automationRowReached(reach, automations)));
  return new Set(rows.map((row) => row.id));
}
