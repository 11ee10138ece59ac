/** Sectors (CONTRACT §3 "Sector"). Every function takes the connection or transaction first. */
import { and, eq, sql, type SQL } from "drizzle-orm";
import { sectors, type Sector } from "../../schema";
import * as events from "../events/crud";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { reachesEverything, type Reach } from "../../reach";

/**
 * The sectors `reach` shows (CONTRACT §6.22): its own, and with an api key's automations, only the
 * sectors of those. Undefined (no condition) when it reaches everything.
 */
function sectorReached(reach: Reach): SQL | undefined {
  if (reachesEverything(reach)) return undefined;
  const conditions: SQL[] = [];
  if (reach.sectorIds !== null) conditions.push(sql`${sectors.id} = any(${`{${reach.sectorIds.join(",")}}`}::uuid[])`);
  if (reach.automationIds !== null) {
    conditions.push(
      sql`exists (select 1 from automations reach_a where reach_a.sector_id = ${sectors.id} and reach_a.id = any(${`{${reach.automationIds.join(",")}}`}::uuid[]))`,
    );
  }
  return and(...conditions);
}

/** GET /sectors: oldest first by (created_at, id). */
export const SECTORS_LIST_ORDER: KeysetOrder = { createdAt: sectors.createdAt, id: sectors.id, direction: "oldest first" };

/** One page of GET /sectors. */
export async function list(executor: Executor, reach: Reach, page: KeysetPageRequest): Promise<KeysetPage<Sector>> {
  const db = queryBuilder(executor);
  return keysetPage(
    SECTORS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(sectors)
        .where(and(sectorReached(reach), after))
        .orderBy(...orderBy)
        .limit(limit),
    (sector) => sector,
  );
}

export async function find(executor: Executor, reach: Reach, id: string): Promise<Sector | undefined> {
  const db = queryBuilder(executor);
  const [sector] = await db
    .select()
    .from(sectors)
    .where(and(eq(sectors.id, id), sectorReached(reach)));
  return sector;
}

/** Inserts a sector and its `sector.created` event; a taken name fails with a unique violation. */
export async function insert(executor: Executor, input: { name: string; color: string }, actorId: string): Promise<string> {
  const tx = queryBuilder(executor);
  const [sector] = await tx.insert(sectors).values(input).returning({ id: sectors.id });
  if (!sector) throw new Error("insert returned no row");
  await events.record(executor, { eventType: "sector.created", aggregateId: sector.id, actorId, payload: { name: input.name, color: input.color } });
  return sector.id;
}
