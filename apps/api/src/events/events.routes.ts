import { z } from "zod";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import { eventRecord, listEventsQuery } from "./events.schemas";
import { listEvents } from "./events.service";

export const eventRoutes = [
  defineRoute({
    method: "get",
    path: "/events",
    operationId: "listEvents",
    summary: "List events (the outbox), oldest first",
    description:
      "Every state change (job.created, job.completed, automation.updated, …), written in the same transaction as the change, oldest first, filtered by aggregate, type and time, a page at a time (follow the `Link` header). `dispatched_at` is set once the event relay has published the event to the Redis stream `hub:events`. Employees never see user.*, webhook.* or api_key.* events.",
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
