/**
 * The event relay's hot statements: read undispatched outbox events of the partitions a relay
 * owns, stamp `dispatched_at`, and measure the backlog. The scan floor's statements are in
 * `outbox-scan-floor.ts`, the partition locks in `outbox-partitions.ts`.
 *
 * Every statement here is plain SQL run as a named prepared statement (`{ name, text, values }`):
 * the relay probes every few milliseconds, and a statement PostgreSQL has already parsed and
 * planned on that connection costs a fraction of one built and planned every time. They take a
 * {@link Executor} (a pool or a session), never a drizzle handle: no query is built per batch.
 *
 * Partitions: an aggregate's events all fall in one partition, `(last byte of aggregate_id) % 32`.
 * A relay publishes a partition only while it holds that partition's session advisory lock, so at
 * most one relay at a time reads and publishes a given aggregate (see apps/event-relay/README.md).
 */
import type { HubEvent } from "../../schema";
import type { Executor } from "../../executor";

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

/**
 * The oldest undispatched events of `partitions`, in insertion (`position`) order, at most
 * `limit`, from position `fromPosition` on. Uses the partial index `events_undispatched_idx`.
 *
 * Never pass a high-water mark as `fromPosition` (such as the last position published): a row
 * with a lower position may commit after one with a higher position, and must still be found.
 * Pass 0 or a scan floor from `lowestUndispatchedPosition` only.
 */
export async function selectUndispatched(db: Executor, options: { partitions: readonly number[]; limit: number; fromPosition?: number }): Promise<HubEvent[]> {
  if (options.partitions.length === 0) return [];
  // The relay's own statement with nothing to stamp: one statement reads the outbox, whoever asks.
  return (await stampAndSelectUndispatched(db, { ...options, stampIds: [] })).next;
}

// The stamp finds its events by primary key only: `(dispatched_at is null) is true` is not read as
// implying events_undispatched_idx's predicate, so no plan walks that index too (a BitmapAnd with
// the primary key), which read the whole backlog, dead entries included, on every stamp of a
// 40,000-job burst (apps/event-relay/test/outbox-indexes.test.ts). A row another relay
// stamped meanwhile is still skipped: the condition is rechecked on the row's latest version.
//
// The stamp also queues the event's webhook deliveries, in the same statement: a delivery exists
// exactly for the events that committed and were stamped (never one rolled back, never one
// missed), and the stamp never waits for an endpoint. Only the rows this statement stamps get
// deliveries, so an event two relays published is queued once. A subscription gets every event
// stamped once it is visible (no cut-off by time: a subscription committing while the relay stamps
// an event written after it began must not miss that event; the price is that while the relay
// catches up a backlog, a new subscription also gets events written shortly before it). The
// subscriptions are read without a lock, so the stamp never waits for webhook bookkeeping; a
// delivery queued for a subscription disabled or deleted at that very moment is failed by the
// delivery loop's sweep (webhookDeliveries.failPendingOfInactiveWebhooks).
const STAMP_CTES = `stamped as (
  update events
     set dispatched_at = clock_timestamp()
   where id = any($1::uuid[]) and (dispatched_at is null) is true
  returning id, position, aggregate_id, event_type, created_at, dispatched_at
), queued as (
  insert into webhook_deliveries (webhook_id, event_id, aggregate_id, event_position, next_attempt_at)
  select w.id, s.id, s.aggregate_id, s.position, s.dispatched_at
    from stamped s
    join webhooks w on w.disabled_at is null and w.deleted_at is null
                   and (s.event_type = any(w.event_types) or '*' = any(w.event_types))
  on conflict (webhook_id, event_id) do nothing
  returning 1
)`;

const MARK_DISPATCHED = {
  name: "relay_mark_dispatched",
  text: `with ${STAMP_CTES}
select extract(epoch from dispatched_at - created_at)::float8 as "lagSeconds", (select count(*) from queued)::int as "webhookDeliveries"
  from stamped`,
};

/**
 * Stamps the events of `$1` and reads the next batch, in one statement (one round trip and one
 * transaction per relay batch rather than two). All its parts see one snapshot, in which the rows
 * being stamped still look undispatched: the read leaves them out by id. Stamp rows come after the
 * event rows, which are in position order. The read walks the partial index
 * events_undispatched_idx (position, where dispatched_at is null), entered at the scan floor $2,
 * already in position order.
 */
function stampAndSelect(name: string, partitionFilter: string, withJobTraces: boolean) {
  return {
    name,
    text: `with ${STAMP_CTES}, next_batch as (
  select ${EVENT_COLUMNS}
    from events
   where dispatched_at is null and position >= $2 and id <> all($1::uuid[])${partitionFilter}
   order by position
   limit $3
)
select false as "isStamp", n.*,${withJobTraces ? ` ${JOB_TRACEPARENT},` : ""} null::float8 as "lagSeconds", null::int as "webhookDeliveries"
  from next_batch n
union all
select true, null, null, null, null, null, null, null, null,${withJobTraces ? " null," : ""}
       extract(epoch from s.dispatched_at - s.created_at)::float8, (select count(*) from queued)::int
  from stamped s
order by "isStamp", position`,
  };
}

