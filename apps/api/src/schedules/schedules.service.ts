/**
 * Schedules (CONTRACT §6.9): the records people set up. The dispatcher fires them
 * (apps/dispatcher/src/tasks/schedules.ts); here they are checked, stored and changed, each change with
 * its event in the same transaction.
 *
 * Lock order (as everywhere): the automation row first — `FOR KEY SHARE`, which only keeps it from
 * being deactivated until the change commits — then the schedule row.
 */
import { isDeepStrictEqual } from "node:util";
import {
  isUniqueViolation,
  type Automation,
  type KeysetPage,
  type KeysetPageRequest,
  type Schedule,
  automations,
  events,
  jobs,
  schedules,
  withTransaction,
  type Executor,
  type Reach,
} from "@hub/db";
import { validate, type ValidationIssue } from "@hub/shared";
import { CronTimetable, parseCronExpression, timeZoneProblem } from "@hub/shared/cron";
import { ConflictError, NotFoundError, RequestValidationError } from "../http/http-errors";
import { lockAutomationOrNotFound } from "../automations/automations.service";
import { jobContextSchemaOf } from "../automations/context-schema";
import type { AppContext } from "../context";
import type { ListSchedulesQuery, ScheduleBody, ScheduleRecord } from "./schedules.schemas";

/** An expression must fire within this many years of now (CONTRACT §6.9). */
const FIRE_WITHIN_YEARS = 4;

export type ScheduleServiceContext = Pick<AppContext, "database" | "env">;

export function toScheduleRecord(schedule: Schedule): ScheduleRecord {
  return {
    id: schedule.id,
    automation_id: schedule.automationId,
    key: schedule.key,
    cron: schedule.cron,
    timezone: schedule.timezone,
    context: schedule.context,
    priority: schedule.priority,
    enabled: schedule.enabled,
    overlap: schedule.overlap,
    description: schedule.description,
    next_run_at: schedule.nextRunAt?.toISOString() ?? null,
    last_run_at: schedule.lastRunAt?.toISOString() ?? null,
    last_job_id: schedule.lastJobId,
    created_at: schedule.createdAt.toISOString(),
  };
}

/** The body as stored: only the fields a client sets. */
function settingsOf(body: ScheduleBody): schedules.ScheduleSettings {
  return {
    key: body.key,
    cron: body.cron,
    timezone: body.timezone,
    context: body.context,
    priority: body.priority,
    enabled: body.enabled,
    overlap: body.overlap,
    description: body.description,
  };
}

/** The settings as an event payload and a record show them (snake_case). */
function settingsPayload(settings: Partial<schedules.ScheduleSettings>): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(settings)) if (value !== undefined) payload[field] = value;
  return payload;
}

/** The end of the window an expression must fire in: {@link FIRE_WITHIN_YEARS} years after `now`. */
function fireHorizonOf(now: Date): Date {
  const horizon = new Date(now);
  horizon.setUTCFullYear(horizon.getUTCFullYear() + FIRE_WITHIN_YEARS);
  return horizon;
}

/**
 * What a cron expression's shape could not tell (CONTRACT §6.9), for the `cron` at `cronLoc`: a
 * seconds field where the hub does not allow one, no fire time within {@link FIRE_WITHIN_YEARS}
 * years of `now` in its time zone. Returns the timetable when the expression and the time zone
 * are usable. Shared by a schedule's create and PUT and by GET /schedules/preview.
 */
