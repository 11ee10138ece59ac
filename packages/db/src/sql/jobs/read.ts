/**
 * Reads behind the job endpoints: one job by id, and the `GET /jobs` list. State changes live in
 * the other `jobs-*.ts` modules, each with its outbox event.
 */
import { and, eq, gt, gte, inArray, lt, not, sql, type SQL } from "drizzle-orm";
import { storedJobStatusesOf, type ApprovalStatus, type JobStatus } from "@hub/shared";
import { jobs, type Job } from "../../schema";
import { findWithWaitingRow, type WaitingReason } from "./waiting";
import { jobFindConditions, listByContext, type JobFindFilter } from "./find";
import { fromRow } from "./row";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { automationIdReached, type Reach } from "../../reach";

/** A job; undefined when unknown or its automation lies outside `reach`. */
export async function find(executor: Executor, reach: Reach, id: string): Promise<Job | undefined> {
  const db = queryBuilder(executor);
  const [job] = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, id), automationIdReached(reach, jobs.automationId)));
  return job;
}

/** Why a job waits and where it stands (CONTRACT §6.3, §6.8); both null unless it is queued. */
export interface JobWaiting {
  waitingReason: WaitingReason | null;
  /** Null also while its own `available_at` is in the future. */
  queuePosition: number | null;
  /** §6.18: when the maintenance windows holding the queued job end; absent or null otherwise (and in lists). */
  resumesAt?: Date | null;
}

/** GET /jobs/{id}: the job with its waiting reason and queue position, read in one statement. */
export async function findWithWaiting(executor: Executor, reach: Reach, id: string): Promise<(Job & JobWaiting) | undefined> {
  const row = await findWithWaitingRow(executor, reach, id);
  if (!row) return undefined;
  // A rate-limited job shows when its window next allows a start (CONTRACT §6.13); its stored available_at stays.
  const shown = row.waiting_reason === "rate_limited" && row.window_opens_at != null ? { ...row, available_at: row.window_opens_at } : row;
  return {
    ...fromRow(shown),
    waitingReason: (row.waiting_reason as WaitingReason | null) ?? null,
    queuePosition: row.queue_position == null ? null : Number(row.queue_position),
    resumesAt: row.resumes_at == null ? null : new Date(row.resumes_at as string),
  };
}

export interface JobFilter extends JobFindFilter {
  automationId?: string | undefined;
  /** Any of these statuses (as shown: `queued` matches held jobs too); every status when absent or empty. */
  statuses?: readonly JobStatus[] | undefined;
  /** Inclusive lower bound on created_at. */
  createdAfter?: Date | undefined;
  /** Exclusive upper bound on created_at. */
  createdBefore?: Date | undefined;
  /** Inclusive lower bound on priority. */
  priorityMin?: number | undefined;
  /** true: queued with `available_at` still ahead (PostgreSQL's clock); false: every other job. */
  scheduled?: boolean | undefined;
  /** Jobs made by this schedule's fires (CONTRACT §6.9). */
  scheduleId?: string | undefined;
  /** Jobs whose approval is in any of these statuses (CONTRACT §6.17); jobs without an approval never match. */
  approvalStatuses?: readonly ApprovalStatus[] | undefined;
  /** The jobs that list this job in `depends_on` (CONTRACT §6.16): jobs_depends_on_idx. */
  dependsOn?: string | undefined;
  /** The retries of this job (its id in their `retry_of`). */
  retryOf?: string | undefined;
}

/** A queued job whose `available_at` is still ahead: delayed by `run_at` or in retry back-off (CONTRACT §6.8). */
const isScheduled = and(eq(jobs.status, "queued"), gt(jobs.availableAt, sql`now()`))!;

/** The WHERE conditions of `filter` within `reach` (and-ed), shared by GET /jobs and the bulk actions. */
export function jobFilterConditions(filter: JobFilter, reach: Reach): SQL[] {
  const conditions: SQL[] = [];
  const reached = automationIdReached(reach, jobs.automationId);
  if (reached) conditions.push(reached);
  if (filter.automationId) conditions.push(eq(jobs.automationId, filter.automationId));
  const statuses = storedJobStatusesOf(filter.statuses ?? []);
  if (statuses.length === 1) conditions.push(eq(jobs.status, statuses[0]!));
  else if (statuses.length > 1) conditions.push(inArray(jobs.status, [...statuses]));
  if (filter.createdAfter) conditions.push(gte(jobs.createdAt, filter.createdAfter));
  if (filter.createdBefore) conditions.push(lt(jobs.createdAt, filter.createdBefore));
  if (filter.priorityMin !== undefined) conditions.push(gte(jobs.priority, filter.priorityMin));
  if (filter.scheduled !== undefined) conditions.push(filter.scheduled ? isScheduled : not(isScheduled));
  if (filter.scheduleId) conditions.push(eq(jobs.scheduleId, filter.scheduleId));
  const approvals = filter.approvalStatuses ?? [];
  if (approvals.length === 1) conditions.push(eq(jobs.approvalStatus, approvals[0]!));
  else if (approvals.length > 1) conditions.push(inArray(jobs.approvalStatus, [...approvals]));
  if (filter.dependsOn) conditions.push(sql`${jobs.dependsOn} @> array[${filter.dependsOn}::uuid] and ${jobs.dependsOn} is not null`);
  if (filter.retryOf) conditions.push(eq(jobs.retryOf, filter.retryOf));
  conditions.push(...jobFindConditions(filter));
  return conditions;
}

/** GET /jobs: newest first by (created_at, id). */
export const JOBS_LIST_ORDER: KeysetOrder = { createdAt: jobs.createdAt, id: jobs.id, direction: "newest first" };

/** One page of GET /jobs. */
export async function list(executor: Executor, reach: Reach, filter: JobFilter, page: KeysetPageRequest): Promise<KeysetPage<Job>> {
  const db = queryBuilder(executor);
  const conditions = jobFilterConditions(filter, reach);
  const [firstContext, ...otherContexts] = filter.context ?? [];
  if (firstContext)
    return listByContext(executor, JOBS_LIST_ORDER, conditions, { automationId: filter.automationId, context: [firstContext, ...otherContexts] }, page);
  return keysetPage(
    JOBS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(jobs)
        .where(and(...conditions, after))
        .orderBy(...orderBy)
        .limit(limit),
    (job) => job,
  );
}

/**
 * Most job ids one bulk statement (and its transaction) handles (CONTRACT §6.5): a 10,000-job bulk
 * action is twenty short transactions, so it never holds many row locks for long.
 */
export const BULK_ACTION_BATCH_SIZE = 500;

/**
 * The ids of at most `limit` jobs matching `filter` that a bulk action (CONTRACT §6.5) applies to,
 * oldest first by (created_at, id). A plain read: each batch re-checks the status when it acts.
 * `filter` must name at least one condition, or this matches the whole table (up to `limit`).
 */
export async function findIdsForBulkAction(executor: Executor, reach: Reach, filter: JobFilter, limit: number): Promise<string[]> {
  const db = queryBuilder(executor);
  const rows = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(...jobFilterConditions(filter, reach)))
    .orderBy(jobs.createdAt, jobs.id)
    .limit(limit);
  return rows.map((row) => row.id);
}
