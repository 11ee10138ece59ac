import {
  type Automation,
  type AutomationParameter,
  type KeysetPage,
  type KeysetPageRequest,
  isForeignKeyViolation,
  isUniqueViolation,
  alerts,
  automations,
  events,
  jobs,
  schedules,
  withTransaction,
  type Executor,
  type Reach,
} from "@hub/db";
import type { EventPayload, ValidationIssue } from "@hub/shared";
import { ConflictError, NotFoundError, RequestValidationError } from "../http/http-errors";
import type { AppContext } from "../context";
import { clearOffers, wakeClaims } from "../dispatch/signals";
import { offerReleasedDependents } from "../jobs/held-jobs";
import type { AutomationListQuery, AutomationRecord, CreateAutomationInput, ReplaceAutomationInput } from "./automations.schemas";
import { contextJsonSchemaOf } from "./context-schema";
import { limitsOfAutomation, resolveLimits, sameLimits, storedLimits, type AutomationLimits } from "./limits";
import { approvalSettingsOf, approverIssues, changedApprovalSettings, newApprovalSettings } from "./approval-settings";

/** What the services that change dispatch-relevant state need from the app. */
export type AutomationServiceContext = Pick<AppContext, "database" | "dispatch" | "jobLogs" | "logger" | "metrics" | "env">;

/**
 * The record of an automation. `defaultMaxAttempts` (HUB_JOB_MAX_ATTEMPTS) stands in for a
 * `max_attempts` the automation never set: the record always shows the value that applies.
 */
export function toAutomationRecord({ automation, sector, worker }: automations.AutomationView, defaultMaxAttempts: number): AutomationRecord {
  return {
    id: automation.id,
    name: automation.name,
    slug: automation.slug,
    sector: { id: sector.id, name: sector.name, color: sector.color },
    parameters: automation.parameters.map((parameter) => ({ name: parameter.name, type: "text", description: parameter.description })),
    context_schema: contextJsonSchemaOf(automation.parameters),
    description: automation.description,
    max_concurrent_jobs: automation.maxConcurrentJobs,
    max_attempts: automation.maxAttempts ?? defaultMaxAttempts,
    retry_backoff_seconds: automation.retryBackoffSeconds,
    timeout_seconds: automation.timeoutSeconds,
    ...limitsOfAutomation(automation),
    ...approvalSettingsOf(automation),
    is_active: automation.isActive,
    is_development: automation.isDevelopment,
    worker: worker
      ? {
          cloud_instance_id: worker.cloudInstanceId,
          status: worker.status,
          created_at: worker.createdAt.toISOString(),
          last_seen_at: worker.lastSeenAt?.toISOString() ?? null,
        }
      : null,
    created_at: automation.createdAt.toISOString(),
  };
}

/** A body's `sector_id` that names no sector: the route exists, the input is wrong (CONTRACT §1). */
function unknownSector(): RequestValidationError {
  return new RequestValidationError([{ loc: ["body", "sector_id"], msg: "Value error, no sector has this id", type: "value_error" }]);
}

/**
 * The second phase of a create or update body (CONTRACT §1): the problems that need stored data,
 * all at once — an unknown sector, the §6.13 limits checked on the record the request produces,
 * and approvers who are no active user (§6.17).
 */
async function assertStoredDataAgrees(
  db: Executor,
  sectorId: string | null,
  limitIssues: ValidationIssue[],
  approverIds: readonly string[] | undefined,
): Promise<void> {
  const issues = [...limitIssues, ...(await approverIssues(db, approverIds))];
  if (sectorId !== null && !(await automations.sectorExists(db, sectorId))) issues.unshift(...unknownSector().issues);
  if (issues.length > 0) throw new RequestValidationError(issues);
}

/** Only the fields the contract lets a client set; never what else a parsed object carried. */
function toStoredParameters(parameters: readonly AutomationParameter[]): AutomationParameter[] {
  return parameters.map(({ name, description }) => ({ name, description }));
}

function sameParameters(a: readonly AutomationParameter[], b: readonly AutomationParameter[]): boolean {
  return a.length === b.length && a.every((parameter, i) => parameter.name === b[i]?.name && parameter.description === b[i]?.description);
}

/** The fields an automation event carries (those set or changed). */
type AutomationEventFields = EventPayload<"automation.updated">;

/** The retry settings a body set (CONTRACT §6.4), for the event: only those it gave. */
function retrySettingsGiven(input: CreateAutomationInput): AutomationEventFields {
  const given: AutomationEventFields = {};
  if (input.max_attempts !== undefined) given.max_attempts = input.max_attempts;
  if (input.retry_backoff_seconds !== undefined) given.retry_backoff_seconds = input.retry_backoff_seconds;
  if (input.timeout_seconds !== undefined) given.timeout_seconds = input.timeout_seconds;
  return given;
}

/** The §6.13 settings a new automation has, for its `automation.created` event: those set. */
function limitsSet(limits: AutomationLimits): AutomationEventFields {
  const set: AutomationEventFields = {};
  if (limits.concurrency_key !== null) set.concurrency_key = limits.concurrency_key;
  if (limits.max_concurrent_per_key !== null) set.max_concurrent_per_key = limits.max_concurrent_per_key;
  if (limits.rate_limit !== null) set.rate_limit = limits.rate_limit;
  return set;
}

