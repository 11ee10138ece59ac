import { z } from "zod";
import type { events } from "@hub/db";
import { AGGREGATE_TYPES, EVENT_CATALOGUE, EVENT_TYPES, EVENTS_DEFAULT_LIMIT, isoDateTime, uuid, type EventType } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";

export const listEventsQuery = z.object({
  aggregate_id: uuid().optional(),
  event_type: z
    .string()
    .optional()
    .describe(`One event type of the catalogue (an unknown type matches nothing): ${EVENT_TYPES.join(", ")}`),
  aggregate_type: z
    .enum(AGGREGATE_TYPES)
    .optional()
    .describe("Only events about this kind of thing: job, automation (its worker's events too), sector, user, schedule, webhook, api_key"),
  since: isoDateTime().optional().describe("Inclusive lower bound on created_at"),
  until: isoDateTime().optional().describe("Exclusive upper bound on created_at"),
  ...pageQueryShape(EVENTS_DEFAULT_LIMIT),
});
export type ListEventsQuery = z.output<typeof listEventsQuery>;

/** GET /events/stream's filters: GET /events' own, the same schemas (a time window makes no sense live). */
export const eventStreamQuery = listEventsQuery.pick({ aggregate_id: true, event_type: true, aggregate_type: true });

export const LAST_EVENT_ID_HEADER = "last-event-id";

const UINT64_MAX = 2n ** 64n - 1n;

/**
 * Whether `value` is a Redis stream entry id (`<ms>-<seq>`, each at most 2⁶⁴−1) that something can
 * follow: the resume reads `XRANGE (<id> +`, which Redis refuses for the greatest id of all
 * ("ERR invalid start ID"), so that one is out of range too.
 */
function isStreamId(value: string): boolean {
  const match = /^(\d{1,20})-(\d{1,20})$/.exec(value);
  if (match === null) return false;
  const ms = BigInt(match[1]!);
  const seq = BigInt(match[2]!);
  return ms <= UINT64_MAX && seq <= UINT64_MAX && !(ms === UINT64_MAX && seq === UINT64_MAX);
}

export const eventStreamHeaders = z.object({
  [LAST_EVENT_ID_HEADER]: z
    .string()
    .optional()
    .transform((value) => (value !== undefined && isStreamId(value) ? value : undefined))
    .describe(
      "The `id` of the last message received: the stream first sends what followed it (at most 1000 events and 1 MiB, else a `reset` message), then the live events. " +
        "Browsers' EventSource sends it when it reconnects. A value that is no stream entry id is read as absent (CONTRACT §6.15)",
    ),
});

/** `job.created` → `JobCreated`, `worker.api_key_rotated` → `WorkerApiKeyRotated`: the name of a type's schemas. */
export function eventSchemaName(eventType: EventType): string {
  return eventType
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

/**
 * The Event record of one catalogue type, `<Type>Event`: its `event_type`, and the payload that
 * type carries, `<Type>Payload` (CONTRACT §6.21), so a generated client names both.
 */
function eventRecordOf(eventType: EventType) {
  const { aggregate, payload, visibility } = EVENT_CATALOGUE[eventType];
  const name = eventSchemaName(eventType);
  return z
    .object({
      id: z.uuid(),
      aggregate_id: z.uuid().describe(`The ${aggregate}'s id`),
      event_type: z.literal(eventType),
      actor_id: z.uuid().nullable().describe("The user who caused it; null for worker and system actions"),
      payload: payload.meta({ id: `${name}Payload`, description: `The payload of ${eventType}` }),
      dispatched_at: z.iso.datetime().nullable().describe("When the event relay published it to the Redis stream; null until then"),
      created_at: z.iso.datetime(),
    })
    .meta({ id: `${name}Event`, description: visibility === "admins" ? `${eventType} (admins only)` : eventType });
}

/**
 * An Event record (CONTRACT §4), one variant per type of the event catalogue, told apart by
 * `event_type` (an OpenAPI discriminator, which generated clients narrow on): for the document.
 */
export const eventRecord = z
  .discriminatedUnion("event_type", EVENT_TYPES.map(eventRecordOf) as [ReturnType<typeof eventRecordOf>, ...ReturnType<typeof eventRecordOf>[]])
  .meta({
    id: "Event",
    description: "One state change, from the outbox: one variant per event type, with its payload",
    discriminator: {
      propertyName: "event_type",
      mapping: Object.fromEntries(EVENT_TYPES.map((eventType) => [eventType, `#/components/schemas/${eventSchemaName(eventType)}Event`])),
    },
  });
/** An Event record as served: the JSON @hub/db builds from a row (the relay publishes the same). */
export type EventRecord = events.EventRecordJson;
