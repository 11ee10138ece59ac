import { jobs, withTransaction, type Reach } from "@hub/db";
import { ConflictError, ForbiddenError, NotFoundError } from "../http/http-errors";
import type { AppContext } from "../context";
import { moveOffer } from "../dispatch/signals";
import type { AuthenticatedUser } from "../http/auth";
import { getJob } from "./jobs.service";
import type { JobRecord, RescheduleJobBody } from "./jobs.schemas";

/**
 * POST /jobs/{job_id}/reschedule (CONTRACT §6.8): a queued job gets a new `run_at` (null = now)
 * and/or `priority`, with its `job.rescheduled` event, in one transaction; once committed, its offer
 * in Redis moves to its new place in claim order (or to the delayed set, or out of Redis until its
 * time nears), so the next claim already follows the new order. Admins reschedule any job,
 * employees only the jobs they created. Answers the job as GET /jobs/{job_id} reads it then.
 */
export async function rescheduleJobAsUser(ctx: AppContext, reach: Reach, user: AuthenticatedUser, jobId: string, body: RescheduleJobBody): Promise<JobRecord> {
  const outcome = await withTransaction(ctx.database.pool, (tx) =>
    jobs.reschedule(tx, reach, jobId, { runAt: body.run_at, priority: body.priority }, { userId: user.id, mayRescheduleAnyJob: user.role === "admin" }),
  );
  if (!outcome.ok) {
    switch (outcome.refusal) {
      case "not_found":
        throw new NotFoundError("Job not found");
      case "not_creator":
        throw new ForbiddenError("Employees may reschedule only the jobs they created");
      case "not_queued":
        throw new ConflictError(`Only queued jobs can be rescheduled; this one is ${outcome.status ?? "not queued"}`);
      default: {
        const exhaustive: never = outcome.refusal;
        throw new Error(`unknown reschedule refusal ${String(exhaustive)}`);
      }
    }
  }
  // A held job is not offered before its release (packages/db/src/sql/jobs/hold.ts).
  if (outcome.job.status !== "held") await moveOffer(ctx, jobs.toJobRef(outcome.previous), jobs.toJobRef(outcome.job));
  // As GET /jobs/{job_id} shows it: with its waiting reason and queue position after the change.
  return getJob(ctx.database.pool, reach, jobId);
}
