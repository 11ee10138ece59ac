/**
 * The dispatchers' work on maintenance windows (CONTRACT §6.18), in every dispatcher, with no leader
 * (apps/dispatcher/src/tasks/maintenance.ts runs them):
 * - {@link writeDueStarts} / {@link writeDueEnds}: each occurrence's `maintenance_window.started` and
 *   `.ended`, written in the statement that stamps its row (`started_at`, `ended_at`); rows are
 *   taken FOR UPDATE SKIP LOCKED and the stamp is re-checked under the lock, so each is written once
 *   whatever the number of dispatchers;
 * - {@link fillAhead}: the recurring windows whose occurrences reach less than a day short of
 *   {@link OCCURRENCES_AHEAD_MS} ahead get the next ones (windows locked SKIP LOCKED; a PUT holds
 *   its window's row, so a fill never writes beside a rewrite);
 * - {@link pruneEnded}: rows ended more than a day ago go (no reader needs them).
 */
import { sql } from "drizzle-orm";
import { queryBuilder, withTransaction, type Executor } from "../../executor";
import { OCCURRENCES_AHEAD_MS, isoText, recurringSpans, timestampArray, type TimetableOf } from "./occurrences";

/** A window is filled again once its occurrences reach less than this far short of {@link OCCURRENCES_AHEAD_MS}. */
const REFILL_SLACK = "1 hour";

/** An occurrence whose start or end was just written, and the scope it held. */
export interface OccurrenceEdge {
  windowId: string;
  scopeId: string;
}

async function writeDue(executor: Executor, edge: "started" | "ended", limit: number): Promise<OccurrenceEdge[]> {
  const db = queryBuilder(executor);
  const due =
    edge === "started"
      ? sql`select window_id, starts_at from maintenance_occurrences where started_at is null and starts_at <= now() order by starts_at limit ${limit} for update skip locked`
      : sql`select window_id, starts_at from maintenance_occurrences where ended_at is null and started_at is not null and ends_at <= now() order by ends_at limit ${limit} for update skip locked`;
  const stamp = edge === "started" ? sql.raw("started_at = now()") : sql.raw("ended_at = now()");
  const eventType = `maintenance_window.${edge}`;
  const result = await db.execute<{ window_id: string; scope_id: string }>(sql`
    with due as (${due}),
    stamped as (
      update maintenance_occurrences o set ${stamp}
      from due where o.window_id = due.window_id and o.starts_at = due.starts_at
      returning o.window_id, o.starts_at, o.ends_at, o.scope_id
    ), written as (
      insert into events (aggregate_id, event_type, actor_id, payload)
      select s.window_id, ${eventType}, null, jsonb_build_object('starts_at', ${sql.raw(isoText("s.starts_at"))}, 'ends_at', ${sql.raw(isoText("s.ends_at"))})
      from stamped s order by s.starts_at
    )
    select window_id, scope_id from stamped`);
  return result.rows.map((row) => ({ windowId: row.window_id, scopeId: row.scope_id }));
}

/** Writes `.started` of up to `limit` occurrences that began and have none yet. */
export const writeDueStarts = (executor: Executor, limit: number) => writeDue(executor, "started", limit);

/** Writes `.ended` of up to `limit` started occurrences that ended and have none yet. */
export const writeDueEnds = (executor: Executor, limit: number) => writeDue(executor, "ended", limit);

/** Milliseconds (PostgreSQL's clock) until the next start or end to write; null when none is ahead. */
export async function msUntilNextEdge(executor: Executor): Promise<number | null> {
  const db = queryBuilder(executor);
  const result = await db.execute<{ ms: number | null }>(sql`
    select extract(epoch from least(
      (select min(starts_at) from maintenance_occurrences where started_at is null),
      (select min(ends_at) from maintenance_occurrences where ended_at is null)
    ) - now())::float8 * 1000 as ms`);
  const ms = result.rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}

