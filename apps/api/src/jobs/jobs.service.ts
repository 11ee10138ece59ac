import { type Job, type KeysetPage, type KeysetPageRequest, jobs, withTransaction, type Executor, type Reach } from "@hub/db";
import { isRetryable, RETRYABLE_JOB_STATUSES, shownJobStatus, validate } from "@hub/shared";
import type { StoredTraceContext } from "@hub/tracing";
import { ConflictError, ForbiddenError, NotFoundError, RequestValidationError } from "../http/http-errors";
import { jobContextSchemaOf } from "../automations/context-schema";
import type { AppContext } from "../context";
import type { AuthenticatedUser } from "../http/auth";
import { enqueueForDispatch, wakeClaims, withdrawOffers } from "../dispatch/signals";
import { offerReleasedDependents } from "./held-jobs";
import { inactiveAutomation } from "./create-jobs.service";
import { retryWithDependencies } from "./retry-flow.service";
import {
  BULK_ACTION_LISTED_IDS,
  BULK_ACTION_STATUSES,
  type BulkAction,
  type BulkActionBody,
  type BulkActionResponse,
  type JobRecord,
  type ListJobsQuery,
  type RetryJobBody,
} from "./jobs.schemas";
import { approvalRecordOf } from "../approvals/approvals.schemas";

const NOT_WAITING: jobs.JobWaiting = { waitingReason: null, queuePosition: null };

/**
 * The job as the API shows it, for the records that state changes answer with: `waiting_reason`
 * and `queue_position` stay null there (the job is running or finished, or was just re-queued).
 */
export function toJobRecord(job: Job): JobRecord {
  return toJobRecordWithWaiting(job, NOT_WAITING);
}

/** The job as the API shows it, with the waiting fields the reads compute (GET /jobs/{id}, GET /jobs). */
export function toJobRecordWithWaiting(job: Job, waiting: jobs.JobWaiting): JobRecord {
  return {
    id: job.id,
    automation_id: job.automationId,
    // A held job (its dependencies or approval pending) is a queued job to every reader.
    status: shownJobStatus(job.status),
    context: job.context,
    result: job.result,
    error: job.error,
    attempts: job.attempts,
    created_by: job.createdBy,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    lease_expires_at: job.leaseExpiresAt?.toISOString() ?? null,
    waiting_reason: waiting.waitingReason,
    queue_position: waiting.queuePosition,
    resumes_at: waiting.resumesAt?.toISOString() ?? null,
    available_at: job.availableAt.toISOString(),
    retry_of: job.retryOf,
    run_at: job.runAt?.toISOString() ?? null,
    priority: job.priority,
    schedule_id: job.scheduleId,
    fire_time: job.fireTime?.toISOString() ?? null,
    progress: job.progress,
    approval: approvalRecordOf(job),
    depends_on: job.dependsOn ?? [],
    on_dependency_failure: job.onDependencyFailure ?? "cancel",
    pending_dependencies: job.pendingDependencies ?? 0,
  };
}

/** One page of GET /jobs, newest first. */
export async function listJobs(db: Executor, reach: Reach, query: ListJobsQuery, page: KeysetPageRequest): Promise<KeysetPage<JobRecord>> {
  const { items, next } = await jobs.list(
    db,
    reach,
    {
      automationId: query.automation_id,
      statuses: query.status,
      approvalStatuses: query.approval,
      createdAfter: query.created_after,
      createdBefore: query.created_before,
      priorityMin: query.priority_min,
      scheduled: query.scheduled,
      scheduleId: query.schedule_id,
      dependsOn: query.depends_on,
      createdBy: query.created_by,
      retryOf: query.retry_of,
      finishedAfter: query.finished_after,
      finishedBefore: query.finished_before,
      errorContains: query.error_contains,
      context: query.context,
    },
    page,
  );
  // One more statement for the whole page, only when it holds queued jobs; positions stay null in lists.
  const reasons = await jobs.waitingReasonsOf(
    db,
    items.filter((job) => shownJobStatus(job.status) === "queued"),
  );
  return { items: items.map((job) => toJobRecordWithWaiting(job, { waitingReason: reasons.get(job.id) ?? null, queuePosition: null })), next };
}

export async function getJob(db: Executor, reach: Reach, jobId: string): Promise<JobRecord> {
  const job = await jobs.findWithWaiting(db, reach, jobId);
  if (!job) throw new NotFoundError("Job not found");
  return toJobRecordWithWaiting(job, job);
}

