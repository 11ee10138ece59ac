/**
 * Reads behind the job endpoints and the Idempotency-Key memory of POST /jobs. Job state changes
 * themselves live in @hub/db (queries/jobs.ts), each with its outbox event.
 */
import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { automations, idempotencyKeys, jobs, type AutomationParameter, type DbOrTx, type Job, type Tx } from "@hub/db";
import type { JobStatus } from "@hub/shared";

/** How long an Idempotency-Key remembers its job (CONTRACT §3 "Job"). */
const IDEMPOTENCY_WINDOW = sql`interval '24 hours'`;

export interface AutomationForNewJob {
  id: string;
  parameters: AutomationParameter[];
  isActive: boolean;
}

/**
 * What POST /jobs needs to know about the automation before inserting: its parameters (to check
 * the context) and whether it is active. A plain read: the insert itself re-checks `is_active`
 * under a lock (insertJobIfActive in @hub/db).
 */
export async function findAutomationForNewJob(db: DbOrTx, automationId: string): Promise<AutomationForNewJob | undefined> {
  const [automation] = await db
    .select({ id: automations.id, parameters: automations.parameters, isActive: automations.isActive })
    .from(automations)
    .where(eq(automations.id, automationId));
  return automation;
}

/** The job an Idempotency-Key of this user created within the last 24 h, if any. */
export async function findIdempotentJobId(db: DbOrTx, userId: string, key: string): Promise<string | undefined> {
  const [row] = await db
    .select({ jobId: idempotencyKeys.jobId })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key), sql`${idempotencyKeys.createdAt} > now() - ${IDEMPOTENCY_WINDOW}`));
  return row?.jobId;
}

/**
 * Binds the key to `jobId` unless a fresh binding exists (a stale one, older than 24 h, is
 * replaced). A concurrent transaction inserting the same key waits on the primary key until this
 * one commits, then finds the binding taken. Returns false when the key was already bound.
 */
export async function bindIdempotencyKey(tx: Tx, userId: string, key: string, jobId: string): Promise<boolean> {
  const bound = await tx
    .insert(idempotencyKeys)
    .values({ userId, key, jobId })
    .onConflictDoUpdate({
      target: [idempotencyKeys.userId, idempotencyKeys.key],
      set: { jobId, createdAt: sql`now()` },
      setWhere: sql`${idempotencyKeys.createdAt} <= now() - ${IDEMPOTENCY_WINDOW}`,
    })
    .returning({ jobId: idempotencyKeys.jobId });
  return bound.length > 0;
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
