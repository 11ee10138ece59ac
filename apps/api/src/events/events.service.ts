import { listEvents as selectEvents, type DbOrTx, type HubEvent } from "@hub/db";
import type { EventRecord, ListEventsQuery } from "./events.schemas";

export function toEventRecord(event: HubEvent): EventRecord {
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

/** The event log, oldest first by (created_at, id); `since` inclusive, `until` exclusive. */
export async function listEvents(db: DbOrTx, query: ListEventsQuery): Promise<EventRecord[]> {
  const rows = await selectEvents(db, {
    aggregateId: query.aggregate_id,
    eventType: query.event_type,
    since: query.since,
    until: query.until,
    limit: query.limit,
  });
  return rows.map(toEventRecord);
}