/**
 * For a relay that traces (CONTRACT §6.20): the stored `traceparent` of the job an event is about,
 * by one probe of jobs' primary key per event (a scalar subquery: a per-row probe whatever the
 * table's size); null for other aggregates and untraced jobs. The relay learns from it which
 * events belong to sampled traces without a read of its own per batch.
 */
const JOB_TRACEPARENT = `(select j.traceparent from jobs j where j.id = n."aggregateId") as "jobTraceparent"`;

const PARTITION_FILTER = ` and ${PARTITION_OF_AGGREGATE} = any($4::int[])`;
const STAMP_AND_SELECT = {
  all: stampAndSelect("relay_stamp_and_select_all", "", false),
  some: stampAndSelect("relay_stamp_and_select_some", PARTITION_FILTER, false),
  allTraced: stampAndSelect("relay_stamp_and_select_all_traced", "", true),
  someTraced: stampAndSelect("relay_stamp_and_select_some_traced", PARTITION_FILTER, true),
};

/** What a stamp did. */
export interface DispatchStamp {
  /** For each event this call stamped: `dispatched_at − created_at` (database clock), in seconds. */
  lagSeconds: number[];
  /** Webhook deliveries queued for those events (CONTRACT §6.7). */
  webhookDeliveries: number;
}

/**
 * Stamps `dispatched_at` on the given events, after they were published, and queues their webhook
 * deliveries for the matching active subscriptions: one statement for the whole batch. Rows
 * another relay stamped already keep their first stamp (and get no second deliveries).
 */
export async function markDispatched(db: Executor, ids: readonly string[]): Promise<DispatchStamp> {
  if (ids.length === 0) return { lagSeconds: [], webhookDeliveries: 0 };
  const { rows } = await db.query<{ lagSeconds: number; webhookDeliveries: number }>({ ...MARK_DISPATCHED, values: [ids] });
  return { lagSeconds: rows.map((row) => row.lagSeconds), webhookDeliveries: rows[0]?.webhookDeliveries ?? 0 };
}

type StampOrEventRow = HubEvent & { isStamp: boolean; lagSeconds: number | null; webhookDeliveries: number | null; jobTraceparent?: string | null };

/**
 * {@link markDispatched} of `stampIds` (the batch published last) and
 * {@link selectUndispatched} of the next batch, as one statement: the relay's steady state.
 * The next batch never holds an event of `stampIds`.
 */
export async function stampAndSelectUndispatched(
  db: Executor,
  options: {
    stampIds: readonly string[];
    partitions: readonly number[];
    limit: number;
    fromPosition?: number;
    /** Also each event's job's stored `traceparent` ({@link JOB_TRACEPARENT}): for a relay that traces. */
    withJobTraces?: boolean;
  },
): Promise<{
  stamp: DispatchStamp;
  next: HubEvent[];
  /** With `withJobTraces`: the stored `traceparent` of each job the next batch's events are about, by job id (untraced jobs left out). */
  jobTraceparents?: Map<string, string>;
}> {
  const from = options.fromPosition ?? 0;
  const all = options.partitions.length >= OUTBOX_PARTITIONS;
  const statement = options.withJobTraces
    ? all
      ? STAMP_AND_SELECT.allTraced
      : STAMP_AND_SELECT.someTraced
    : all
      ? STAMP_AND_SELECT.all
      : STAMP_AND_SELECT.some;
  const { rows } = await db.query<StampOrEventRow>({
    ...statement,
    values: all ? [options.stampIds, from, options.limit] : [options.stampIds, from, options.limit, options.partitions],
  });
  const next: HubEvent[] = [];
  const jobTraceparents = new Map<string, string>();
  const lagSeconds: number[] = [];
  let webhookDeliveries = 0;
  for (const row of rows) {
    if (row.isStamp) {
      lagSeconds.push(row.lagSeconds!);
      webhookDeliveries = row.webhookDeliveries!;
    } else {
      const { isStamp: _isStamp, lagSeconds: _lag, webhookDeliveries: _deliveries, jobTraceparent, ...event } = row;
      if (jobTraceparent) jobTraceparents.set(event.aggregateId, jobTraceparent);
      next.push(event);
    }
  }
  return { stamp: { lagSeconds, webhookDeliveries }, next, ...(options.withJobTraces ? { jobTraceparents } : {}) };
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
export async function measureOutboxBacklog(db: Executor): Promise<OutboxBacklog> {
  const { rows } = await db.query<{ undispatched: number; oldestAgeSeconds: number | null }>(MEASURE_BACKLOG);
  const row = rows[0];
  return { undispatched: row?.undispatched ?? 0, oldestAgeSeconds: Math.max(0, row?.oldestAgeSeconds ?? 0) };
}