interface FillRow extends Record<string, unknown> {
  id: string;
  cron: string;
  timezone: string;
  duration_seconds: number;
  filled_until: string | null;
  scope_id: string;
  drain: boolean;
  now: string;
  last_starts_at: string | null;
  last_ends_at: string | null;
}

/**
 * Writes the next occurrences of up to `limit` recurring windows that need them, each window in
 * the same transaction as its rows. Returns how many windows were filled.
 */
export async function fillAhead(executor: Executor, limit: number, timetables: TimetableOf): Promise<number> {
  return withTransaction(executor, async (tx) => {
    const db = queryBuilder(tx);
    const due = await db.execute<FillRow>(sql`
      select w.id, w.cron, w.timezone, w.duration_seconds, w.filled_until, coalesce(w.automation_id, w.sector_id, '00000000-0000-0000-0000-000000000000'::uuid) as scope_id,
        w.drain, now() as now, l.starts_at as last_starts_at, l.ends_at as last_ends_at
      from (
        select * from maintenance_windows
        where deleted_at is null and cron is not null and (filled_until is null or filled_until < now() + ${`${OCCURRENCES_AHEAD_MS} milliseconds`}::interval - ${REFILL_SLACK}::interval)
        order by filled_until nulls first limit ${limit} for update skip locked
      ) w
      left join lateral (
        select o.starts_at, o.ends_at from maintenance_occurrences o where o.window_id = w.id order by o.starts_at desc limit 1
      ) l on true`);
    for (const row of due.rows) {
      const now = new Date(row.now);
      const until = new Date(now.getTime() + OCCURRENCES_AHEAD_MS);
      const notEndedBefore = new Date(now.getTime() - row.duration_seconds * 1000);
      const filledUntil = row.filled_until === null ? notEndedBefore : new Date(row.filled_until);
      const after = filledUntil > notEndedBefore ? filledUntil : notEndedBefore;
      const timetable = timetables(row.cron, row.timezone);
      const spans = timetable ? recurringSpans(timetable, row.duration_seconds, after, until) : [];
      // The first new occurrence may overlap the last one written: they are one.
      const lastEndsAt = row.last_ends_at === null ? null : new Date(row.last_ends_at);
      const first = spans[0];
      if (first && lastEndsAt && row.last_starts_at !== null && first.startsAt <= lastEndsAt && lastEndsAt > now) {
        spans.shift();
        if (first.endsAt > lastEndsAt) {
          await db.execute(sql`update maintenance_occurrences set ends_at = ${first.endsAt.toISOString()}::timestamptz
            where window_id = ${row.id} and starts_at = ${row.last_starts_at}::timestamptz`);
        }
      }
      if (spans.length > 0) {
        await db.execute(sql`
          insert into maintenance_occurrences (window_id, starts_at, ends_at, scope_id, drain)
          select ${row.id}::uuid, f.s, f.e, ${row.scope_id}::uuid, ${row.drain}::boolean
          from unnest(${timestampArray(spans.map((span) => span.startsAt))}::timestamptz[], ${timestampArray(spans.map((span) => span.endsAt))}::timestamptz[]) as f(s, e)
          on conflict (window_id, starts_at) do nothing`);
      }
      await db.execute(sql`update maintenance_windows set filled_until = ${until.toISOString()}::timestamptz where id = ${row.id}`);
    }
    return due.rows.length;
  });
}

/** Removes up to `limit` occurrences that ended (and said so) more than a day ago. Returns how many. */
export async function pruneEnded(executor: Executor, limit: number): Promise<number> {
  const db = queryBuilder(executor);
  const result = await db.execute(sql`
    delete from maintenance_occurrences where (window_id, starts_at) in (
      select window_id, starts_at from maintenance_occurrences
      where ended_at is not null and ends_at < now() - interval '1 day' limit ${limit} for update skip locked
    )`);
  return result.rowCount ?? 0;
}
