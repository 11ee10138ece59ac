/** Sectors (CONTRACT §3 "Sector"). Every function takes the connection or transaction first. */
import { eq } from "drizzle-orm";
import type { DbOrTx, Tx } from "../../client";
import { sectors, type Sector } from "../../schema";
import * as events from "../events/crud";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";

/** GET /sectors: oldest first by (created_at, id). */
export const SECTORS_LIST_ORDER: KeysetOrder = { createdAt: sectors.createdAt, id: sectors.id, direction: "oldest first" };

/** One page of GET /sectors. */
export async function list(db: DbOrTx, page: KeysetPageRequest): Promise<KeysetPage<Sector>> {
  return keysetPage(
    SECTORS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(sectors)
        .where(after)
        .orderBy(...orderBy)
        .limit(limit),
    (sector) => sector,
  );
}

export async function find(db: DbOrTx, id: string): Promise<Sector | undefined> {
  const [sector] = await db.select().from(sectors).where(eq(sectors.id, id));
  return sector;
}

/** Inserts a sector and its `sector.created` event; a taken name fails with a unique violation. */
export async function insert(tx: Tx, input: { name: string; color: string }, actorId: string): Promise<string> {
  const [sector] = await tx.insert(sectors).values(input).returning({ id: sectors.id });
  if (!sector) throw new Error("insert returned no row");
  await events.record(tx, { eventType: "sector.created", aggregateId: sector.id, actorId, payload: { name: input.name, color: input.color } });
  return sector.id;
}
