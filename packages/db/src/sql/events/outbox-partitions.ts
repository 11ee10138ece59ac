/**
 * The advisory locks by which relays share the outbox partitions. They are session locks, so they
 * must run on a {@link DedicatedSession} (never a pooled connection): a session's locks live as
 * long as the session, which is what hands a dead relay's partitions to the others.
 */
import type { DedicatedSession } from "../../session";

// Advisory lock keys (two-int4 form: class, object). The migration lock uses the one-bigint form,
// which PostgreSQL keeps apart from these.
const PARTITION_LOCK_CLASS = 727_002;
const RELAY_MEMBERSHIP_LOCK_CLASS = 727_003;

const TRY_LOCK_PARTITION = { name: "relay_try_lock_partition", text: "select pg_try_advisory_lock($1, $2) as locked" };
const UNLOCK_PARTITION = { name: "relay_unlock_partition", text: "select pg_advisory_unlock($1, $2) as unlocked" };
const JOIN_RELAY_GROUP = { name: "relay_join_group", text: "select pg_advisory_lock_shared($1, 0)" };
const COUNT_LIVE_RELAYS = {
  name: "relay_count_live",
  text: `select count(distinct pid)::int as relays
  from pg_locks
 where locktype = 'advisory' and granted
   and database = (select oid from pg_database where datname = current_database())
   and classid = $1 and objid = 0 and objsubid = 2`,
};

/** Takes partition `partition` for this session when no other session holds it. */
export async function tryLockOutboxPartition(session: DedicatedSession, partition: number): Promise<boolean> {
  const { rows } = await session.query<{ locked: boolean }>({ ...TRY_LOCK_PARTITION, values: [PARTITION_LOCK_CLASS, partition] });
  return rows[0]?.locked === true;
}

/** Gives partition `partition` back (after its in-flight batch was stamped). */
export async function unlockOutboxPartition(session: DedicatedSession, partition: number): Promise<void> {
  await session.query({ ...UNLOCK_PARTITION, values: [PARTITION_LOCK_CLASS, partition] });
}

/** Registers this session as a live relay (a shared lock: every relay holds it at once). */
export async function joinRelayGroup(session: DedicatedSession): Promise<void> {
  await session.query({ ...JOIN_RELAY_GROUP, values: [RELAY_MEMBERSHIP_LOCK_CLASS] });
}

/** Number of live relays on this database: the sessions holding the membership lock. */
export async function countLiveRelays(session: DedicatedSession): Promise<number> {
  const { rows } = await session.query<{ relays: number }>({ ...COUNT_LIVE_RELAYS, values: [RELAY_MEMBERSHIP_LOCK_CLASS] });
  return rows[0]?.relays ?? 0;
}
