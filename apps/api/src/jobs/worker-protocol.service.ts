/**
 * A worker's calls about a job it claimed. Each passes the lease fence in @hub/db: a job of another
 * automation is 404, a job not running under this worker's current lease is 409, and a refused
 * call changes nothing — a result is recorded once.
 */
import { completeJob, extendLease, failJob, toJobRef, type Job, type LeaseRefusal } from "@hub/db";
import { ConflictError, NotFoundError, type HttpError } from "@hub/shared";
import type { AppContext } from "../context";
import type { AuthenticatedWorker } from "../http/auth";
import { offerAgain, wakeClaims } from "../dispatch/signals";
import { toJobRecord } from "./jobs.service";
import type { JobRecord } from "./jobs.schemas";

type WorkerCall = "heartbeat" | "complete" | "fail";

function refused(ctx: AppContext, call: WorkerCall, refusal: LeaseRefusal): HttpError {
  ctx.metrics.jobs.workerCallsRefused.inc({ call, reason: refusal });
  switch (refusal) {
    case "not_found":
      return new NotFoundError("Job not found");
    case "not_leased":
      return new ConflictError("Job is not running under this worker's lease (it finished, was cancelled, or its lease lapsed)");
    default: {
      const exhaustive: never = refusal;
      throw new Error(`unknown lease refusal ${String(exhaustive)}`);
    }
  }
}

const fenceFor = (worker: AuthenticatedWorker, attempt: number | undefined) => ({ id: worker.id, automationId: worker.automationId, attempt });

/** A re-queued job has lost its start time with its lease, so only finished runs are measured. */
function observeRun(ctx: AppContext, job: Job): void {
  if (job.startedAt && (job.status === "completed" || job.status === "failed")) {
    ctx.metrics.jobs.runDuration.observe({ outcome: job.status }, (Date.now() - job.startedAt.getTime()) / 1000);
  }
}

/** POST /jobs/{job_id}/heartbeat: extends the lease by HUB_JOB_LEASE_SECONDS from now. */
export async function heartbeatJob(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  jobId: string,
  attempt?: number,
): Promise<{ lease_expires_at: string }> {
  const outcome = await ctx.db.transaction((tx) => extendLease(tx, jobId, fenceFor(worker, attempt), ctx.env.HUB_JOB_LEASE_SECONDS));
  if (!outcome.ok) throw refused(ctx, "heartbeat", outcome.refusal);
  return { lease_expires_at: outcome.leaseExpiresAt.toISOString() };
}

/** POST /jobs/{job_id}/complete: records the result once; the freed slot lets the next claim in. */
export async function completeJobAsWorker(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  jobId: string,
  result: Record<string, unknown>,
  attempt?: number,
): Promise<JobRecord> {
  // One statement: no explicit transaction needed.
  const outcome = await completeJob(ctx.db, jobId, fenceFor(worker, attempt), result);
  if (!outcome.ok) throw refused(ctx, "complete", outcome.refusal);
  observeRun(ctx, outcome.job);
  await wakeClaims(ctx, outcome.job.automationId);
  return toJobRecord(outcome.job);
}

/**
 * POST /jobs/{job_id}/fail: a retryable failure goes back to `queued` while attempts remain
 * (HUB_JOB_MAX_ATTEMPTS), anything else ends `failed`.
 */
export async function failJobAsWorker(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  jobId: string,
  failure: { error: string; retryable: boolean; attempt?: number | undefined },
): Promise<JobRecord> {
  const outcome = await ctx.db.transaction((tx) =>
    failJob(tx, jobId, fenceFor(worker, failure.attempt), { error: failure.error, retryable: failure.retryable, maxAttempts: ctx.env.HUB_JOB_MAX_ATTEMPTS }),
  );
  if (!outcome.ok) throw refused(ctx, "fail", outcome.refusal);
  const { job, requeued } = outcome;
  observeRun(ctx, job);
  // Offering the re-queued job also wakes the automation's claims, which the freed slot needs.
  if (requeued) await offerAgain(ctx, job.automationId, [toJobRef(job)]);
  else await wakeClaims(ctx, job.automationId);
  return toJobRecord(job);
}
