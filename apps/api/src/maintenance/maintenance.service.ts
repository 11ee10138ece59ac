/**
 * Maintenance windows (CONTRACT §6.18): the records people set up. Each change writes the window's
 * occurrences (@hub/db `maintenance.rewriteOccurrences`, what the claim reads) and its event in the
 * same transaction; the dispatchers write `.started`/`.ended` and keep recurring windows filled
 * (apps/dispatcher/src/tasks/maintenance.ts).
 *
 * After a PUT or DELETE commits, the waiting claims of every automation the window held or holds
 * look again (one wake-up each): a window cut short or moved must not leave a claim asleep until
 * the end it was told before. A natural end needs none: the claim that was refused sleeps exactly
 * until then (`retry_after_ms`).
 */
import { isDeepStrictEqual } from "node:util";
import {
  automations,
  events,
  jobs,
  maintenance,
  reachesEverything,
  sectors,
  withTransaction,
  type KeysetPage,
  type KeysetPageRequest,
  type MaintenanceWindow,
  type Reach,
  type Executor,
} from "@hub/db";
import type { ValidationIssue } from "@hub/shared";
import { timetableFor } from "@hub/shared/cron";
import { ForbiddenError, NotFoundError, RequestValidationError } from "../http/http-errors";
import { wakeClaims } from "../dispatch/signals";
import { checkCron } from "../schedules/schedules.service";
import type { AppContext } from "../context";
import type { ListMaintenanceWindowsQuery, MaintenanceWindowBody, MaintenanceWindowRecord } from "./maintenance.schemas";

export type MaintenanceServiceContext = Pick<AppContext, "database" | "env" | "dispatch" | "logger" | "metrics">;

const notFound = () => new NotFoundError("Maintenance window not found");

/** The body as stored: the other form's fields null, a recurring window's zone "UTC" unless sent. */
function settingsOf(body: MaintenanceWindowBody): maintenance.WindowSettings {
  const recurring = body.cron !== undefined && body.cron !== null;
  return {
    automationId: body.automation_id ?? null,
    sectorId: body.sector_id ?? null,
    startsAt: recurring ? null : (body.starts_at ?? null),
    endsAt: recurring ? null : (body.ends_at ?? null),
    cron: recurring ? body.cron! : null,
    timezone: recurring ? (body.timezone ?? "UTC") : null,
    durationSeconds: recurring ? (body.duration_seconds ?? null) : null,
    drain: body.drain,
    description: body.description,
  };
}

const FIELD_NAMES: Record<keyof maintenance.WindowSettings, string> = {
  automationId: "automation_id",
  sectorId: "sector_id",
  startsAt: "starts_at",
  endsAt: "ends_at",
  cron: "cron",
  timezone: "timezone",
  durationSeconds: "duration_seconds",
  drain: "drain",
  description: "description",
};

/** Settings as an event payload shows them (snake_case, times as ISO text). */
function settingsPayload(settings: Partial<maintenance.WindowSettings>): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(settings) as Array<[keyof maintenance.WindowSettings, unknown]>) {
    if (value === undefined) continue;
    payload[FIELD_NAMES[field]] = value instanceof Date ? value.toISOString() : value;
  }
  return payload;
}

/** The fields a created window has set: the scope and form it was given, drain and description. */
function setFields(settings: maintenance.WindowSettings): Partial<maintenance.WindowSettings> {
  return Object.fromEntries(
    Object.entries(settings).filter(([field, value]) => value !== null || field === "automationId" || field === "sectorId"),
  ) as Partial<maintenance.WindowSettings>;
}

/**
 * What the body's shape could not tell, every problem at once: an automation or sector that does
 * not exist (or that the caller does not reach) → `value_error` at its field; a cron expression
 * with a seconds field where the hub allows none, or without a fire time within 4 years.
 */
