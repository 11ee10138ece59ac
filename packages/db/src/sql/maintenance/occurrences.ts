/**
 * The occurrences of maintenance windows (CONTRACT §6.18), the rows the claim reads
 * (packages/db/functions/hub_claim_jobs_v4.sql): a one-off window has one; a recurring one has one
 * per fire time of its cron in its zone (§6.9's rules, DST included), `duration_seconds` long,
 * written {@link OCCURRENCES_AHEAD_MS} ahead. Occurrences of one window that overlap are one row,
 * from the first start to the last end.
 *
 * {@link rewriteOccurrences} is what a create, a PUT and a DELETE do, in their transaction, with the
 * window row locked: the occurrence in effect keeps its row (and its `.started`) when the new
 * settings still hold it now, with their end; otherwise it ends now, with `.ended` written at once.
 * Occurrences ahead are written again from the new settings, and one in effect now that had no row
 * gets one with its `.started` at once. Every `.started`/`.ended` is written with the stamp of its row.
 */
import { sql } from "drizzle-orm";
import type { MaintenanceWindow } from "../../schema";
import { queryBuilder, type Executor } from "../../executor";
import { scopeIdOf } from "./windows";

/** How far ahead a recurring window's occurrences are written (CONTRACT §6.18: 8 days). */
export const OCCURRENCES_AHEAD_MS = 8 * 86_400_000;

export interface OccurrenceSpan {
  startsAt: Date;
  endsAt: Date;
}

/** What decides a window's occurrences. */
export type WindowTiming = Pick<MaintenanceWindow, "startsAt" | "endsAt" | "cron" | "timezone" | "durationSeconds">;

/**
 * A cron expression's fire times in a zone (`CronTimetable` of @hub/shared/cron). Passed in by the
 * callers, which read cron: @hub/db stays free of the cron library, so the processes that never
 * read one (the event relay) do not load it.
 */
export interface Timetable {
  /** The first fire time strictly after `instant`, or null when there is none. */
  nextAfter(instant: Date): Date | null;
}

/** The timetable of a cron expression in a zone; null for one the hub cannot read. */
export type TimetableOf = (cron: string, timezone: string) => Timetable | null;

/** The timetable of a recurring window; null for a one-off one or an expression the hub cannot read. */
export function timetableOf(timing: WindowTiming, timetables: TimetableOf): Timetable | null {
  if (timing.cron === null || timing.timezone === null) return null;
  return timetables(timing.cron, timing.timezone);
}

/**
 * A recurring window's occurrences whose fire time is in (`after`, `until`], in order, those that
 * overlap merged (pure). `after` = now − duration gives every occurrence not ended at now.
 */
export function recurringSpans(timetable: Timetable, durationSeconds: number, after: Date, until: Date): OccurrenceSpan[] {
  const spans: OccurrenceSpan[] = [];
  for (let fire = timetable.nextAfter(after); fire && fire <= until; fire = timetable.nextAfter(fire)) {
    const endsAt = new Date(fire.getTime() + durationSeconds * 1000);
    const last = spans.at(-1);
    if (last && fire <= last.endsAt) {
      if (endsAt > last.endsAt) last.endsAt = endsAt;
    } else spans.push({ startsAt: fire, endsAt });
  }
  return spans;
}

/** The window's occurrences that have not ended at `now`, up to {@link OCCURRENCES_AHEAD_MS} ahead (pure). */
export function planOccurrences(timing: WindowTiming, now: Date, timetables: TimetableOf): { spans: OccurrenceSpan[]; filledUntil: Date | null } {
  if (timing.startsAt !== null && timing.endsAt !== null) {
    return { spans: timing.endsAt > now ? [{ startsAt: timing.startsAt, endsAt: timing.endsAt }] : [], filledUntil: null };
  }
  const timetable = timetableOf(timing, timetables);
  const until = new Date(now.getTime() + OCCURRENCES_AHEAD_MS);
  if (!timetable || timing.durationSeconds === null) return { spans: [], filledUntil: until };
  return { spans: recurringSpans(timetable, timing.durationSeconds, new Date(now.getTime() - timing.durationSeconds * 1000), until), filledUntil: until };
}

