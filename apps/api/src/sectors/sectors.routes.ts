import { z } from "zod";
import { defineRoute } from "../http/route";
import { createdIdResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { createSectorBody, listSectorsQuery, sectorIdParams, sectorRecord } from "./sectors.schemas";
import { createSector, getSector, listSectors } from "./sectors.service";

export const sectorRoutes = [
  defineRoute({
    method: "post",
    path: "/sectors",
    operationId: "createSector",
    summary: "Create a sector",
    description: "Admins only. The name is unique (409 when taken); the colour is `#RRGGBB`. Writes a sector.created event.",
    tag: "sectors",
    auth: "admin",
    body: createSectorBody,
    example: { name: "Finance", color: "#1F77B4" },
    responses: { 201: { description: "Created", schema: createdIdResponse }, 409: { description: "Name taken" } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createSector(ctx.database.pool, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/sectors",
    operationId: "listSectors",
    summary: "List sectors",
    description: "Every sector, oldest first, a page at a time: follow the `Link` header until a response has none.",
    tag: "sectors",
    auth: "user",
    query: listSectorsQuery,
    paginated: true,
    responses: { 200: { description: `Sectors, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(sectorRecord) } },
    handler: async ({ query, after, caller, ctx }) => {
      const page = await listSectors(ctx.database.pool, caller.reach, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/sectors/{sector_id}",
    operationId: "getSector",
    summary: "Get a sector",
    description: "One sector by id; 404 when there is none.",
    tag: "sectors",
    auth: "user",
    params: sectorIdParams,
    responses: { 200: { description: "The sector", schema: sectorRecord }, 404: { description: "Unknown sector" } },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await getSector(ctx.database.pool, caller.reach, params.sector_id) }),
  }),
];
