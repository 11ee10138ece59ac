import { type HubEvent, type KeysetPage, type KeysetPageRequest, events, type Executor, type Reach } from "@hub/db";
import { eventTypesAbout, hiddenEventFamilies, type Role } from "@hub/shared";
import type { EventRecord, ListEventsQuery } from "./events.schemas";

/** The record shape is defined once in @hub/db (the relay publishes the same JSON). */
const toEventRecord: (event: HubEvent) => EventRecord = events.toEventRecordJson;

/**
 * The event log as `readerRole` may see it, oldest first by (created_at, id); `since` inclusive,
 * `until` exclusive; `aggregate_type` keeps the catalogue's types about that kind of aggregate. The catalogue's admin-only families (`user.*` carry every user's e-mail,
 * `webhook.*` the webhook URLs, `api_key.*` other users' key names and prefixes: CONTRACT §6.1)
 * are left out for anyone else, never a 403; they are filtered in SQL, so `limit` counts visible
 * events only. A caller with a narrower `reach` sees only the events about what it reaches (CONTRACT §6.22).
 */
export async function listEvents(
  db: Executor,
  reach: Reach,
  query: ListEventsQuery,
  readerRole: Role,
  page: KeysetPageRequest,
): Promise<KeysetPage<EventRecord>> {
  const { items, next } = await events.listPage(
    db,
    reach,
    {
      hiddenTypeFamilies: hiddenEventFamilies(readerRole),
      aggregateId: query.aggregate_id,
      eventType: query.event_type,
      eventTypes: query.aggregate_type === undefined ? undefined : eventTypesAbout(query.aggregate_type),
      since: query.since,
      until: query.until,
    },
    page,
  );
  return { items: items.map(toEventRecord), next };
}
