/**
 * The login throttle's counts (CONTRACT §6.15), held in PostgreSQL and sliding by its clock.
 *
 * A subject (an e-mail, an e-mail and address pair, an address) has a row whose `attempts` are its
 * recent attempts. {@link addLoginAttempt} locks the rows of every subject an attempt counts for,
 * in one order, then adds the attempt to all of them or to none: concurrent attempts queue on the
 * row locks, so a burst of guesses sees each other's counts (the earlier code read a count before
 * the password check and wrote it after, and 40 concurrent guesses all passed a limit of 10).
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { queryBuilder, withTransaction, type Executor } from "../../executor";

/** How many attempts one subject may have within its window. */
export interface LoginAttemptLimit {
  subject: string;
  /** At most this many attempts in the window; 0 = no limit (the subject is not counted). */
  max: number;
  windowSeconds: number;
  /**
   * false: the attempt is counted but this limit does not refuse it (the per-e-mail limit for an
   * address that signed in as that e-mail recently).
   */
  enforced: boolean;
}

export type LoginAttemptAdmission =
  /** `at` names the added attempt for {@link removeLoginAttempt} (PostgreSQL's text, exact to the microsecond). */
  | { admitted: true; at: string }
  /** `subject` is the first limit that refused; nothing was added anywhere. */
  | { admitted: false; subject: string; retryAfterSeconds: number };

/** At most this many rows whose windows have passed are removed per attempt (see {@link pruneLoginThrottle}). */
const PRUNE_BATCH = 100;

/**
 * Adds one attempt to every limit's subject, unless that would make more than `max` attempts
 * within the window for any enforced limit: then adds nothing and answers when the oldest counted
 * attempt of the refusing subject leaves its window. Each subject keeps at most `max` attempts (a
 * not-enforced one may be full: its oldest is dropped).
 */
