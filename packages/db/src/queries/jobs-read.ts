/**
 * Reads behind the job endpoints: one job by id, and the `GET /jobs` list. State changes live in
 * the other `jobs-*.ts` modules, each with its outbox event.
 */
import { and, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { JobStatus } from "@hub/shared";
import type { DbOrTx } from "../client";
import { jobs, type Job } from "../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "./pagination";

export async function findJob(db: DbOrTx, id: string): Promise<Job | undefined> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, id));
  return job;
}

export interface JobFilter {
  automationId?: string | undefined;
  /** Any of these statuses; every status when absent or empty. */
  statuses?: readonly JobStatus[] | undefined;
  /** Inclusive lower bound on created_at. */
  createdAfter?: Date | undefined;
  /** Exclusive upper bound on created_at. */
  createdBefore?: Date | undefined;
}

/** GET /jobs: newest first by (created_at, id). */
export const JOBS_LIST_ORDER: KeysetOrder = { createdAt: jobs.createdAt, id: jobs.id, direction: "newest first" };

/** One page of GET /jobs. */
export async function listJobs(db: DbOrTx, filter: JobFilter, page: KeysetPageRequest): Promise<KeysetPage<Job>> {
  const conditions: SQL[] = [];
  if (filter.automationId) conditions.push(eq(jobs.automationId, filter.automationId));
  const statuses = filter.statuses ?? [];
  if (statuses.length === 1) conditions.push(eq(jobs.status, statuses[0]!));
  else if (statuses.length > 1) conditions.push(inArray(jobs.status, [...statuses]));
  if (filter.createdAfter) conditions.push(gte(jobs.createdAt, filter.createdAfter));
  if (filter.createdBefore) conditions.push(lt(jobs.createdAt, filter.createdBefore));
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
