/**
 * Reads behind the job endpoints: one job by id, and the `GET /jobs` list. State changes live in
 * the other `jobs-*.ts` modules, each with its outbox event.
 */
import { and, desc, eq, type SQL } from "drizzle-orm";
import type { JobStatus } from "@hub/shared";
import type { DbOrTx } from "../client";
import { jobs, type Job } from "../schema";

export async function findJob(db: DbOrTx, id: string): Promise<Job | undefined> {
  const [job] = await db.select().from(jobs).where(eq(jobs.id, id));
  return job;
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
