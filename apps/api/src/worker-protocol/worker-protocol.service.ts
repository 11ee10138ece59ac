/**
 * A worker's calls about jobs it claimed. Each passes the lease fence in @hub/db: a job of another
 * automation is 404, a job not running under this worker's current lease is 409, and a refused
 * call changes nothing — a result is recorded once. Each is one statement: no explicit transaction.
 */
import { EVERYWHERE, type Job, jobs } from "@hub/db";
import { JobNotLeasedError, NotFoundError, type HttpError } from "../http/http-errors";
import type { AppContext } from "../context";
import type { AuthenticatedWorker } from "../http/auth";
import { offerAgain, wakeClaims } from "../dispatch/signals";
import { offerReleasedDependents } from "../jobs/held-jobs";
import { claimNextJob, type PendingCompletion } from "./claim";
import { recordKeyHolds } from "../workers/key-holds.service";
import { toJobRecord } from "../jobs/jobs.service";
import type { JobRecord } from "../jobs/jobs.schemas";
import type { CompleteBatchResponse, HeartbeatBatchResponse } from "./worker-protocol.schemas";

export type WorkerCall = "heartbeat" | "complete" | "fail" | "logs" | "dependencies";

function countRefusal(ctx: AppContext, call: WorkerCall, refusal: jobs.LeaseRefusal, count = 1): void {
  ctx.metrics.jobs.workerCallsRefused.inc({ call, reason: refusal }, count);
}

/**
 * The 404 or 409 of a refused worker call about one job. The 409 says the job's status as a fresh
 * read finds it after the refusal (CONTRACT §6.12); a job gone meanwhile (retention) is a 404.
 */
export async function refused(ctx: AppContext, call: WorkerCall, jobId: string, refusal: jobs.LeaseRefusal): Promise<HttpError> {
  countRefusal(ctx, call, refusal);
  switch (refusal) {
    case "not_found":
      return new NotFoundError("Job not found");
    case "not_leased": {
      const state = await jobs.readLogState(ctx.database.pool, EVERYWHERE, jobId);
      if (!state) return new NotFoundError("Job not found");
      return new JobNotLeasedError("Job is not running under this worker's lease (it finished, was cancelled, or its lease lapsed)", state.status);
    }
    default: {
      const exhaustive: never = refusal;
      throw new Error(`unknown lease refusal ${String(exhaustive)}`);
    }
  }
}

/** A batch item's refusal as the batch endpoints name it. */
function batchStatus(refusal: jobs.LeaseRefusal): "conflict" | "not_found" {
  switch (refusal) {
    case "not_found":
      return "not_found";
    case "not_leased":
      return "conflict";
    default: {
      const exhaustive: never = refusal;
      throw new Error(`unknown lease refusal ${String(exhaustive)}`);
    }
  }
}

const fenceFor = (worker: AuthenticatedWorker, attempt: number | undefined) => ({ id: worker.id, automationId: worker.automationId, attempt });

/** A re-queued job has lost its start time with its lease, so only finished runs are measured. */
function observeRun(ctx: AppContext, outcome: "completed" | "failed", startedAt: Date | null): void {
  if (startedAt) ctx.metrics.jobs.runDuration.observe({ outcome }, (Date.now() - startedAt.getTime()) / 1000);
}

function observeFinishedRun(ctx: AppContext, job: Job): void {
  if (job.status === "completed" || job.status === "failed") observeRun(ctx, job.status, job.startedAt);
}

/**
 * POST /jobs/{job_id}/heartbeat: extends the lease by HUB_JOB_LEASE_SECONDS from now; with a
 * `progress`, replaces the job's progress, which its log streams then show (CONTRACT §6.12).
 */
export async function heartbeatJob(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  jobId: string,
  body: { attempt?: number | undefined; progress?: { percent?: number | null | undefined; message?: string | null | undefined } | undefined },
): Promise<{ lease_expires_at: string }> {
  const progress: jobs.ProgressReport | undefined = body.progress && { percent: body.progress.percent ?? null, message: body.progress.message ?? null };
  const outcome = await jobs.extendLease(ctx.database.pool, jobId, fenceFor(worker, body.attempt), ctx.env.HUB_JOB_LEASE_SECONDS, progress);
  if (!outcome.ok) throw await refused(ctx, "heartbeat", jobId, outcome.refusal);
  await recordKeyHolds(ctx, worker, [jobId]);
  if (progress) ctx.jobLogs.announce(jobId);
  return { lease_expires_at: outcome.leaseExpiresAt.toISOString() };
}

/** Records the result once (the lease fence of complete); refused: 404 or 409, nothing changed. */
async function recordResult(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  jobId: string,
  result: Record<string, unknown>,
  attempt: number | undefined,
): Promise<Job> {
  const outcome = await jobs.complete(ctx.database.pool, jobId, fenceFor(worker, attempt), result);
  if (!outcome.ok) throw await refused(ctx, "complete", jobId, outcome.refusal);
  observeFinishedRun(ctx, outcome.job);
  ctx.jobLogs.announce(jobId);
  return outcome.job;
}

/** POST /jobs/{job_id}/complete: records the result once; the freed slot lets the next claim in. */
export async function completeJobAsWorker(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  jobId: string,
  result: Record<string, unknown>,
  attempt?: number,
): Promise<JobRecord> {
  const job = await recordResult(ctx, worker, jobId, result, attempt);
  await wakeClaims(ctx, job.automationId);
  await offerReleasedDependents(ctx, [job]);
  return toJobRecord(job);
}

