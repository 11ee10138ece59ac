import { z } from "zod";
import { uuid } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";

export const sectorIdParams = z.object({ sector_id: uuid() });

export const listSectorsQuery = z.object(pageQueryShape());

export const createSectorBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    color: z.string().regex(/^#[0-9A-Fa-f]{6}$/),
  })
  .meta({ id: "CreateSectorRequest" });

export const sectorRecord = z
  .object({
    id: z.uuid(),
    name: z.string(),
    color: z.string(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Sector", description: "A group of automations, such as a department" });
export type SectorRecord = z.infer<typeof sectorRecord>;