/** POST /jobs/{job_id}/cancel: admins cancel any job, employees only the jobs they created. */
export async function cancelJobAsUser(ctx: AppContext, reach: Reach, user: AuthenticatedUser, jobId: string): Promise<JobRecord> {
  const cancelled = await withTransaction(ctx.database.pool, async (tx) => {
    const job = await jobs.find(tx, reach, jobId);
    if (!job) throw new NotFoundError("Job not found");
    if (user.role !== "admin" && job.createdBy !== user.id) throw new ForbiddenError("Employees may cancel only the jobs they created");
    const outcome = await jobs.cancel(tx, jobId, user.id);
    if (outcome.ok) return outcome;
    switch (outcome.refusal) {
      case "not_found":
        throw new NotFoundError("Job not found");
      case "finished":
        throw new ConflictError("Job has already finished");
      default: {
        const exhaustive: never = outcome.refusal;
        throw new Error(`unknown cancel refusal ${String(exhaustive)}`);
      }
    }
  });
  const { job } = cancelled;
  ctx.jobLogs.announce(job.id);
  // A running job freed a concurrency slot; a queued one must no longer be offered.
  if (cancelled.wasRunning) await wakeClaims(ctx, job.automationId);
  else await withdrawOffers(ctx, job.automationId, [job]);
  await offerReleasedDependents(ctx, [job]);
  return toJobRecord(job);
}

/**
 * What POST /jobs/{job_id}/retry refuses before its body is read (CONTRACT §6.14's order): an
 * unknown job (404), then an employee's retry of a job it did not create (403).
 */
export async function checkRetryAllowed(db: Executor, reach: Reach, user: AuthenticatedUser, jobId: string): Promise<void> {
  const job = await jobs.find(db, reach, jobId);
  if (!job) throw new NotFoundError("Job not found");
  if (user.role !== "admin" && job.createdBy !== user.id) throw new ForbiddenError("Employees may retry only the jobs they created");
}

const notRetryable = (status: string) => new ConflictError(`Only ${RETRYABLE_JOB_STATUSES.join(" or ")} jobs can be retried; this one is ${status}`);

/**
 * POST /jobs/{job_id}/retry (CONTRACT §6.4, §6.14): a new queued job with the failed or cancelled
 * job's automation and priority, its context (or `body.context`, checked against the automation's
 * parameters), `retry_of` = its id. Admins retry any job, employees only the jobs they created.
 * Order: 404, 403, then (the body's shape was checked in between) 409 for another status or an
 * inactive automation, then 422 for a context that does not fit.
 */
export async function retryJobAsUser(
  ctx: AppContext,
  reach: Reach,
  user: AuthenticatedUser,
  jobId: string,
  body: RetryJobBody,
  trace: StoredTraceContext | undefined,
): Promise<{ id: string; ids?: string[] }> {
  const job = await jobs.find(ctx.database.pool, reach, jobId);
  if (!job) throw new NotFoundError("Job not found");
  if (user.role !== "admin" && job.createdBy !== user.id) throw new ForbiddenError("Employees may retry only the jobs they created");
  const status = shownJobStatus(job.status);
  if (!isRetryable(status)) throw notRetryable(status);
  // With dependencies of its own the retry waits for them too; with_dependents retries the jobs its end cancelled (§6.16).
  if (body.with_dependents || (job.dependsOn?.length ?? 0) > 0) {
    const retried = await retryWithDependencies(ctx, reach, user, job, body, trace);
    return body.with_dependents ? retried : { id: retried.id };
  }
  let retry: jobs.RetryJobRef | undefined;
  if (body.context === undefined) {
    [retry] = await jobs.retry(ctx.database.pool, user.id, [jobId], trace);
    // Failed and cancelled are final, so the statement refused only for the automation.
    if (!retry) throw inactiveAutomation();
  } else {
    const outcome = await jobs.retryWithContext(ctx.database.pool, user.id, jobId, body.context, trace);
    switch (outcome.kind) {
      case "created":
        retry = outcome.job;
        break;
      case "not_found":
        // Removed by retention since it was read.
        throw new NotFoundError("Job not found");
      case "refused": {
        if (!outcome.retryable) throw notRetryable(status);
        if (!outcome.automationActive) throw inactiveAutomation();
        const context = validate(jobContextSchemaOf(outcome.parameters), body.context, ["body", "context"]);
        if (!context.ok) throw new RequestValidationError(context.issues);
        throw new Error("retry refused although the job, its automation and the context passed every check");
      }
      default: {
        const exhaustive: never = outcome;
        throw new Error(`unknown retry outcome ${String(exhaustive)}`);
      }
    }
  }
  ctx.metrics.jobs.created.inc();
  // A retry awaiting approval is held: offered once approved (../approvals/release.ts).
  if (!retry.held) enqueueForDispatch(ctx, [retry]);
  return { id: retry.id };
}