/**
 * POST /jobs/{job_id}/complete-and-claim: complete, then POST /jobs/claim in the same request.
 * The claim is the claim path itself (claim order, limits, keys, rate limits); the slot the result
 * freed is this claim's first, so no other claim is woken for it unless this one leaves it unused.
 * The result is recorded at the claim's first look, in the claim's statement when that look goes
 * to PostgreSQL (one round trip and one commit for both; claim.ts, PendingCompletion). A refused
 * complete claims nothing; a claim that fails once the result is recorded answers `next: null`.
 */
export async function completeJobAndClaimNext(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  jobId: string,
  request: { result: Record<string, unknown>; attempt?: number | undefined; waitSeconds: number },
  signal: AbortSignal,
): Promise<{ job: JobRecord; next: Job | null }> {
  const completing: PendingCompletion = { jobId, result: request.result, attempt: request.attempt };
  let next: Job | null = null;
  try {
    next = await claimNextJob(ctx, worker, request.waitSeconds, signal, { completing });
  } catch (error) {
    // Not recorded (the statement that records it failed): the request fails as complete would.
    if (!completing.outcome?.ok) throw error;
    // The result is recorded: the answer must say so, or a worker retrying it would be told 409.
    // Nothing was claimed (the claim is one statement); the freed slot is announced as complete does.
    ctx.logger.warn({ err: error, jobId, automationId: worker.automationId }, "complete-and-claim: the claim failed after the result was recorded");
    await wakeClaims(ctx, worker.automationId);
  }
  const completed = completing.outcome;
  if (!completed) throw new Error("complete-and-claim: the claim ended without recording the result");
  if (!completed.ok) throw await refused(ctx, "complete", jobId, completed.refusal);
  observeFinishedRun(ctx, completed.job);
  ctx.jobLogs.announce(jobId);
  await offerReleasedDependents(ctx, [completed.job]);
  // The next job as claimed: the route hands it out with its trace context (./claimed-job.ts).
  return { job: toJobRecord(completed.job), next };
}

/**
 * POST /jobs/{job_id}/fail: a retryable failure goes back to `queued` while attempts remain (the
 * automation's max_attempts, else HUB_JOB_MAX_ATTEMPTS), claimable after its back-off; anything
 * else ends `failed`.
 */
export async function failJobAsWorker(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  jobId: string,
  failure: { error: string; retryable: boolean; attempt?: number | undefined },
): Promise<JobRecord> {
  const outcome = await jobs.fail(ctx.database.pool, jobId, fenceFor(worker, failure.attempt), {
    error: failure.error,
    retryable: failure.retryable,
    maxAttempts: ctx.env.HUB_JOB_MAX_ATTEMPTS,
  });
  if (!outcome.ok) throw await refused(ctx, "fail", jobId, outcome.refusal);
  const { job, requeued } = outcome;
  observeFinishedRun(ctx, job);
  // Its log streams end (failed) or show the progress reset (queued again).
  ctx.jobLogs.announce(jobId);
  // Offering the re-queued job also wakes the automation's claims, which the freed slot needs
  // (a job in back-off waits in the delayed set; the wake-up is sent all the same).
  if (requeued) await offerAgain(ctx, job.automationId, [jobs.toJobRef(job)]);
  else {
    await wakeClaims(ctx, job.automationId);
    await offerReleasedDependents(ctx, [job]);
  }
  return toJobRecord(job);
}

/** POST /jobs/complete-batch: each item recorded or refused on its own, in one statement. */
export async function completeJobsAsWorker(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  items: Array<{ id: string; result: Record<string, unknown>; attempt?: number | undefined }>,
): Promise<CompleteBatchResponse> {
  const verdicts = await jobs.completeBatch(ctx.database.pool, worker, items);
  let completed = 0;
  for (const verdict of verdicts) {
    if (verdict.refusal) countRefusal(ctx, "complete", verdict.refusal);
    else {
      completed += 1;
      observeRun(ctx, "completed", verdict.startedAt);
    }
  }
  ctx.jobLogs.announceAll(verdicts.filter((verdict) => !verdict.refusal).map((verdict) => verdict.id));
  // One wake-up per freed slot: each wakes one waiting claim (WakeListener.wakeOne).
  if (completed > 0) await wakeClaims(ctx, worker.automationId, completed);
  await offerReleasedDependents(
    ctx,
    verdicts.filter((verdict) => !verdict.refusal),
  );
  return { results: verdicts.map(({ id, refusal }) => ({ id, status: refusal ? batchStatus(refusal) : "completed" })) };
}

/** POST /jobs/heartbeat-batch: each lease extended or refused on its own, in one statement. */
export async function heartbeatJobsAsWorker(ctx: AppContext, worker: AuthenticatedWorker, jobIds: string[]): Promise<HeartbeatBatchResponse> {
  const verdicts = await jobs.extendLeaseBatch(ctx.database.pool, worker, jobIds, ctx.env.HUB_JOB_LEASE_SECONDS);
  for (const verdict of verdicts) if (verdict.refusal) countRefusal(ctx, "heartbeat", verdict.refusal);
  await recordKeyHolds(
    ctx,
    worker,
    verdicts.filter((verdict) => !verdict.refusal).map((verdict) => verdict.id),
  );
  return {
    results: verdicts.map(({ id, refusal, leaseExpiresAt }) => ({
      id,
      status: refusal ? batchStatus(refusal) : "ok",
      lease_expires_at: leaseExpiresAt?.toISOString() ?? null,
    })),
  };
}
