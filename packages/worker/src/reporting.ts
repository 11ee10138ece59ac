/** Reporting a job's outcome to the hub: one by one, or results together in complete-batch calls. */
import { HubRequestError, HubUnreachableError, isTakenBack, isTransient, WorkerUnauthorizedError } from "./errors.js";
import type { EmitWorkerEvent } from "./events.js";
import { MAX_BATCH_SIZE, type HubJob, type HubWorkerClient } from "./hub-client.js";
import { failureText, type JobResult, type Outcome } from "./outcome.js";
import { nextBackoff, sleep } from "./timing.js";

export interface ReporterOptions {
  /** With `completeAndClaim`, a completion may bring the slot's next job (see {@link Reporter.report}). */
  client: Pick<HubWorkerClient, "complete" | "fail" | "completeBatch"> & Partial<Pick<HubWorkerClient, "completeAndClaim">>;
  emit: EmitWorkerEvent;
  /** The key stopped working: the worker should claim no more. */
  onUnauthorized(error: WorkerUnauthorizedError): void;
}

export interface Reporter {
  /**
   * Sends the outcome, retrying transient errors while the lease surely holds (`heldUntilMs`, our
   * clock); resolves once it was recorded or given up on. With `claimNext`, a successful result is
   * reported with complete-and-claim (no wait) where the client has it, and resolves with the next
   * job it brought, now in the caller's hands; otherwise with null.
   */
  report(job: HubJob, outcome: Outcome, heldUntilMs: number, claimNext?: boolean): Promise<HubJob | null>;
}

/** 413 or 422 to a complete: the result itself is unacceptable (too large, text PostgreSQL cannot hold). */
function refusesResult(error: unknown): error is HubRequestError {
  return error instanceof HubRequestError && (error.status === 413 || error.status === 422);
}

/** Reports each outcome with its own complete or fail call. */
export function singleReporter(options: ReporterOptions): Reporter {
  const { client, emit } = options;
  async function report(job: HubJob, outcome: Outcome, heldUntilMs: number, claimNext = false): Promise<HubJob | null> {
    let current = outcome;
    let unanswered = false;
    let backoffMs = 0;
    for (;;) {
      const during = current.ok ? "complete" : "fail";
      try {
        if (current.ok && claimNext && client.completeAndClaim) {
          const { job: completed, next } = await client.completeAndClaim(job.id, current.result, { attempt: job.attempts, waitSeconds: 0 });
          emit({ type: "completed", job: completed, result: current.result });
          return next;
        }
        if (current.ok) {
          emit({ type: "completed", job: await client.complete(job.id, current.result, job.attempts), result: current.result });
        } else {
          const failed = await client.fail(job.id, { error: current.error, retryable: current.retryable, attempt: job.attempts });
          emit({ type: "failed", job: failed, error: current.error, retryable: current.retryable });
        }
        return null;
      } catch (error) {
        if (isTakenBack(error)) {
          emit(unanswered ? { type: "report_unconfirmed", jobId: job.id, during } : { type: "lease_lost", jobId: job.id, during });
          return null;
        }
        if (current.ok && refusesResult(error)) {
          // Retrying the same result cannot succeed, and leaving the job to its lease would run it again.
          emit({ type: "hub_error", operation: during, message: error.message, retryInMs: 0 });
          current = { ok: false, error: failureText(`the hub refused the handler's result: ${error.message}`), retryable: false };
          continue;
        }
        const waitMs = nextBackoff(backoffMs, error);
        if (!isTransient(error) || Date.now() + waitMs > heldUntilMs) {
          if (error instanceof WorkerUnauthorizedError) options.onUnauthorized(error);
          emit({ type: "hub_error", operation: during, message: (error as Error).message, retryInMs: -1 });
          return null;
        }
        unanswered ||= error instanceof HubUnreachableError;
        backoffMs = waitMs;
        emit({ type: "hub_error", operation: during, message: (error as Error).message, retryInMs: waitMs });
        await sleep(waitMs);
      }
    }
  }
  return { report };
}

interface PendingResult {
  job: HubJob;
  result: JobResult;
  heldUntilMs: number;
  done: () => void;
}

/**
 * Results wait for the complete-batch call under way, then go together in the next (at most
 * {@link MAX_BATCH_SIZE}), so under load one call reports many jobs and when idle a result leaves
 * at once. Failures are reported one by one.
 */
export function batchReporter(options: ReporterOptions): Reporter {
  const { client, emit } = options;
  const single = singleReporter(options);
  const pending: PendingResult[] = [];
  let flushing: Promise<void> | undefined;

  const flushSoon = () => {
    flushing ??= flush().finally(() => {
      flushing = undefined;
      if (pending.length > 0) flushSoon();
    });
  };

  async function flush(): Promise<void> {
    const batch = pending.splice(0, MAX_BATCH_SIZE);
    // The batch may be retried only while every lease in it surely holds.
    const heldUntilMs = Math.min(...batch.map((item) => item.heldUntilMs));
    let unanswered = false;
    let backoffMs = 0;
    try {
      for (;;) {
        try {
          const verdicts = await client.completeBatch(batch.map(({ job, result }) => ({ id: job.id, result, attempt: job.attempts })));
          batch.forEach(({ job, result }, index) => {
            if (verdicts[index]?.status === "completed") emit({ type: "completed", job: { ...job, status: "completed", result }, result });
            else
              emit(unanswered ? { type: "report_unconfirmed", jobId: job.id, during: "complete" } : { type: "lease_lost", jobId: job.id, during: "complete" });
          });
          return;
        } catch (error) {
          if (refusesResult(error)) {
            // One unacceptable result refuses the whole call: report each on its own instead.
            await Promise.all(batch.map((item) => single.report(item.job, { ok: true, result: item.result }, item.heldUntilMs)));
            return;
          }
          const waitMs = nextBackoff(backoffMs, error);
          if (!isTransient(error) || Date.now() + waitMs > heldUntilMs) {
            if (error instanceof WorkerUnauthorizedError) options.onUnauthorized(error);
            emit({ type: "hub_error", operation: "complete-batch", message: (error as Error).message, retryInMs: -1 });
            return;
          }
          unanswered ||= error instanceof HubUnreachableError;
          backoffMs = waitMs;
          emit({ type: "hub_error", operation: "complete-batch", message: (error as Error).message, retryInMs: waitMs });
          await sleep(waitMs);
        }
      }
    } finally {
      for (const item of batch) item.done();
    }
  }

  return {
    report(job, outcome, heldUntilMs) {
      if (!outcome.ok) return single.report(job, outcome, heldUntilMs);
      return new Promise<HubJob | null>((done) => {
        pending.push({ job, result: outcome.result, heldUntilMs, done: () => done(null) });
        flushSoon();
      });
    },
  };
}