async function checkAgainstHub(tx: Executor, reach: Reach, ctx: MaintenanceServiceContext, settings: maintenance.WindowSettings, now: Date): Promise<void> {
  const issues: ValidationIssue[] = [];
  if (settings.automationId !== null && !(await automations.findView(tx, reach, settings.automationId))) {
    issues.push({ loc: ["body", "automation_id"], msg: "Value error, no automation has this id", type: "value_error" });
  }
  if (settings.sectorId !== null && !(await sectors.find(tx, reach, settings.sectorId))) {
    issues.push({ loc: ["body", "sector_id"], msg: "Value error, no sector has this id", type: "value_error" });
  }
  if (settings.cron !== null && settings.timezone !== null) {
    issues.push(...checkCron(settings.cron, settings.timezone, ctx.env.HUB_SCHEDULES_ALLOW_SECONDS, now, ["body", "cron"]).issues);
  }
  if (issues.length > 0) throw new RequestValidationError(issues);
}

/**
 * A caller narrowed to some automations (an api key with `automation_ids`) sets windows of those
 * automations only: a window over a sector or every automation holds automations it does not reach.
 */
function assertMayHold(reach: Reach, window: Pick<maintenance.WindowSettings, "automationId">): void {
  if (!reachesEverything(reach) && window.automationId === null) {
    throw new ForbiddenError("This credential reaches only some automations: it may set maintenance windows of those automations only");
  }
}

/** The records of `windows`, with what their occurrences say now. */
async function recordsOf(db: Executor, windows: readonly MaintenanceWindow[]): Promise<MaintenanceWindowRecord[]> {
  const times = await maintenance.timesOf(
    db,
    windows.map((window) => window.id),
  );
  return windows.map((window) => {
    const known = times.get(window.id);
    let nextStartAt = known?.nextStartAt ?? null;
    let nextEndAt = known?.nextEndAt ?? null;
    // A recurring window's rows reach 8 days ahead; a cron firing less often has its next start beyond them.
    if (window.cron !== null && window.durationSeconds !== null && (nextStartAt === null || nextEndAt === null)) {
      const timetable = maintenance.timetableOf(window, timetableFor);
      const now = known?.now ?? new Date();
      const from = window.filledUntil && window.filledUntil > now ? window.filledUntil : now;
      const fire = timetable?.nextAfter(from) ?? null;
      if (nextStartAt === null) nextStartAt = fire;
      if (nextEndAt === null && fire) nextEndAt = new Date(fire.getTime() + window.durationSeconds * 1000);
    }
    return {
      id: window.id,
      automation_id: window.automationId,
      sector_id: window.sectorId,
      starts_at: window.startsAt?.toISOString() ?? null,
      ends_at: window.endsAt?.toISOString() ?? null,
      cron: window.cron,
      timezone: window.timezone,
      duration_seconds: window.durationSeconds,
      drain: window.drain,
      description: window.description,
      active: known?.active ?? false,
      next_start_at: nextStartAt?.toISOString() ?? null,
      next_end_at: nextEndAt?.toISOString() ?? null,
      created_at: window.createdAt.toISOString(),
    };
  });
}

/** Wakes one waiting claim of every active automation the scopes cover (after the commit). */
async function wakeScopes(ctx: MaintenanceServiceContext, scopeIds: readonly string[]): Promise<void> {
  const unique = [...new Set(scopeIds)];
  if (unique.length === 0) return;
  const automationIds = await maintenance.automationIdsInScope(ctx.database.pool, unique);
  await Promise.all(automationIds.map((automationId) => wakeClaims(ctx, automationId)));
}

/** POST /maintenance-windows: 422 for what the shape or the stored data refuse. */
export async function createMaintenanceWindow(ctx: MaintenanceServiceContext, reach: Reach, body: MaintenanceWindowBody, actorId: string): Promise<string> {
  const settings = settingsOf(body);
  assertMayHold(reach, settings);
  return withTransaction(ctx.database.pool, async (tx) => {
    const now = await jobs.databaseNow(tx);
    await checkAgainstHub(tx, reach, ctx, settings, now);
    const window = await maintenance.insert(tx, settings);
    // The event first: a window created already in effect writes its .started after it.
    await events.record(tx, { eventType: "maintenance_window.created", aggregateId: window.id, actorId, payload: settingsPayload(setFields(settings)) });
    const { filledUntil } = await maintenance.rewriteOccurrences(tx, window, now, timetableFor);
    if (filledUntil) await maintenance.update(tx, window.id, { filledUntil });
    return window.id;
  });
}