export function checkCron(
  cron: string,
  timezone: string,
  allowSeconds: boolean,
  now: Date,
  cronLoc: ValidationIssue["loc"],
): { issues: ValidationIssue[]; timetable: CronTimetable | undefined } {
  const cronIssue = (problem: string): ValidationIssue => ({ loc: cronLoc, msg: `Value error, ${problem}`, type: "value_error" });
  const parsed = parseCronExpression(cron);
  if (!parsed.ok) throw new Error("the request schema accepted a cron expression the parser refuses");
  if (parsed.expression.hasSeconds && !allowSeconds) {
    return { issues: [cronIssue("a leading seconds field is not enabled on this hub (HUB_SCHEDULES_ALLOW_SECONDS): use five fields")], timetable: undefined };
  }
  if (timeZoneProblem(timezone) !== undefined) return { issues: [], timetable: undefined };
  const timetable = new CronTimetable(parsed.expression, timezone);
  const next = timetable.nextAfter(now);
  if (!next || next > fireHorizonOf(now)) return { issues: [cronIssue(`the expression has no fire time in the next ${FIRE_WITHIN_YEARS} years`)], timetable };
  return { issues: [], timetable };
}

/**
 * What the body's shape could not tell (CONTRACT §6.9), every problem at once: the cron
 * expression's ({@link checkCron}) and a context that does not fit the automation's parameters.
 */
function checkAgainstHub(
  body: ScheduleBody,
  automation: Automation,
  allowSeconds: boolean,
  now: Date,
): { issues: ValidationIssue[]; timetable: CronTimetable | undefined } {
  const { issues, timetable } = checkCron(body.cron, body.timezone, allowSeconds, now, ["body", "cron"]);
  const context = validate(jobContextSchemaOf(automation.parameters), body.context, ["body", "context"]);
  if (!context.ok) issues.push(...context.issues);
  return { issues, timetable };
}

/**
 * GET /schedules/preview (CONTRACT §6.14): the next `count` fire times of `cron` in `timezone`
 * after now (PostgreSQL's clock, as the dispatcher fires), fewer when fewer fall within
 * {@link FIRE_WITHIN_YEARS} years; refused as creating a schedule refuses it, at `["query", …]`.
 */
export async function previewSchedule(ctx: ScheduleServiceContext, query: { cron: string; timezone: string; count: number }): Promise<Date[]> {
  const now = await jobs.databaseNow(ctx.database.pool);
  const { issues, timetable } = checkCron(query.cron, query.timezone, ctx.env.HUB_SCHEDULES_ALLOW_SECONDS, now, ["query", "cron"]);
  if (issues.length > 0) throw new RequestValidationError(issues);
  if (!timetable) throw new Error("the query schema accepted a time zone the timetable refuses");
  const horizon = fireHorizonOf(now);
  const fires: Date[] = [];
  for (let next = timetable.nextAfter(now); next && next <= horizon && fires.length < query.count; next = timetable.nextAfter(next)) fires.push(next);
  return fires;
}

const inactiveAutomation = () => new ConflictError("Automation is deactivated: its schedules cannot be created or enabled");
const keyTaken = (key: string | null) => new ConflictError(`This automation already has a schedule with key '${key}'`);

/** POST /automations/{automation_id}/schedules: 404 unknown automation, 422, 409 inactive or key taken. */
export async function createSchedule(ctx: ScheduleServiceContext, reach: Reach, automationId: string, body: ScheduleBody, actorId: string): Promise<string> {
  const settings = settingsOf(body);
  try {
    return await withTransaction(ctx.database.pool, async (tx) => {
      const automation = await lockAutomationOrNotFound(tx, reach, automationId, "key share");
      const now = await jobs.databaseNow(tx);
      const { issues, timetable } = checkAgainstHub(body, automation, ctx.env.HUB_SCHEDULES_ALLOW_SECONDS, now);
      if (issues.length > 0) throw new RequestValidationError(issues);
      if (!automation.isActive) throw inactiveAutomation();
      const schedule = await schedules.insert(tx, { ...settings, automationId, nextRunAt: body.enabled ? timetable!.nextAfter(now) : null });
      await events.record(tx, {
        eventType: "schedule.created",
        aggregateId: schedule.id,
        actorId,
        payload: { automation_id: automationId, ...settingsPayload(settings) },
      });
      return schedule.id;
    });
  } catch (error) {
    if (isUniqueViolation(error, schedules.SCHEDULE_KEY_CONSTRAINT)) throw keyTaken(settings.key);
    throw error;
  }
}

