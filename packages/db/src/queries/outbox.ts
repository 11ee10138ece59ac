/**
 * The event relay's statements: read undispatched outbox events of the partitions a relay owns,
 * stamp `dispatched_at`, move the scan floor, measure the backlog, and the advisory locks by which
 * relays share the partitions.
 *
 * Partitions: an aggregate's events all fall in one partition, `(last byte of aggregate_id) % 32`.
 * A relay publishes a partition only while it holds that partition's session advisory lock, so at
 * most one relay at a time reads and publishes a given aggregate (see apps/event-relay/README.md).
 */
import { and, asc, gte, inArray, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "../client";
import { events, type HubEvent } from "../schema";

/**
 * Number of outbox partitions. Fixed on purpose: every relay must map an aggregate to the same
 * lock, so changing it needs all relays stopped first. 32 lets up to 32 relays share the work.
 */
export const OUTBOX_PARTITIONS = 32;

/**
 * The partition of an aggregate, in SQL. The last byte of a v4 (or v7) uuid is random, so the
 * partitions are even; unlike `hashtext`, it does not depend on PostgreSQL's internal hash.
 */
const partitionOfAggregate = sql<number>`(get_byte(uuid_send(${events.aggregateId}), 15) % ${sql.raw(String(OUTBOX_PARTITIONS))})`;

function prepareUndispatchedReads(db: DbOrTx) {
  const undispatched = and(isNull(events.dispatchedAt), gte(events.position, sql.placeholder("from")));
  return {
    all: db
      .select()
      .from(events)
      .where(undispatched)
      .orderBy(asc(events.position))
      .limit(sql.placeholder("limit"))
      .prepare("relay_select_undispatched_all"),
    some: db
      .select()
      .from(events)
      .where(and(undispatched, sql`${partitionOfAggregate} = any(${sql.placeholder("partitions")}::int[])`))
      .orderBy(asc(events.position))
      .limit(sql.placeholder("limit"))
      .prepare("relay_select_undispatched_some"),
  };
}

// Prepared once per handle: the relay probes every few milliseconds while idle, and a prepared
// statement costs a third of the CPU of building and planning the query each time.
const undispatchedReads = new WeakMap<DbOrTx, ReturnType<typeof prepareUndispatchedReads>>();

/**
 * The oldest undispatched events of `partitions`, in insertion (`position`) order, at most
 * `limit`, from position `fromPosition` on. Uses the partial index `events_undispatched_idx`.
 *
 * Never pass a high-water mark as `fromPosition` (such as the last position published): a row
 * with a lower position may commit after one with a higher position, and must still be found.
 * Pass 0 or a scan floor from {@link lowestUndispatchedPosition} only.
 */
export async function selectUndispatchedEvents(
  db: DbOrTx,
  options: { partitions: readonly number[]; limit: number; fromPosition?: number },
): Promise<HubEvent[]> {
  if (options.partitions.length === 0) return [];
  let reads = undispatchedReads.get(db);
  if (!reads) {
    reads = prepareUndispatchedReads(db);
    undispatchedReads.set(db, reads);
  }
  const from = options.fromPosition ?? 0;
  return options.partitions.length >= OUTBOX_PARTITIONS
    ? reads.all.execute({ limit: options.limit, from })
    : reads.some.execute({ limit: options.limit, from, partitions: [...options.partitions] });
}

/**
 * A point in the outbox's history: the last position handed out, and the transactions running
 * just after it was read. Once all of them have ended, every row with a position up to
 * `lastPosition` is committed (visible) or rolled back: none can appear later.
 */
export interface OutboxHorizon {
  lastPosition: number;
  /** Virtual transaction ids (`backend/local`) of this database's transactions running then. */
  runningTransactions: string[];
}

/**
 * Reads an {@link OutboxHorizon}. Two statements, in this order: a transaction that drew a
 * position before the first one is still running during the second (and is listed) or has ended.
 * Every transaction holds the lock on its own virtual id from its start, before any write, so
 * this holds whatever the transaction did first (unlike a check on real xids, which a
 * transaction only gets at its first write).
 */
export async function readOutboxHorizon(db: DbOrTx): Promise<OutboxHorizon> {
  const sequence = await db.execute<{ last_position: number | null }>(
    sql`select pg_sequence_last_value(pg_get_serial_sequence('events', 'position')::regclass)::int8 as last_position`,
  );
  // Only this database's sessions can write its events; a long transaction elsewhere must not
  // hold the floor back.
  const running = await db.execute<{ virtualxid: string }>(sql`
    select l.virtualxid
      from pg_locks l
      join pg_stat_activity a on a.pid = l.pid
     where l.locktype = 'virtualxid' and l.granted and a.datname = current_database()
  `);
  return {
    lastPosition: sequence.rows[0]?.last_position ?? 0,
    runningTransactions: running.rows.map((row) => row.virtualxid),
  };
}

/** Whether any transaction of `horizon` is still running (or any prepared transaction exists). */
export async function isOutboxHorizonOpen(db: DbOrTx, horizon: OutboxHorizon): Promise<boolean> {
  const result = await db.execute<{ open: boolean }>(sql`
    select exists (
             select 1 from pg_locks
              where locktype = 'virtualxid' and virtualxid = any(${`{${horizon.runningTransactions.join(",")}}`}::text[])
           )
        or exists (select 1 from pg_prepared_xacts where database = current_database()) as open
  `);
  return result.rows[0]?.open !== false;
}

/**
 * The lowest undispatched position in `[from, to]`, or null when there is none. After the
 * horizon of `to` closed (see {@link isOutboxHorizonOpen}), the result (or `to + 1`) is a scan
 * floor: no undispatched row, now or later, has a lower position.
 */
export async function lowestUndispatchedPosition(db: DbOrTx, range: { from: number; to: number }): Promise<number | null> {
  const [row] = await db
    .select({ position: events.position })
    .from(events)
    .where(and(isNull(events.dispatchedAt), gte(events.position, range.from), sql`${events.position} <= ${range.to}`))
    .orderBy(asc(events.position))
    .limit(1);
  return row?.position ?? null;
}

/**
 * Whether the position sequence hands out values one at a time (CACHE 1, as the migration makes
 * it). With a cache, a session could use a pre-drawn, lower position after a horizon was read,
 * so a scan floor would not be safe.
 */
export async function isPositionSequenceUncached(db: DbOrTx): Promise<boolean> {
  const result = await db.execute<{ cache: number }>(
    sql`select seqcache::int as cache from pg_sequence where seqrelid = pg_get_serial_sequence('events', 'position')::regclass`,
  );
  return result.rows[0]?.cache === 1;
}

/**
 * Stamps `dispatched_at` on the given events, after they were published. Rows another relay
 * stamped already keep their first stamp. Returns, for the rows this call stamped, the relay lag
 * (`dispatched_at − created_at`, both from the database clock) in seconds.
 */
export async function markEventsDispatched(db: DbOrTx, ids: readonly string[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .update(events)
    .set({ dispatchedAt: sql`clock_timestamp()` })
    .where(and(inArray(events.id, [...ids]), isNull(events.dispatchedAt)))
    .returning({ lagSeconds: sql<number>`extract(epoch from ${events.dispatchedAt} - ${events.createdAt})::float8` });
  return rows.map((row) => row.lagSeconds);
}

export interface OutboxBacklog {
  /** Events not yet dispatched. */
  undispatched: number;
  /** Age in seconds of the oldest undispatched event; 0 when there is none. */
  oldestAgeSeconds: number;
}

/** The relay's backlog, for its metrics (both read through the partial index). */
export async function measureOutboxBacklog(db: DbOrTx): Promise<OutboxBacklog> {
  const result = await db.execute<{ undispatched: number; oldest_age_seconds: number | null }>(sql`
    select
      (select count(*) from ${events} where ${events.dispatchedAt} is null)::int as undispatched,
      extract(epoch from clock_timestamp() - (
        select ${events.createdAt} from ${events} where ${events.dispatchedAt} is null order by ${events.position} limit 1
      ))::float8 as oldest_age_seconds
  `);
  const row = result.rows[0];
  return { undispatched: row?.undispatched ?? 0, oldestAgeSeconds: Math.max(0, row?.oldest_age_seconds ?? 0) };
}

/**
 * A dedicated PostgreSQL session (a `pg.Client`, never a pooled connection): session advisory locks
 * live as long as the session, which is what hands a dead relay's partitions to the others.
 */
export interface LockSession {
  query<Row extends object>(text: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

// Advisory lock keys (two-int4 form: class, object). The migration lock uses the one-bigint form,
// which PostgreSQL keeps apart from these.
const PARTITION_LOCK_CLASS = 727_002;
const RELAY_MEMBERSHIP_LOCK_CLASS = 727_003;

/** Takes partition `partition` for this session when no other session holds it. */
export async function tryLockOutboxPartition(session: LockSession, partition: number): Promise<boolean> {
  const { rows } = await session.query<{ locked: boolean }>("select pg_try_advisory_lock($1, $2) as locked", [
    PARTITION_LOCK_CLASS,
    partition,
  ]);
  return rows[0]?.locked === true;
}

/** Gives partition `partition` back (after its in-flight batch was stamped). */
export async function unlockOutboxPartition(session: LockSession, partition: number): Promise<void> {
  await session.query("select pg_advisory_unlock($1, $2)", [PARTITION_LOCK_CLASS, partition]);
}

/** Registers this session as a live relay (a shared lock: every relay holds it at once). */
export async function joinRelayGroup(session: LockSession): Promise<void> {
  await session.query("select pg_advisory_lock_shared($1, 0)", [RELAY_MEMBERSHIP_LOCK_CLASS]);
}

/** Number of live relays on this database: the sessions holding the membership lock. */
export async function countLiveRelays(session: LockSession): Promise<number> {
  const { rows } = await session.query<{ relays: number }>(
    `select count(distinct pid)::int as relays
       from pg_locks
      where locktype = 'advisory' and granted
        and database = (select oid from pg_database where datname = current_database())
        and classid = $1 and objid = 0 and objsubid = 2`,
    [RELAY_MEMBERSHIP_LOCK_CLASS],
  );
  return rows[0]?.relays ?? 0;
}
