import { listEvents as selectEvents, toEventRecordJson, type DbOrTx, type HubEvent } from "@hub/db";
import type { EventRecord, ListEventsQuery } from "./events.schemas";

/** The record shape is defined once in @hub/db (the relay publishes the same JSON). */
const toEventRecord: (event: HubEvent) => EventRecord = toEventRecordJson;

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