/** The §6.13 settings a PUT changed, with their new values. */
function changedLimits(before: AutomationLimits, after: AutomationLimits): AutomationEventFields {
  const changed: AutomationEventFields = {};
  if (after.concurrency_key !== before.concurrency_key) changed.concurrency_key = after.concurrency_key;
  if (after.max_concurrent_per_key !== before.max_concurrent_per_key) changed.max_concurrent_per_key = after.max_concurrent_per_key;
  if (!sameLimits({ ...before, rate_limit: after.rate_limit }, before)) changed.rate_limit = after.rate_limit;
  return changed;
}

/** Locks the automation row first (the lock order every change follows); 404 when it does not exist. */
export async function lockAutomationOrNotFound(tx: Executor, reach: Reach, id: string, strength: automations.AutomationLockStrength): Promise<Automation> {
  const automation = await automations.lock(tx, reach, id, strength);
  if (!automation) throw new NotFoundError("Automation not found");
  return automation;
}

export async function createAutomation(db: Executor, input: CreateAutomationInput, actorId: string): Promise<string> {
  const parameters = toStoredParameters(input.parameters);
  const limits = resolveLimits(input, parameters, null);
  const approval = newApprovalSettings(input);
  try {
    return await withTransaction(db, async (tx) => {
      await assertStoredDataAgrees(tx, input.sector_id, limits.issues, input.approver_ids);
      const automation = await automations.insert(tx, {
        name: input.name,
        slug: input.slug,
        sectorId: input.sector_id,
        description: input.description,
        parameters,
        maxConcurrentJobs: input.max_concurrent_jobs,
        // Omitted: null, "the hub's default", so HUB_JOB_MAX_ATTEMPTS keeps governing it.
        maxAttempts: input.max_attempts ?? null,
        ...(input.retry_backoff_seconds === undefined ? {} : { retryBackoffSeconds: input.retry_backoff_seconds }),
        ...(input.timeout_seconds === undefined ? {} : { timeoutSeconds: input.timeout_seconds }),
        ...storedLimits(limits.resulting),
        ...approval.stored,
      });
      await events.record(tx, {
        eventType: "automation.created",
        aggregateId: automation.id,
        actorId,
        payload: {
          name: automation.name,
          slug: automation.slug,
          sector_id: automation.sectorId,
          parameters,
          description: automation.description,
          max_concurrent_jobs: automation.maxConcurrentJobs,
          ...retrySettingsGiven(input),
          ...limitsSet(limits.resulting),
          ...approval.event,
        },
      });
      return automation.id;
    });
  } catch (error) {
    if (isUniqueViolation(error, "automations_slug_key")) throw new ConflictError(`An automation with slug '${input.slug}' already exists`);
    // Sectors are never deleted today; this keeps the answer right if that changes.
    if (isForeignKeyViolation(error)) throw unknownSector();
    throw error;
  }
}

/** One page of the automations, oldest first. */
export async function listAutomations(
  db: Executor,
  reach: Reach,
  query: AutomationListQuery,
  page: KeysetPageRequest,
  defaultMaxAttempts: number,
): Promise<KeysetPage<AutomationRecord>> {
  const { items, next } = await automations.listViews(db, reach, { sectorId: query.sector_id, isActive: query.is_active }, page);
  return { items: items.map((view) => toAutomationRecord(view, defaultMaxAttempts)), next };
}

export async function getAutomation(db: Executor, reach: Reach, id: string, defaultMaxAttempts: number): Promise<AutomationRecord> {
  const view = await automations.findView(db, reach, id);
  if (!view) throw new NotFoundError("Automation not found");
  return toAutomationRecord(view, defaultMaxAttempts);
}

/**
 * PUT: replaces the editable fields (the slug never changes). `automation.updated` carries only the
 * fields that changed, with their new values; a replacement that changes nothing writes nothing and
 * records no event. A raised `max_concurrent_jobs` wakes waiting claims at once.
 */
