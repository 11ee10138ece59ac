/**
 * Reads behind the job endpoints: one job by id, and the `GET /jobs` list. State changes live in
 * the other `jobs-*.ts` modules, each with its outbox event.
 */
import { and, desc, eq, type SQL } from "drizzle-orm";
import type { JobStatus } from "@hub/shared";
import type { DbOrTx } from "../client";
import { jobs, type Job } from "../schema";
import { findJobWithWaitingRow, type WaitingReason } from "./automation-stats";
import { jobFromRow } from "./jobs-row";

export async function findJob(db: DbOrTx, id: string): Promise<Job | undefined> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, id));
  return job;
}

/** Why a job waits and where it stands (CONTRACT §6.3, §6.8); both null unless it is queued. */
export interface JobWaiting {
  waitingReason: WaitingReason | null;
  /** Null also while its own `available_at` is in the future. */
  queuePosition: number | null;
}

/** GET /jobs/{id}: the job with its waiting reason and queue position, read in one statement. */
export async function findJobWithWaiting(db: DbOrTx, id: string): Promise<(Job & JobWaiting) | undefined> {
  const row = await findJobWithWaitingRow(db, id);
  if (!row) return undefined;
  return {
    ...jobFromRow(row),
    waitingReason: (row.waiting_reason as WaitingReason | null) ?? null,
    queuePosition: row.queue_position == null ? null : Number(row.queue_position),
  };
}

export interface JobFilter {
  automationId?: string | undefined;
  status?: JobStatus | undefined;
  limit: number;
}

/** GET /jobs: newest first. */
export async function listJobs(db: DbOrTx, filter: JobFilter): Promise<Job[]> {
  const conditions: SQL[] = [];
  if (filter.automationId) conditions.push(eq(jobs.automationId, filter.automationId));
  if (filter.status) conditions.push(eq(jobs.status, filter.status));
  return db
    .select()
    .from(jobs)
    .where(and(...conditions))
    .orderBy(desc(jobs.createdAt), desc(jobs.id))
    .limit(filter.limit);
}
