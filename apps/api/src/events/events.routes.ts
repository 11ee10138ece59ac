import { z } from "zod";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import { eventRecord, listEventsQuery } from "./events.schemas";
import { listEvents } from "./events.service";

export const eventRoutes = [
  defineRoute({
    method: "get",
    path: "/events",
    summary: "List events (the outbox), oldest first",
    tag: "events",
    auth: "user",
    query: listEventsQuery,
    paginated: true,
    responses: {
      200: {
        description: `Matching events, oldest first by (created_at, id). Employees never see user.*, webhook.* or api_key.* events (left out, not refused). ${LINK_HEADER_DESCRIPTION}`,
        schema: z.array(eventRecord),
      },
    },
    handler: async ({ query, caller, after, ctx }) => {
      const page = await listEvents(ctx.db, query, caller.user.role, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
];