export async function replaceAutomation(
  ctx: AutomationServiceContext,
  reach: Reach,
  id: string,
  input: ReplaceAutomationInput,
  actorId: string,
): Promise<AutomationRecord> {
  const parameters = toStoredParameters(input.parameters);
  const outcome = await withTransaction(ctx.database.pool, async (tx) => {
    let current = await lockAutomationOrNotFound(tx, reach, id, "no key update");
    const limits = resolveLimits(input, parameters, current);
    await assertStoredDataAgrees(tx, input.sector_id === current.sectorId ? null : input.sector_id, limits.issues, input.approver_ids);
    const before = limitsOfAutomation(current);
    const keyChanged = limits.resulting.concurrency_key !== before.concurrency_key;
    // A new key is written into the automation's active jobs: FOR UPDATE waits for job inserts
    // that read the old key (FOR KEY SHARE) and makes later ones wait for this commit.
    if (keyChanged) current = await lockAutomationOrNotFound(tx, reach, id, "update");

    const changes: automations.AutomationChanges = {};
    const changedFields: AutomationEventFields = {};
    if (input.name !== current.name) changedFields.name = changes.name = input.name;
    if (input.description !== current.description) changedFields.description = changes.description = input.description;
    if (input.sector_id !== current.sectorId) changedFields.sector_id = changes.sectorId = input.sector_id;
    if (input.max_concurrent_jobs !== current.maxConcurrentJobs) {
      changedFields.max_concurrent_jobs = changes.maxConcurrentJobs = input.max_concurrent_jobs;
    }
    if (!sameParameters(parameters, current.parameters)) changedFields.parameters = changes.parameters = parameters;
    // Omitted retry settings stay as they were. Setting max_attempts pins it, even to the
    // hub's default value: it then no longer follows HUB_JOB_MAX_ATTEMPTS.
    if (input.max_attempts !== undefined && input.max_attempts !== current.maxAttempts) {
      changedFields.max_attempts = changes.maxAttempts = input.max_attempts;
    }
    if (input.retry_backoff_seconds !== undefined && input.retry_backoff_seconds !== current.retryBackoffSeconds) {
      changedFields.retry_backoff_seconds = changes.retryBackoffSeconds = input.retry_backoff_seconds;
    }
    if (input.timeout_seconds !== undefined && input.timeout_seconds !== current.timeoutSeconds) {
      changedFields.timeout_seconds = changes.timeoutSeconds = input.timeout_seconds;
    }

    const approval = changedApprovalSettings(input, current);
    Object.assign(changes, approval.changes);
    Object.assign(changedFields, approval.event);

    const limitsChanged = !sameLimits(limits.resulting, before);
    if (limitsChanged) {
      Object.assign(changes, storedLimits(limits.resulting));
      Object.assign(changedFields, changedLimits(before, limits.resulting));
    }

    if (Object.keys(changedFields).length > 0) {
      await automations.update(tx, id, changes);
      if (keyChanged) await jobs.rekey(tx, id, limits.resulting.concurrency_key);
      await events.record(tx, { eventType: "automation.updated", aggregateId: id, actorId, payload: changedFields });
    }
    // Any change of the §6.13 limits may let a waiting job start: waiting claims look again.
    return {
      record: await getAutomation(tx, reach, id, ctx.env.HUB_JOB_MAX_ATTEMPTS),
      limitRaised: input.max_concurrent_jobs > current.maxConcurrentJobs || limitsChanged,
    };
  }).catch((error: unknown) => {
    if (isForeignKeyViolation(error)) throw unknownSector();
    throw error;
  });
  if (outcome.limitRaised) await wakeClaims(ctx, id);
  return outcome.record;
}

/**
 * DELETE = deactivate, idempotent. Its queued jobs are cancelled and its schedules disabled (a
 * `schedule.updated {enabled: false}` each) and its firing alerts resolved in the same transaction (running jobs may finish);
 * `automation.deactivated` is recorded only when the automation was active.
 */
export async function deactivateAutomation(ctx: AutomationServiceContext, reach: Reach, id: string, actorId: string): Promise<void> {
  const changed = await withTransaction(ctx.database.pool, async (tx) => {
    // FOR UPDATE: a job insert holding the row FOR KEY SHARE (insertJobIfActive) commits first, so
    // its job is cancelled below, and any later one sees `is_active = false`.
    const automation = await lockAutomationOrNotFound(tx, reach, id, "update");
    if (!automation.isActive) return false;
    await automations.update(tx, id, { isActive: false });
    await events.record(tx, { eventType: "automation.deactivated", aggregateId: id, actorId, payload: {} });
    const cancelled = await jobs.cancelQueuedOfAutomation(tx, id, actorId);
    await schedules.disableOfAutomation(tx, id, actorId);
    await alerts.resolveAlertsOf(tx, { automationId: id }, "automation_deactivated");
    return cancelled;
  });
  if (changed === false) return;
  ctx.jobLogs.announceAll(changed.map((job) => job.id));
  await clearOffers(ctx, id);
  // Dependents of the cancelled jobs elsewhere that run whatever their dependencies' outcome may be due now.
  await offerReleasedDependents(ctx, changed);
}

/**
 * Enters or leaves development mode, idempotent; the event is recorded only on a change. Leaving
 * it wakes waiting claims, which then release the held jobs oldest first.
 */
export async function setDevelopmentMode(ctx: AutomationServiceContext, reach: Reach, id: string, isDevelopment: boolean, actorId: string): Promise<void> {
  const changed = await withTransaction(ctx.database.pool, async (tx) => {
    const automation = await lockAutomationOrNotFound(tx, reach, id, "no key update");
    if (automation.isDevelopment === isDevelopment) return false;
    await automations.update(tx, id, { isDevelopment });
    await events.record(tx, {
      eventType: isDevelopment ? "automation.development_mode_entered" : "automation.development_mode_exited",
      aggregateId: id,
      actorId,
      payload: {},
    });
    return true;
  });
  if (changed && !isDevelopment) await wakeClaims(ctx, id);
}
