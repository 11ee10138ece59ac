/**
 * The event relay's hot statements: read undispatched outbox events of the partitions a relay
 * owns, stamp `dispatched_at`, and measure the backlog. The scan floor's statements are in
 * `outbox-scan-floor.ts`, the partition locks in `outbox-partitions.ts`.
 *
 * Every statement here is plain SQL run as a named prepared statement (`{ name, text, values }`):
 * the relay probes every few milliseconds, and a statement PostgreSQL has already parsed and
 * planned on that connection costs a fraction of one built and planned every time. They take a
 * {@link SqlQueryable} (a pool or a session), never a drizzle handle: no query is built per batch.
 *
 * Partitions: an aggregate's events all fall in one partition, `(last byte of aggregate_id) % 32`.
 * A relay publishes a partition only while it holds that partition's session advisory lock, so at
 * most one relay at a time reads and publishes a given aggregate (see apps/event-relay/README.md).
 */
import type { HubEvent } from "../schema";
import type { SqlQueryable } from "../session";

/**
 * Number of outbox partitions. Fixed on purpose: every relay must map an aggregate to the same
 * lock, so changing it needs all relays stopped first. 32 lets up to 32 relays share the work.
 */
export const OUTBOX_PARTITIONS = 32;

/**
 * The columns of a {@link HubEvent}, aliased to its property names so that pg's rows are the
 * records themselves (no mapping per row). Timestamps arrive as `Date`, `position` (int8) as a
 * number (see client.ts), `payload` (jsonb) as an object.
 */
const EVENT_COLUMNS = `id, position, aggregate_id as "aggregateId", event_type as "eventType", actor_id as "actorId",
       payload, created_at as "createdAt", dispatched_at as "dispatchedAt"`;

/**
 * The partition of an aggregate. The last byte of a v4 (or v7) uuid is random, so the partitions
 * are even; unlike `hashtext`, it does not depend on PostgreSQL's internal hash.
 */
const PARTITION_OF_AGGREGATE = `(get_byte(uuid_send(aggregate_id), 15) % ${OUTBOX_PARTITIONS})`;

// Both read through the partial index events_undispatched_idx (position) where dispatched_at is
// null, entered at the scan floor $1, already in position order.
const SELECT_UNDISPATCHED_ALL = {
  name: "relay_select_undispatched_all",
  text: `select ${EVENT_COLUMNS}
  from events
 where dispatched_at is null and position >= $1
 order by position
 limit $2`,
};
const SELECT_UNDISPATCHED_SOME = {
  name: "relay_select_undispatched_some",
  text: `select ${EVENT_COLUMNS}
  from events
 where dispatched_at is null and position >= $1 and ${PARTITION_OF_AGGREGATE} = any($3::int[])
 order by position
 limit $2`,
};

/**
 * The oldest undispatched events of `partitions`, in insertion (`position`) order, at most
 * `limit`, from position `fromPosition` on. Uses the partial index `events_undispatched_idx`.
 *
 * Never pass a high-water mark as `fromPosition` (such as the last position published): a row
 * with a lower position may commit after one with a higher position, and must still be found.
 * Pass 0 or a scan floor from `lowestUndispatchedPosition` only.
 */
export async function selectUndispatchedEvents(
  db: SqlQueryable,
  options: { partitions: readonly number[]; limit: number; fromPosition?: number },
): Promise<HubEvent[]> {
  if (options.partitions.length === 0) return [];
  const from = options.fromPosition ?? 0;
  const { rows } =
    options.partitions.length >= OUTBOX_PARTITIONS
      ? await db.query<HubEvent>({ ...SELECT_UNDISPATCHED_ALL, values: [from, options.limit] })
      : await db.query<HubEvent>({ ...SELECT_UNDISPATCHED_SOME, values: [from, options.limit, options.partitions] });
  return rows;
}

const MARK_DISPATCHED = {
  name: "relay_mark_dispatched",
  text: `update events
   set dispatched_at = clock_timestamp()
 where id = any($1::uuid[]) and dispatched_at is null
returning extract(epoch from dispatched_at - created_at)::float8 as "lagSeconds"`,
};

/**
 * Stamps `dispatched_at` on the given events, after they were published: one statement for the
 * whole batch. Rows another relay stamped already keep their first stamp. Returns, for the rows
 * this call stamped, the relay lag (`dispatched_at − created_at`, both from the database clock)
 * in seconds.
 */
export async function markEventsDispatched(db: SqlQueryable, ids: readonly string[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ lagSeconds: number }>({ ...MARK_DISPATCHED, values: [ids] });
  return rows.map((row) => row.lagSeconds);
}

export interface OutboxBacklog {
  /** Events not yet dispatched. */
  undispatched: number;
  /** Age in seconds of the oldest undispatched event; 0 when there is none. */
  oldestAgeSeconds: number;
}

const MEASURE_BACKLOG = {
  name: "relay_measure_backlog",
  text: `select (select count(*) from events where dispatched_at is null)::int as undispatched,
       extract(epoch from clock_timestamp() - (
         select created_at from events where dispatched_at is null order by position limit 1
       ))::float8 as "oldestAgeSeconds"`,
};

/** The relay's backlog, for its metrics (both read through the partial index). */
export async function measureOutboxBacklog(db: SqlQueryable): Promise<OutboxBacklog> {
  const { rows } = await db.query<{ undispatched: number; oldestAgeSeconds: number | null }>(MEASURE_BACKLOG);
  const row = rows[0];
  return { undispatched: row?.undispatched ?? 0, oldestAgeSeconds: Math.max(0, row?.oldestAgeSeconds ?? 0) };
}