export async function getSchedule(db: Executor, reach: Reach, id: string): Promise<ScheduleRecord> {
  const schedule = await schedules.find(db, reach, id);
  if (!schedule) throw new NotFoundError("Schedule not found");
  return toScheduleRecord(schedule);
}

/** GET /schedules and GET /automations/{automation_id}/schedules (404 for an unknown automation): oldest first. */
export async function listSchedules(
  db: Executor,
  reach: Reach,
  filter: Pick<ListSchedulesQuery, "automation_id" | "enabled">,
  page: KeysetPageRequest,
  { automationMustExist = false } = {},
): Promise<KeysetPage<ScheduleRecord>> {
  if (automationMustExist && filter.automation_id && !(await automations.findView(db, reach, filter.automation_id))) {
    throw new NotFoundError("Automation not found");
  }
  const { items, next } = await schedules.list(db, reach, { automationId: filter.automation_id, enabled: filter.enabled }, page);
  return { items: items.map(toScheduleRecord), next };
}

/** The settings `body` changes, with their new values; empty when the PUT changes nothing. */
function changedSettings(current: Schedule, next: schedules.ScheduleSettings): Partial<schedules.ScheduleSettings> {
  const changes: Partial<schedules.ScheduleSettings> = {};
  for (const field of Object.keys(next) as Array<keyof schedules.ScheduleSettings>) {
    if (!isDeepStrictEqual(current[field], next[field])) Object.assign(changes, { [field]: next[field] });
  }
  return changes;
}

/**
 * PUT /schedules/{schedule_id}: replaces every setting (omitted ones take their defaults).
 * `next_run_at` is the next fire after now when the schedule is enabled, or its expression or time
 * zone changes; it stays as it was otherwise, and is null while disabled. A PUT that changes
 * nothing writes nothing and records no event.
 */
export async function replaceSchedule(ctx: ScheduleServiceContext, reach: Reach, id: string, body: ScheduleBody, actorId: string): Promise<ScheduleRecord> {
  const settings = settingsOf(body);
  try {
    return await withTransaction(ctx.database.pool, async (tx) => {
      const found = await schedules.find(tx, reach, id);
      if (!found) throw new NotFoundError("Schedule not found");
      const automation = await lockAutomationOrNotFound(tx, reach, found.automationId, "key share");
      const current = await schedules.lock(tx, reach, id);
      if (!current) throw new NotFoundError("Schedule not found");
      const now = await jobs.databaseNow(tx);
      const { issues, timetable } = checkAgainstHub(body, automation, ctx.env.HUB_SCHEDULES_ALLOW_SECONDS, now);
      if (issues.length > 0) throw new RequestValidationError(issues);
      if (body.enabled && !automation.isActive) throw inactiveAutomation();

      const changes = changedSettings(current, settings);
      if (Object.keys(changes).length === 0) return toScheduleRecord(current);
      const restarts = changes.enabled === true || changes.cron !== undefined || changes.timezone !== undefined;
      const nextRunAt = !body.enabled ? null : restarts ? timetable!.nextAfter(now) : current.nextRunAt;
      const updated = await schedules.update(tx, id, { ...changes, nextRunAt });
      await events.record(tx, { eventType: "schedule.updated", aggregateId: id, actorId, payload: settingsPayload(changes) });
      return toScheduleRecord(updated);
    });
  } catch (error) {
    if (isUniqueViolation(error, schedules.SCHEDULE_KEY_CONSTRAINT)) throw keyTaken(settings.key);
    throw error;
  }
}

/** DELETE /schedules/{schedule_id}: it stops firing; its queued jobs stay. 404 when unknown or already deleted. */
export async function deleteSchedule(db: Executor, reach: Reach, id: string, actorId: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    if (!(await schedules.markDeleted(tx, reach, id))) throw new NotFoundError("Schedule not found");
    await events.record(tx, { eventType: "schedule.deleted", aggregateId: id, actorId, payload: {} });
  });
}