/** `ids` in slices of at most `size`, in order. */
function slicesOf<T>(ids: readonly T[], size: number): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < ids.length; start += size) slices.push(ids.slice(start, start + size));
  return slices;
}

/**
 * One batch of a bulk cancel, in its own short transaction; then, per automation, the freed slots
 * wake waiting claims and the cancelled queued jobs stop being offered. Returns the cancelled ids.
 */
async function cancelBatch(ctx: AppContext, user: AuthenticatedUser, ids: readonly string[]): Promise<string[]> {
  const cancelled = await withTransaction(ctx.database.pool, (tx) => jobs.cancelMany(tx, ids, user.id));
  ctx.jobLogs.announceAll(cancelled.map((job) => job.id));
  const byAutomation = new Map<string, { freedSlots: number; queued: jobs.CancelledJob[] }>();
  for (const job of cancelled) {
    const signals = byAutomation.get(job.automationId) ?? { freedSlots: 0, queued: [] };
    if (job.wasRunning) signals.freedSlots += 1;
    else signals.queued.push(job);
    byAutomation.set(job.automationId, signals);
  }
  for (const [automationId, { freedSlots, queued }] of byAutomation) {
    if (freedSlots > 0) await wakeClaims(ctx, automationId, freedSlots);
    if (queued.length > 0) await withdrawOffers(ctx, automationId, queued);
  }
  await offerReleasedDependents(ctx, cancelled);
  return cancelled.map((job) => job.id);
}

/**
 * One batch of a bulk retry: one statement (@hub/db `jobs.retry`) creates the retries of the jobs
 * still failed or cancelled whose automation is active; the new jobs go to dispatch as POST /jobs
 * hands them. Returns the ids of the retried (old) jobs.
 */
async function retryBatch(ctx: AppContext, user: AuthenticatedUser, ids: readonly string[], trace: StoredTraceContext | undefined): Promise<string[]> {
  const created = await jobs.retry(ctx.database.pool, user.id, ids, trace);
  ctx.metrics.jobs.created.inc(created.length);
  enqueueForDispatch(
    ctx,
    created.filter((job) => !job.held),
  );
  return created.map((job) => job.retryOf);
}

/**
 * POST /jobs/bulk-cancel and /jobs/bulk-retry (CONTRACT §6.5, admins): selects up to `limit`
 * matching jobs, oldest first, in the statuses the action applies to (the given `status` list, or
 * all of them), then acts in batches of {@link jobs.BULK_ACTION_BATCH_SIZE}, each its own short
 * transaction that re-checks the status, so jobs that changed state meanwhile are skipped.
 * `job_ids` lists the affected jobs (the matched ones on a dry run), at most
 * {@link BULK_ACTION_LISTED_IDS}; for a retry these are the retried jobs, whose retries carry
 * `retry_of` and store `trace`, the request's trace context (a cancel creates no job and ignores it).
 */
export async function runBulkAction(
  ctx: AppContext,
  reach: Reach,
  user: AuthenticatedUser,
  action: BulkAction,
  body: BulkActionBody,
  trace: StoredTraceContext | undefined,
): Promise<BulkActionResponse> {
  const matchedIds = await jobs.findIdsForBulkAction(
    ctx.database.pool,
    reach,
    {
      automationId: body.automation_id,
      statuses: body.status ?? BULK_ACTION_STATUSES[action],
      createdAfter: body.created_after,
      createdBefore: body.created_before,
    },
    body.limit,
  );
  if (body.dry_run) return { matched: matchedIds.length, affected: 0, job_ids: matchedIds.slice(0, BULK_ACTION_LISTED_IDS) };
  const affectedIds: string[] = [];
  for (const batch of slicesOf(matchedIds, jobs.BULK_ACTION_BATCH_SIZE)) {
    let done: string[];
    switch (action) {
      case "cancel":
        done = await cancelBatch(ctx, user, batch);
        break;
      case "retry":
        done = await retryBatch(ctx, user, batch, trace);
        break;
      default: {
        const exhaustive: never = action;
        throw new Error(`unknown bulk action ${String(exhaustive)}`);
      }
    }
    // In the selection's order (oldest first), which the statements' RETURNING does not keep.
    const affected = new Set(done);
    affectedIds.push(...batch.filter((id) => affected.has(id)));
  }
  return { matched: matchedIds.length, affected: affectedIds.length, job_ids: affectedIds.slice(0, BULK_ACTION_LISTED_IDS) };
}