export async function getMaintenanceWindow(db: Executor, reach: Reach, id: string): Promise<MaintenanceWindowRecord> {
  const window = await maintenance.find(db, reach, id);
  if (!window) throw notFound();
  return (await recordsOf(db, [window]))[0]!;
}

/** GET /maintenance-windows: oldest first, within the caller's reach. */
export async function listMaintenanceWindows(
  db: Executor,
  reach: Reach,
  filter: Pick<ListMaintenanceWindowsQuery, "automation_id" | "sector_id" | "active">,
  page: KeysetPageRequest,
): Promise<KeysetPage<MaintenanceWindowRecord>> {
  const { items, next } = await maintenance.list(db, reach, { automationId: filter.automation_id, sectorId: filter.sector_id, active: filter.active }, page);
  return { items: await recordsOf(db, items), next };
}

function changedSettings(current: MaintenanceWindow, next: maintenance.WindowSettings): Partial<maintenance.WindowSettings> {
  const changes: Partial<maintenance.WindowSettings> = {};
  for (const field of Object.keys(next) as Array<keyof maintenance.WindowSettings>) {
    const before = current[field];
    const after = next[field];
    const same = before instanceof Date && after instanceof Date ? before.getTime() === after.getTime() : isDeepStrictEqual(before, after);
    if (!same) Object.assign(changes, { [field]: after });
  }
  return changes;
}

/**
 * PUT /maintenance-windows/{id}: replaces every setting (omitted ones take their defaults) and
 * writes the occurrences again; one in effect that the new settings no longer hold ends now. A PUT
 * that changes nothing writes nothing and records no event.
 */
export async function replaceMaintenanceWindow(
  ctx: MaintenanceServiceContext,
  reach: Reach,
  id: string,
  body: MaintenanceWindowBody,
  actorId: string,
): Promise<MaintenanceWindowRecord> {
  const settings = settingsOf(body);
  const outcome = await withTransaction(ctx.database.pool, async (tx) => {
    const current = await maintenance.lock(tx, reach, id);
    if (!current) throw notFound();
    assertMayHold(reach, current);
    assertMayHold(reach, settings);
    const now = await jobs.databaseNow(tx);
    await checkAgainstHub(tx, reach, ctx, settings, now);
    const changes = changedSettings(current, settings);
    if (Object.keys(changes).length === 0) return { window: current, wake: [] as string[] };
    const updated = await maintenance.update(tx, id, changes);
    await events.record(tx, { eventType: "maintenance_window.updated", aggregateId: id, actorId, payload: settingsPayload(changes) });
    const { filledUntil } = await maintenance.rewriteOccurrences(tx, updated, now, timetableFor);
    const window = await maintenance.update(tx, id, { filledUntil });
    return { window, wake: [maintenance.scopeIdOf(current), maintenance.scopeIdOf(updated)] };
  });
  await wakeScopes(ctx, outcome.wake);
  return (await recordsOf(ctx.database.pool, [outcome.window]))[0]!;
}

/** DELETE /maintenance-windows/{id}: an occurrence in effect ends now (`.ended` with that end); 404 when unknown or deleted. */
export async function deleteMaintenanceWindow(ctx: MaintenanceServiceContext, reach: Reach, id: string, actorId: string): Promise<void> {
  const scopeId = await withTransaction(ctx.database.pool, async (tx) => {
    const current = await maintenance.lock(tx, reach, id);
    if (!current) throw notFound();
    assertMayHold(reach, current);
    const now = await jobs.databaseNow(tx);
    await maintenance.rewriteOccurrences(tx, current, now, timetableFor, { deleted: true });
    await maintenance.markDeleted(tx, id);
    await events.record(tx, { eventType: "maintenance_window.deleted", aggregateId: id, actorId, payload: {} });
    return maintenance.scopeIdOf(current);
  });
  await wakeScopes(ctx, [scopeId]);
}
