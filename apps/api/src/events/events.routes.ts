import { z } from "zod";
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
    responses: {
      200: {
        description: "Matching events, oldest first by (created_at, id). Employees never see user.*, webhook.* or api_key.* events (left out, not refused).",
        schema: z.array(eventRecord),
      },
    },
    handler: async ({ query, caller, ctx }) => ({ status: 200, body: await listEvents(ctx.db, query, caller.user.role) }),
  }),
];
