/**
 * Firing schedules (CONTRACT §6.9), in every dispatcher, with no leader: one timer per process
 * sleeps until the earliest `next_run_at` (at most {@link SCHEDULE_PROBE_MAX_MS}, so new and
 * changed schedules are noticed), then runs fire passes (@hub/db `schedules.fireDue`: the due
 * schedules locked SKIP LOCKED, their jobs and events and new `next_run_at` in one transaction).
 * While nothing is due, the whole cost is one indexed probe a second per process.
 *
 * The fires of a due schedule ({@link planFires}), on PostgreSQL's clock:
 * - a fire made within {@link MISSED_FIRE_AFTER_MS} of its time is made; one not made by then is
 *   missed, and of a run of missed fires only the latest is made, with its own `fire_time`
 *   (recovery after downtime); the fires after it follow as usual;
 * - `overlap: "skip"` and a job of the schedule still queued or running → `schedule.skipped`
 *   `overlap`; a context that no longer fits the parameters → `schedule.skipped`
 *   `invalid_context`; a skipped fire moves only `next_run_at`.
 * The jobs are offered to their ready sets straight after the commit; if that fails the
 * reconciler offers them from PostgreSQL within its interval.
 */
import { type Database, schedules } from "@hub/db";
import type { Logger } from "@hub/shared";
import { CronTimetable, parseCronExpression } from "@hub/shared/cron";
import type { ReadyJobs } from "@hub/shared/dispatch";
import type { DispatcherMetrics } from "../metrics";
import { FireSpans } from "../job-tracing";

/** A fire not made within this long after its time is missed (CONTRACT §6.9). */
export const MISSED_FIRE_AFTER_MS = 5000;
/** Longest the timer sleeps between probes: how soon a new or changed schedule is noticed. */
export const SCHEDULE_PROBE_MAX_MS = 1000;
/** Pause after a pass found every due schedule held by other dispatchers' passes. */
const HELD_ELSEWHERE_PAUSE_MS = 50;
/** Due schedules one pass holds: bounds the transaction; a full pass is followed by another at once. */
const FIRE_PASS_SIZE = 100;
/**
 * Fires one schedule may make in one pass. After a missed run only the fires of the last 5 s
 * remain (at most six for a schedule firing every second), so this is a backstop, never reached
 * by a valid expression; the rest are made in the next pass.
 */
const FIRES_PER_PASS_LIMIT = 20;

/**
 * The fires a due schedule makes at `now` and its next fire time (see the module comment).
 * Pure: the clock is `now`, so tests move it across DST changes and outages without waiting.
 */
export function planFires(schedule: schedules.DueSchedule, timetable: CronTimetable, now: Date): Omit<schedules.ScheduleAdvance, "scheduleId"> {
  const missedBefore = new Date(now.getTime() - MISSED_FIRE_AFTER_MS);
  const fires: schedules.ScheduleFire[] = [];
  let jobActive = schedule.hasActiveJob;
  let due: Date | null = schedule.nextRunAt;
  while (due && due <= now && fires.length < FIRES_PER_PASS_LIMIT) {
    // Missed: only the latest missed fire is made.
    const fireTime = due < missedBefore ? (timetable.latestBefore(missedBefore, due) ?? due) : due;
    const outcome: schedules.ScheduleFire["outcome"] = !schedule.contextFits
      ? "invalid_context"
      : schedule.overlap === "skip" && jobActive
        ? "overlap"
        : "created";
    if (outcome === "created") jobActive = true;
    fires.push({ fireTime, outcome });
    due = timetable.nextAfter(fireTime);
  }
  return { fires, nextRunAt: due };
}

/** Most parsed expressions a dispatcher keeps (parsing costs ~70 µs; schedules share few expressions). */
const TIMETABLE_CACHE_SIZE = 10_000;

export interface ScheduleFirerDeps {
  database: Database;
  ready: ReadyJobs;
  logger: Logger;
  metrics: DispatcherMetrics;
  /** Called after a pass wrote events (`job.created`, `schedule.skipped`): the relays are nudged. */
  onEventsWritten?: () => void;
}

/**
 * The dispatcher's schedule timer as a periodic task: `tick` runs what is due and says how long
 * to sleep before the next one.
 */
