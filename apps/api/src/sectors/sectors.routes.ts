import { z } from "zod";
import { defineRoute } from "../http/route";
import { createdIdResponse } from "../http/common-schemas";
import { createSectorBody, sectorIdParams, sectorRecord } from "./sectors.schemas";
import { createSector, getSector, listSectors } from "./sectors.service";

export const sectorRoutes = [
  defineRoute({
    method: "post",
    path: "/sectors",
    summary: "Create a sector",
    tag: "sectors",
    auth: "admin",
    body: createSectorBody,
    responses: { 201: { description: "Created", schema: createdIdResponse }, 409: { description: "Name taken" } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createSector(ctx.db, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/sectors",
    summary: "List sectors",
    tag: "sectors",
    auth: "user",
    responses: { 200: { description: "Every sector, by name", schema: z.array(sectorRecord) } },
    handler: async ({ ctx }) => ({ status: 200, body: await listSectors(ctx.db) }),
  }),
  defineRoute({
    method: "get",
    path: "/sectors/{sector_id}",
    summary: "Get a sector",
    tag: "sectors",
    auth: "user",
    params: sectorIdParams,
    responses: { 200: { description: "The sector", schema: sectorRecord }, 404: { description: "Unknown sector" } },
    handler: async ({ params, ctx }) => ({ status: 200, body: await getSector(ctx.db, params.sector_id) }),
  }),
];
