import { isUniqueViolation, type KeysetPage, type KeysetPageRequest, type Sector, sectors, withTransaction, type Executor, type Reach } from "@hub/db";
import { ConflictError, NotFoundError } from "../http/http-errors";
import type { SectorRecord } from "./sectors.schemas";

export function toSectorRecord(sector: Sector): SectorRecord {
  return { id: sector.id, name: sector.name, color: sector.color, created_at: sector.createdAt.toISOString() };
}

export async function createSector(db: Executor, input: { name: string; color: string }, actorId: string): Promise<string> {
  try {
    return await withTransaction(db, (tx) => sectors.insert(tx, input, actorId));
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`A sector named '${input.name}' already exists`);
    throw error;
  }
}

/** One page of the sectors, oldest first. */
export async function listSectors(db: Executor, reach: Reach, page: KeysetPageRequest): Promise<KeysetPage<SectorRecord>> {
  const { items, next } = await sectors.list(db, reach, page);
  return { items: items.map(toSectorRecord), next };
}

export async function getSector(db: Executor, reach: Reach, id: string): Promise<SectorRecord> {
  const sector = await sectors.find(db, reach, id);
  if (!sector) throw new NotFoundError("Sector not found");
  return toSectorRecord(sector);
}