export function createScheduleFirer({ database, ready, logger, metrics, onEventsWritten }: ScheduleFirerDeps) {
  const timetables = new Map<string, CronTimetable | null>();

  /** The schedule's timetable; null for an expression that no longer parses (never fired again). */
  function timetableOf(schedule: schedules.DueSchedule): CronTimetable | null {
    const cacheKey = `${schedule.timezone}\n${schedule.cron}`;
    let timetable = timetables.get(cacheKey);
    if (timetable === undefined) {
      const parsed = parseCronExpression(schedule.cron);
      try {
        timetable = parsed.ok ? new CronTimetable(parsed.expression, schedule.timezone) : null;
      } catch {
        timetable = null;
      }
      if (timetables.size >= TIMETABLE_CACHE_SIZE) timetables.clear();
      timetables.set(cacheKey, timetable);
    }
    return timetable;
  }

  function decide(due: readonly schedules.DueSchedule[], now: Date): schedules.ScheduleAdvance[] {
    return due.map((schedule) => {
      const timetable = timetableOf(schedule);
      if (!timetable) {
        // Only a row edited by hand gets here (the API checks every expression it stores).
        logger.error(
          { schedule_id: schedule.id, cron: schedule.cron, timezone: schedule.timezone },
          "schedule has an expression the hub cannot read; it fires no more",
        );
        return { scheduleId: schedule.id, fires: [], nextRunAt: null };
      }
      const plan = planFires(schedule, timetable, now);
      if (schedule.nextRunAt.getTime() < now.getTime() - MISSED_FIRE_AFTER_MS) {
        logger.info(
          { schedule_id: schedule.id, missed_from: schedule.nextRunAt.toISOString(), fire_time: plan.fires[0]?.fireTime.toISOString() },
          "schedule missed fires (no dispatcher or no database in time): only the latest is made",
        );
      }
      return { scheduleId: schedule.id, ...plan };
    });
  }

  async function offerCreated(outcome: schedules.FirePassOutcome): Promise<void> {
    // A job awaiting approval (CONTRACT §6.17) is held: offered once approved.
    const offered = outcome.created.filter((job) => !job.held);
    if (offered.length === 0) return;
    try {
      await ready.offer(offered);
      metrics.jobsOffered.inc({ path: "schedule" }, offered.length);
    } catch (error) {
      logger.warn({ err: error, jobs: offered.length }, "offering the jobs schedules made failed; the reconciler will offer them");
    }
  }

  function count(outcome: schedules.FirePassOutcome): void {
    metrics.scheduleFires.inc({ outcome: "created" }, outcome.created.length);
    for (const skip of outcome.skipped) metrics.scheduleFires.inc({ outcome: skip.reason });
    if (outcome.created.length + outcome.skipped.length > 0) onEventsWritten?.();
  }

  /** One fire pass; with tracing on, each fire is a trace of its own (../job-tracing.ts). */
  async function firePass(): Promise<schedules.FirePassOutcome> {
    const spans = FireSpans.forPass();
    if (!spans) return schedules.fireDue(database.pool, FIRE_PASS_SIZE, decide);
    try {
      const outcome = await schedules.fireDue(database.pool, FIRE_PASS_SIZE, (due, now) => spans.open(due, decide(due, now)));
      spans.close(outcome);
      return outcome;
    } catch (error) {
      spans.close(undefined, error);
      throw error;
    }
  }

  /** Runs the passes that are due now; resolves with the milliseconds until the next tick. */
  async function tick(): Promise<number> {
    for (;;) {
      const dueInMs = await schedules.msUntilNextFire(database.pool);
      if (dueInMs === null) return SCHEDULE_PROBE_MAX_MS;
      // Wakes at the fire time itself: the probe's figure is on PostgreSQL's clock, as a duration.
      if (dueInMs > 0) return Math.min(Math.ceil(dueInMs), SCHEDULE_PROBE_MAX_MS);
      const outcome = await firePass();
      await offerCreated(outcome);
      count(outcome);
      if (outcome.locked === 0) return HELD_ELSEWHERE_PAUSE_MS;
    }
  }

  return { tick };
}
