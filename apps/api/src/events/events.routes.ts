import { z } from "zod";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import { serveEventStream } from "./event-stream";
import { eventRecord, eventStreamHeaders, eventStreamQuery, LAST_EVENT_ID_HEADER, listEventsQuery } from "./events.schemas";
import { listEvents } from "./events.service";

const STREAM_EXAMPLE =
  "retry: 2000\n: connected\n\n" +
  "id: 1767225600000-0\n" +
  'data: {"id":"0b6f3c52-8c1e-4c3e-9d55-3f1b2a6f7e01","aggregate_id":"e67b45d3-2f0a-4d7b-9a43-6c1d1b0c9f10","event_type":"job.completed","actor_id":null,' +
  '"payload":{"automation_id":"5b0c7a2e-1d3f-4e8a-b6c9-0a1b2c3d4e5f","worker_id":"9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b","result":{"rows":42}},' +
  '"dispatched_at":null,"created_at":"2026-01-01T00:00:00.000Z"}\n\n' +
  ": heartbeat\n\n";

export const eventRoutes = [
  defineRoute({
    method: "get",
    path: "/events",
    operationId: "listEvents",
    summary: "List events (the outbox), oldest first",
    description:
      "Every state change (job.created, job.completed, automation.updated, …), written in the same transaction as the change, oldest first, filtered by aggregate (one, or a kind), type and time, a page at a time (follow the `Link` header). `dispatched_at` is set once the event relay has published the event to the Redis stream `hub:events`. Employees never see user.*, webhook.* or api_key.* events.",
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
      const page = await listEvents(ctx.database.pool, caller.reach, query, caller.user.role, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/events/stream",
    operationId: "streamEvents",
    summary: "Follow events live (server-sent events)",
    description:
      "The event log as it happens, as server-sent events (`text/event-stream`): one message per event, its `data` the event record of GET /events " +
      "(`dispatched_at` is null: the relay publishes an event before it stamps it) and its `id` the position in the Redis stream `hub:events`. " +
      "Send that id back as `Last-Event-ID` when reconnecting to get what was missed first (at most 1000 events and 1 MiB; beyond that, or when the stream no longer holds them, " +
      "an `event: reset` message says to read GET /events instead). A comment line arrives every HUB_EVENTS_STREAM_HEARTBEAT_SECONDS (15 s). The credential " +
      "is checked again on every credential change and every 0.5 s, and the stream ends within a second once it is no longer valid. Employees never see user.*, webhook.* or api_key.* events, as in GET /events. " +
      "Authenticate with the Authorization header (read the stream with fetch; a browser's EventSource cannot send it).",
    tag: "events",
    auth: "user",
    query: eventStreamQuery,
    headers: eventStreamHeaders,
    responses: {
      200: {
        description:
          "The stream, open until the client leaves, its credential stops being valid or the API shuts down. Messages: `id:` + `data:` (an Event, as JSON), `event: reset` (resuming was not possible), and `:` comments (heartbeats)",
        contentType: "text/event-stream",
        schema: z.string(),
        example: STREAM_EXAMPLE,
      },
      429: {
        description:
          "Too many open streams: the caller's user already has 5 open (a request with Last-Event-ID takes the oldest one's place instead); see Retry-After",
      },
    },
    handler: async ({ query, headers, caller, ctx, req, res }) => {
      await serveEventStream({
        ctx,
        req,
        res,
        caller,
        filter: { aggregateId: query.aggregate_id, eventType: query.event_type, aggregateType: query.aggregate_type },
        lastEventId: headers[LAST_EVENT_ID_HEADER],
      });
      return { status: 200, streaming: true };
    },
  }),
];
