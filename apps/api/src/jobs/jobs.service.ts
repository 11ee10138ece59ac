import { cancelJob, findJob, insertJobIfActive, toJobRef, type DbOrTx, type Job } from "@hub/db";
import { ConflictError, ForbiddenError, NotFoundError, RequestValidationError, validate } from "@hub/shared";
import { jobContextSchemaOf } from "../automations/context-schema";
import type { AppContext } from "../context";
import type { AuthenticatedUser } from "../http/auth";
import { enqueueForDispatch, wakeClaims, withdrawOffers } from "../dispatch/signals";
import { bindIdempotencyKey, findAutomationForNewJob, findIdempotentJobId, listJobs as selectJobs } from "./jobs.queries";
import type { CreateJobBody, JobRecord, ListJobsQuery } from "./jobs.schemas";

export function toJobRecord(job: Job): JobRecord {
  return {
    id: job.id,
    automation_id: job.automationId,
    status: job.status,
    context: job.context,
    result: job.result,
    error: job.error,
    attempts: job.attempts,
    created_by: job.createdBy,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    finished_at: job.finishedAt?.toISOString() ?? null,
    lease_expires_at: job.leaseExpiresAt?.toISOString() ?? null,
  };
}

/** Thrown inside the creating transaction to roll it back when the Idempotency-Key turned out taken. */
class IdempotentReplay extends Error {
  constructor(readonly jobId: string) {
    super("idempotent replay");
  }
}

export interface CreatedJob {
  id: string;
  /** True when an earlier request with the same Idempotency-Key created the job. */
  replayed: boolean;
}

/**
 * POST /jobs: checks the context against the automation's parameters and inserts the job with its
 * `job.created` event (and the Idempotency-Key binding) in one transaction; once committed, hands
 * the job to the dispatcher.
 */
export async function createJob(
  ctx: AppContext,
  creator: AuthenticatedUser,
  input: CreateJobBody,
  idempotencyKey: string | undefined,
): Promise<CreatedJob> {
  if (idempotencyKey) {
    const earlier = await findIdempotentJobId(ctx.db, creator.id, idempotencyKey);
    if (earlier) return { id: earlier, replayed: true };
  }
  const automation = await findAutomationForNewJob(ctx.db, input.automation_id);
  if (!automation) {
    throw new RequestValidationError([{ loc: ["body", "automation_id"], msg: "Value error, automation not found", type: "value_error" }]);
  }
  const context = validate(jobContextSchemaOf(automation.parameters), input.context, ["body", "context"]);
  if (!context.ok) throw new RequestValidationError(context.issues);
  const inactive = () => new ConflictError("Automation is deactivated and accepts no new jobs");
  if (!automation.isActive) throw inactive();
  const newJob = { automationId: automation.id, context: context.value, createdBy: creator.id };

  let job: Job;
  if (!idempotencyKey) {
    // One statement, no explicit transaction: the common path.
    const created = await insertJobIfActive(ctx.db, newJob);
    if (!created) throw inactive();
    job = created;
  } else {
    try {
      job = await ctx.db.transaction(async (tx) => {
        const created = await insertJobIfActive(tx, newJob);
        if (!created) throw inactive();
        if (!(await bindIdempotencyKey(tx, creator.id, idempotencyKey, created.id))) {
          // A concurrent request with the same key committed first: answer with its job, create nothing.
          const earlier = await findIdempotentJobId(tx, creator.id, idempotencyKey);
          if (!earlier) throw new ConflictError("A request with this Idempotency-Key is in progress; retry it");
          throw new IdempotentReplay(earlier);
        }
        return created;
      });
    } catch (error) {
      if (error instanceof IdempotentReplay) return { id: error.jobId, replayed: true };
      throw error;
    }
  }
  ctx.metrics.jobs.created.inc();
  await enqueueForDispatch(ctx, toJobRef(job));
  return { id: job.id, replayed: false };
}

export async function listJobs(db: DbOrTx, query: ListJobsQuery): Promise<JobRecord[]> {
  const rows = await selectJobs(db, { automationId: query.automation_id, status: query.status, limit: query.limit });
  return rows.map(toJobRecord);
}

export async function getJob(db: DbOrTx, jobId: string): Promise<JobRecord> {
  const job = await findJob(db, jobId);
  if (!job) throw new NotFoundError("Job not found");
  return toJobRecord(job);
}

/** POST /jobs/{job_id}/cancel: admins cancel any job, employees only the jobs they created. */
export async function cancelJobAsUser(ctx: AppContext, user: AuthenticatedUser, jobId: string): Promise<JobRecord> {
  const cancelled = await ctx.db.transaction(async (tx) => {
    const job = await findJob(tx, jobId);
    if (!job) throw new NotFoundError("Job not found");
    if (user.role !== "admin" && job.createdBy !== user.id) throw new ForbiddenError("Employees may cancel only the jobs they created");
    const outcome = await cancelJob(tx, jobId, user.id);
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
  // A running job freed a concurrency slot; a queued one must no longer be offered.
  if (cancelled.wasRunning) await wakeClaims(ctx, job.automationId);
  else await withdrawOffers(ctx, job.automationId, [job.id]);
  return toJobRecord(job);
}
