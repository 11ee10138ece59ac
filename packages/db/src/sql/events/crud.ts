import { and, eq, gte, inArray, lt, notLike, type SQL } from "drizzle-orm";
import { EVENTS_DEFAULT_LIMIT, type EventPayload, type EventType } from "@hub/shared";
import { events, type HubEvent } from "../../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { EVERYWHERE, eventReached, type Reach } from "../../reach";

/**
 * An outbox event to write, typed by the catalogue of @hub/shared: the payload is the one its
 * event type defines (`NewEvent<"job.cancelled">`; plain `NewEvent` is any of them).
 */
export type NewEvent<T extends EventType = EventType> = {
  [K in T]: { eventType: K; aggregateId: string; actorId: string | null; payload: EventPayload<K> };
}[T];

/**
 * Writes one outbox event. Call it with the transaction that makes the change the event
 * describes, after that change's row was written (its row lock orders same-aggregate events).
 */
export async function record(executor: Executor, event: NewEvent): Promise<void> {
  const tx = queryBuilder(executor);
  await tx.insert(events).values(event);
}

/** Writes several outbox events in one statement, in the given order. */
export async function recordMany(executor: Executor, batch: NewEvent[]): Promise<void> {
  const tx = queryBuilder(executor);
  if (batch.length > 0) await tx.insert(events).values(batch);
}

export interface EventFilter {
  aggregateId?: string | undefined;
  eventType?: string | undefined;
  /** Only these event types (GET /events' `aggregate_type`: the types about that kind of aggregate). */
  eventTypes?: readonly string[] | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
  /**
   * Event type families the reader may not see (`"user"` hides `user.*`). Filtered in the
   * statement, so `limit` counts only visible events.
   */
  hiddenTypeFamilies?: readonly string[] | undefined;
  /** {@link list} only (a page's size is its request's): the most rows, {@link EVENTS_DEFAULT_LIMIT} by default. */
  limit?: number | undefined;
}

/** GET /events: oldest first by (created_at, id). */
export const EVENTS_LIST_ORDER: KeysetOrder = { createdAt: events.createdAt, id: events.id, direction: "oldest first" };

/** GET /events: oldest first by (created_at, id); `since` inclusive, `until` exclusive. */
export async function listPage(executor: Executor, reach: Reach, filter: EventFilter, page: KeysetPageRequest): Promise<KeysetPage<HubEvent>> {
  const db = queryBuilder(executor);
  const conditions: SQL[] = [];
  const reached = eventReached(reach, events);
  if (reached) conditions.push(reached);
  if (filter.aggregateId !== undefined) conditions.push(eq(events.aggregateId, filter.aggregateId));
  if (filter.eventType !== undefined) conditions.push(eq(events.eventType, filter.eventType));
  if (filter.eventTypes !== undefined) conditions.push(inArray(events.eventType, [...filter.eventTypes]));
  if (filter.since) conditions.push(gte(events.createdAt, filter.since));
  if (filter.until) conditions.push(lt(events.createdAt, filter.until));
  for (const family of filter.hiddenTypeFamilies ?? []) conditions.push(notLike(events.eventType, `${family}.%`));
  return keysetPage(
    EVENTS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(events)
        .where(and(...conditions, after))
        .orderBy(...orderBy)
        .limit(limit),
    (event) => event,
  );
}

/** The first `limit` events of {@link listPage}'s order, every one reached (the relay's tests read the log this way). */
export async function list(executor: Executor, filter: EventFilter): Promise<HubEvent[]> {
  return (await listPage(executor, EVERYWHERE, filter, { limit: filter.limit ?? EVENTS_DEFAULT_LIMIT })).items;
}

/** An Event record of CONTRACT §4 as JSON: what GET /events serves and the relay's stream `data`. */
export interface EventRecordJson {
  id: string;
  aggregate_id: string;
  event_type: string;
  actor_id: string | null;
  payload: Record<string, unknown>;
  dispatched_at: string | null;
  created_at: string;
}

export function toEventRecordJson(event: HubEvent): EventRecordJson {
  return {
    id: event.id,
    aggregate_id: event.aggregateId,
    event_type: event.eventType,
    actor_id: event.actorId,
    payload: event.payload,
    dispatched_at: event.dispatchedAt?.toISOString() ?? null,
    created_at: event.createdAt.toISOString(),
  };
}