/** An ISO 8601 UTC text of a timestamptz column, as event payloads carry times. */
export const isoText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A timestamptz[] literal. */
export const timestampArray = (times: readonly Date[]) => `{${times.map((time) => time.toISOString()).join(",")}}`;

interface OccurrenceRow extends Record<string, unknown> {
  starts_at: string;
  ends_at: string;
  scope_id: string;
  started_at: string | null;
}

export interface RewriteOutcome {
  /** Scope ids whose hold ended now (their automations' waiting claims should look again). */
  released: string[];
  /** The window's `filled_until` to store. */
  filledUntil: Date | null;
}

/**
 * Writes the occurrences of `window` (its settings as they are now; `deleted`: none at all) in the
 * caller's transaction, with the window row locked. `now` is the transaction's now().
 */
export async function rewriteOccurrences(
  executor: Executor,
  window: MaintenanceWindow,
  now: Date,
  timetables: TimetableOf,
  { deleted = false } = {},
): Promise<RewriteOutcome> {
  const db = queryBuilder(executor);
  const scopeId = scopeIdOf(window);
  const { spans, filledUntil } = deleted ? { spans: [], filledUntil: null } : planOccurrences(window, now, timetables);
  const current = (
    await db.execute<OccurrenceRow>(sql`
      select starts_at, ends_at, scope_id, started_at from maintenance_occurrences
      where window_id = ${window.id} and starts_at <= now() and ends_at > now()
      for update`)
  ).rows[0];
  const released: string[] = [];
  const holdingNow = spans[0] && spans[0].startsAt <= now ? spans.shift() : undefined;
  if (current) {
    if (holdingNow) {
      await db.execute(sql`
        update maintenance_occurrences set ends_at = ${holdingNow.endsAt.toISOString()}::timestamptz, scope_id = ${scopeId}::uuid, drain = ${window.drain}
        where window_id = ${window.id} and starts_at = ${current.starts_at}::timestamptz`);
      if (current.scope_id !== scopeId) released.push(current.scope_id);
    } else {
      // Ends now: `.started` first when no dispatcher wrote it yet, then `.ended` with the actual end.
      await db.execute(sql`
        with ended as (
          update maintenance_occurrences set ends_at = now(), started_at = coalesce(started_at, now()), ended_at = now()
          where window_id = ${window.id} and starts_at = ${current.starts_at}::timestamptz
          returning window_id, starts_at, ends_at
        )
        insert into events (aggregate_id, event_type, actor_id, payload)
        select e.window_id, t.event_type, null, jsonb_build_object('starts_at', ${sql.raw(isoText("e.starts_at"))}, 'ends_at', ${sql.raw(isoText("e.ends_at"))})
        from ended e cross join (values (1, 'maintenance_window.started', ${current.started_at === null}::boolean), (2, 'maintenance_window.ended', true)) as t(n, event_type, wanted)
        where t.wanted order by t.n`);
      released.push(current.scope_id);
    }
  }
  await db.execute(sql`delete from maintenance_occurrences where window_id = ${window.id} and starts_at > now()`);
  const fresh = holdingNow && !current ? [holdingNow, ...spans] : spans;
  if (fresh.length > 0) {
    // A row of an occurrence that was ended earlier and holds again now (a PUT back) is that occurrence again.
    await db.execute(sql`
      with fresh as (
        insert into maintenance_occurrences (window_id, starts_at, ends_at, scope_id, drain, started_at)
        select ${window.id}::uuid, f.s, f.e, ${scopeId}::uuid, ${window.drain}::boolean, case when f.s <= now() then now() end
        from unnest(${timestampArray(fresh.map((span) => span.startsAt))}::timestamptz[], ${timestampArray(fresh.map((span) => span.endsAt))}::timestamptz[]) as f(s, e)
        on conflict (window_id, starts_at) do update set ends_at = excluded.ends_at, scope_id = excluded.scope_id, drain = excluded.drain,
          started_at = excluded.started_at, ended_at = null
        returning window_id, starts_at, ends_at, started_at
      )
      insert into events (aggregate_id, event_type, actor_id, payload)
      select f.window_id, 'maintenance_window.started', null, jsonb_build_object('starts_at', ${sql.raw(isoText("f.starts_at"))}, 'ends_at', ${sql.raw(isoText("f.ends_at"))})
      from fresh f where f.started_at is not null`);
  }
  return { released, filledUntil };
}
