/** Sectors (CONTRACT §3 "Sector"). Every function takes the connection or transaction first. */
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../client";
import { sectors, type Sector } from "../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "./pagination";

/** GET /sectors: oldest first by (created_at, id). */
export const SECTORS_LIST_ORDER: KeysetOrder = { createdAt: sectors.createdAt, id: sectors.id, direction: "oldest first" };

/** One page of GET /sectors. */
export async function listSectors(db: DbOrTx, page: KeysetPageRequest): Promise<KeysetPage<Sector>> {
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

export async function findSector(db: DbOrTx, id: string): Promise<Sector | undefined> {
  const [sector] = await db.select().from(sectors).where(eq(sectors.id, id));
  return sector;
}
