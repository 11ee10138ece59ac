/**
 * The statements behind the relay's scan floor: a position below which no undispatched event
 * exists or can still appear, so that reads skip the dead (stamped, not yet vacuumed) entries of
 * the partial index below it. The argument is in apps/event-relay/README.md ("Scan floor").
 * Named prepared statements: the relay runs them every `scanFloorRefreshMs` (250 ms).
 */
import type { Executor } from "../../executor";

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

const LAST_POSITION = {
  name: "relay_last_position",
  text: `select pg_sequence_last_value(pg_get_serial_sequence('events', 'position')::regclass)::int8 as "lastPosition"`,
};

// Only this database's sessions can write its events; a long transaction elsewhere must not hold
// the floor back.
const RUNNING_TRANSACTIONS = {
  name: "relay_running_transactions",
  text: `select l.virtualxid
  from pg_locks l
  join pg_stat_activity a on a.pid = l.pid
 where l.locktype = 'virtualxid' and l.granted and a.datname = current_database()`,
};

/** The last position handed out (0 before the first event): while it stays the same, no event can appear. */
export async function lastOutboxPosition(db: Executor): Promise<number> {
  const { rows } = await db.query<{ lastPosition: number | null }>(LAST_POSITION);
  return Number(rows[0]?.lastPosition ?? 0);
}

/**
 * Reads an {@link OutboxHorizon}. Two statements, in this order: a transaction that drew a
 * position before the first one is still running during the second (and is listed) or has ended.
 * Every transaction holds the lock on its own virtual id from its start, before any write, so
 * this holds whatever the transaction did first (unlike a check on real xids, which a
 * transaction only gets at its first write).
 */
export async function readOutboxHorizon(db: Executor): Promise<OutboxHorizon> {
  const sequence = await db.query<{ lastPosition: number | null }>(LAST_POSITION);
  const running = await db.query<{ virtualxid: string }>(RUNNING_TRANSACTIONS);
  return {
    lastPosition: sequence.rows[0]?.lastPosition ?? 0,
    runningTransactions: running.rows.map((row) => row.virtualxid),
  };
}

const HORIZON_OPEN = {
  name: "relay_horizon_open",
  text: `select exists (select 1 from pg_locks where locktype = 'virtualxid' and virtualxid = any($1::text[]))
    or exists (select 1 from pg_prepared_xacts where database = current_database()) as open`,
};

/** Whether any transaction of `horizon` is still running (or any prepared transaction exists). */
export async function isOutboxHorizonOpen(db: Executor, horizon: OutboxHorizon): Promise<boolean> {
  const { rows } = await db.query<{ open: boolean }>({ ...HORIZON_OPEN, values: [horizon.runningTransactions] });
  return rows[0]?.open !== false;
}

const LOWEST_UNDISPATCHED = {
  name: "relay_lowest_undispatched",
  text: `select position
  from events
 where dispatched_at is null and position >= $1 and position <= $2
 order by position
 limit 1`,
};

/**
 * The lowest undispatched position in `[from, to]`, or null when there is none. After the
 * horizon of `to` closed (see {@link isOutboxHorizonOpen}), the result (or `to + 1`) is a scan
 * floor: no undispatched row, now or later, has a lower position.
 */
export async function lowestUndispatchedPosition(db: Executor, range: { from: number; to: number }): Promise<number | null> {
  const { rows } = await db.query<{ position: number }>({ ...LOWEST_UNDISPATCHED, values: [range.from, range.to] });
  return rows[0]?.position ?? null;
}

const POSITION_SEQUENCE_CACHE = {
  name: "relay_position_sequence_cache",
  text: `select seqcache::int as cache from pg_sequence where seqrelid = pg_get_serial_sequence('events', 'position')::regclass`,
};

/**
 * Whether the position sequence hands out values one at a time (CACHE 1, as the migration makes
 * it). With a cache, a session could use a pre-drawn, lower position after a horizon was read,
 * so a scan floor would not be safe.
 */
export async function isPositionSequenceUncached(db: Executor): Promise<boolean> {
  const { rows } = await db.query<{ cache: number }>(POSITION_SEQUENCE_CACHE);
  return rows[0]?.cache === 1;
}