export async function addLoginAttempt(executor: Executor, limits: LoginAttemptLimit[]): Promise<LoginAttemptAdmission> {
  const db = queryBuilder(executor);
  const counted = limits.filter((limit) => limit.max > 0).sort((a, b) => (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
  if (counted.length === 0) {
    const [row] = (await db.execute<{ at: string }>(sql`select clock_timestamp()::text as at`)).rows;
    return { admitted: true, at: row!.at };
  }
  const subjects = counted.map((limit) => limit.subject);
  return withTransaction(executor, async (client) => {
    const tx = queryBuilder(client);
    await tx.execute(sql`insert into login_attempt_windows (subject) select unnest(${sql.param(subjects)}::text[]) on conflict do nothing`);
    // One lock order (by subject) for every caller: two attempts never wait on each other in a cycle.
    await tx.execute(sql`select 1 from login_attempt_windows where subject = any(${sql.param(subjects)}::text[]) order by subject for update`);
    // A statement after the lock sees every attempt committed before it (READ COMMITTED).
    const { rows } = await tx.execute<{ refused_by: string | null; retry_after: string | null; at: string }>(sql`
      with limits as (
        select * from unnest(${sql.param(subjects)}::text[], ${sql.param(counted.map((l) => l.max))}::int[], ${sql.param(counted.map((l) => l.windowSeconds))}::int[],
                             ${sql.param(counted.map((l) => l.enforced))}::boolean[])
          as l(subject, max_count, window_seconds, enforced)
      ),
      moment as materialized (select clock_timestamp() as at),
      live as (
        select w.subject, l.max_count, l.window_seconds, l.enforced,
               array(select a from unnest(w.attempts) a where a > (select at from moment) - make_interval(secs => l.window_seconds) order by a) as attempts
          from login_attempt_windows w join limits l using (subject)
      ),
      refusal as (
        -- The attempt that must leave the window before one more fits: the oldest when the subject is exactly full.
        select subject,
               greatest(1, ceil(extract(epoch from attempts[cardinality(attempts) - max_count + 1]
                                      + make_interval(secs => window_seconds) - (select at from moment)))) as retry_after
          from live where enforced and cardinality(attempts) >= max_count
          order by subject limit 1
      ),
      added as (
        update login_attempt_windows w
           set attempts = (live.attempts || (select at from moment))[greatest(1, cardinality(live.attempts) + 2 - live.max_count):],
               updated_at = (select at from moment)
          from live
         where w.subject = live.subject and not exists (select 1 from refusal)
        returning w.subject
      )
      select (select subject from refusal) as refused_by, (select retry_after from refusal)::text as retry_after,
             (select at from moment)::text as at, (select count(*) from added) as added
    `);
    const row = rows[0]!;
    if (row.refused_by !== null) return { admitted: false, subject: row.refused_by, retryAfterSeconds: Number(row.retry_after) };
    return { admitted: true, at: row.at };
  });
}

/** Takes back an attempt {@link addLoginAttempt} added (`at` as it answered) from `subject`'s count. */
export async function removeLoginAttempt(executor: Executor, subject: string, at: string): Promise<void> {
  const db = queryBuilder(executor);
  await db.execute(sql`update login_attempt_windows set attempts = array_remove(attempts, ${at}::timestamptz) where subject = ${subject}`);
}

/** Forgets every attempt of these subjects. */
export async function clearLoginAttempts(executor: Executor, subjects: string[]): Promise<void> {
  const db = queryBuilder(executor);
  await db.execute(sql`delete from login_attempt_windows where subject = any(${sql.param(subjects)}::text[])`);
}

/** An e-mail as the throttle names it: trimmed, lower-cased, SHA-256 in hex (e-mails never become readable rows). */
export function loginEmailDigest(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase(), "utf8").digest("hex");
}

/** The subjects an attempt counts for. `address` is already reduced (an IPv6 address to its /64). */
export const loginThrottleSubjects = {
  email: (email: string) => `email:${loginEmailDigest(email)}`,
  pair: (email: string, address: string) => `pair:${loginEmailDigest(email)}:${address}`,
  address: (address: string) => `address:${address}`,
};

/**
 * Forgets the failed logins of `email`, over every address (CONTRACT §6.15: a password reset
 * clears the e-mail's count). Needs only the database, so a CLI can call it.
 */
export async function clearLoginFailuresForEmail(executor: Executor, email: string): Promise<void> {
  const db = queryBuilder(executor);
  const digest = loginEmailDigest(email);
  await db.execute(sql`delete from login_attempt_windows where subject = ${`email:${digest}`} or subject like ${`pair:${digest}:%`}`);
}

/** Remembers that `email` signed in from `address` now. */
export async function recordLoginAddress(executor: Executor, email: string, address: string): Promise<void> {
  const db = queryBuilder(executor);
  await db.execute(sql`
    insert into login_known_addresses (email_digest, address) values (${loginEmailDigest(email)}, ${address})
    on conflict (email_digest, address) do update set signed_in_at = now()
  `);
}

/** Whether `email` signed in from `address` within the last `days` days. */
export async function signedInFrom(executor: Executor, email: string, address: string, days: number): Promise<boolean> {
  const db = queryBuilder(executor);
  const { rows } = await db.execute(sql`
    select 1 from login_known_addresses
     where email_digest = ${loginEmailDigest(email)} and address = ${address} and signed_in_at > now() - make_interval(days => ${days})
  `);
  return rows.length > 0;
}

/**
 * Removes a few rows whose windows have passed (`olderThanSeconds` after their last attempt) and
 * sign-in addresses older than `knownForDays`: called along with attempts, so the tables stay as
 * small as the recent traffic without a sweeper of their own.
 */
export async function pruneLoginThrottle(executor: Executor, olderThanSeconds: number, knownForDays: number): Promise<void> {
  const db = queryBuilder(executor);
  await db.execute(sql`
    delete from login_attempt_windows where subject in (
      select subject from login_attempt_windows where updated_at < now() - make_interval(secs => ${olderThanSeconds})
       order by updated_at limit ${PRUNE_BATCH} for update skip locked)
  `);
  await db.execute(sql`
    delete from login_known_addresses where (email_digest, address) in (
      select email_digest, address from login_known_addresses where signed_in_at < now() - make_interval(days => ${knownForDays})
       order by signed_in_at limit ${PRUNE_BATCH} for update skip locked)
  `);
}
