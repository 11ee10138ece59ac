/**
 * The worker's loop: claims jobs (one long-poll per free slot, or claim-batch calls), works each
 * while keeping its lease alive (a heartbeat every lease/3), then reports the outcome.
 *
 * Delivery is at least once: a job whose lease lapsed (worker too slow, paused, partitioned) is
 * queued again by the hub and may be handed to another claim, and the late result of the first
 * is refused (409). A handler therefore receives a signal that aborts when the lease is lost, and
 * should be safe to run twice.
 */
import { isTransient, type WorkerUnauthorizedError } from "./errors.js";
import type { EmitWorkerEvent, LeaseLossCause } from "./events.js";
import { MAX_PROGRESS_MESSAGE_LENGTH, type HubJob, type HubWorkerClient, type JobProgress, type LogLevel } from "./hub-client.js";
import { openJobLog, type LogBudget } from "./job-log.js";
import { keepLeased } from "./lease.js";
import type { Outcome } from "./outcome.js";
import { batchReporter, singleReporter } from "./reporting.js";
import type { CancelListeners } from "./signals.js";
import { nextBackoff, sleep } from "./timing.js";

/**
 * What the loop needs of a client: {@link HubWorkerClient}, or a stand-in in tests. Without
 * `completeAndClaim`, a slot reports with complete and claims with its own request.
 */
export type WorkerProtocol = Pick<HubWorkerClient, "claim" | "claimBatch" | "heartbeat" | "complete" | "completeBatch" | "fail" | "appendLogs"> &
  Partial<Pick<HubWorkerClient, "completeAndClaim">>;

/** Why a handler's signal aborted; the signal's `reason`. */
export class JobAbortedError extends Error {
  constructor(
    readonly why: "lease_lost" | "shutdown",
    /**
     * For `lease_lost`, what the hub said when it said why: the signal's reason
     * (`cancelled_by_user`, `timeout`, `lease_expired`, `worker_unregistered`, `worker_key_rotated`) or the job's
     * status in a refusal's body (`cancelled`, `queued` …).
     */
    readonly hubReason?: string,
  ) {
    super(
      why === "lease_lost"
        ? `the job is no longer this worker's (cancelled, or its lease lapsed${hubReason ? `; the hub says ${hubReason}` : ""}): its result would be refused`
        : "the worker is shutting down and gave the job back to the hub",
    );
    this.name = "JobAbortedError";
  }
}

/** What a handler may do with the job in hand besides returning its result. */
export interface JobControls {
  /** Aborts with a {@link JobAbortedError} when the result is no longer wanted. */
  signal: AbortSignal;
  /** Queues a log line for the hub; never waits, never throws. */
  log(level: LogLevel, message: string): void;
  /** Reports progress (percent 0–100, message ≤ 500 characters) with a heartbeat soon. */
  progress(percent?: number, message?: string): void;
}

/** How long a job's last log lines may take to reach the hub before its outcome is reported. */
const LOG_FLUSH_TIMEOUT_MS = 10_000;

/** `percent` and `message` as the hub takes them: 0–100 and at most 500 characters; NaN is no percent. */
function progressOf(percent: number | undefined, message: string | undefined): JobProgress {
  const progress: JobProgress = {};
  if (typeof percent === "number" && !Number.isNaN(percent)) progress.percent = Math.min(Math.max(percent, 0), 100);
  if (message !== undefined) progress.message = String(message).slice(0, MAX_PROGRESS_MESSAGE_LENGTH);
  return progress;
}

/** The failure reported for a job whose handler outlived the shutdown deadline. */
export const ABANDONED_AT_SHUTDOWN = "the worker shut down before the job finished";

export interface WorkerLoopOptions {
  client: WorkerProtocol;
  /** Works one job; never throws (see outcomeOf). `controls.signal` aborts with a {@link JobAbortedError}. */
  run(job: HubJob, controls: JobControls): Promise<Outcome>;
  /** Most jobs in hand at once. */
  concurrency: number;
  /** Most jobs per claim: 1 claims with POST /jobs/claim, more with claim-batch and complete-batch. */
  batch: number;
  /** Long-poll of each claim, 0–30 s. */
  waitSeconds: number;
  /** Aborting it: no new claims; the jobs in hand are finished and reported. */
  stopClaiming: AbortSignal;
  /** Aborting it: the jobs still in hand are failed as retryable at once, their handlers' signals abort. */
  abandon: AbortSignal;
  emit: EmitWorkerEvent;
  /** The worker-wide bound on buffered log lines. */
  logBudget: LogBudget;
  /** Where the signals stream's cancels arrive; none: jobs learn of a cancel from their heartbeats. */
  cancels?: CancelListeners;
}

/**
 * Runs until `stopClaiming` aborts and every job in hand is reported. Rejects with
 * {@link WorkerUnauthorizedError} when the key stops working (after finishing the jobs in hand).
 */
export async function runWorkerLoop(options: WorkerLoopOptions): Promise<void> {
  const { client, emit, concurrency, batch, waitSeconds } = options;
  // Claims stop when the caller stops us, or when an error no retry can fix came back.
  const claims = new AbortController();
  const stopClaims = () => claims.abort();
  options.stopClaiming.addEventListener("abort", stopClaims, { once: true });
  if (options.stopClaiming.aborted) claims.abort();
  let fatal: unknown;
  const giveUp = (error: unknown) => {
    fatal ??= error;
    claims.abort();
  };
  const reporterOptions = { client, emit, onUnauthorized: (error: WorkerUnauthorizedError) => giveUp(error) };
  const reporter = batch > 1 ? batchReporter(reporterOptions) : singleReporter(reporterOptions);

  /** Works the job and reports it; resolves with the next job its report brought (`claimNext`), else null. */
  async function work(job: HubJob, claimNext = false): Promise<HubJob | null> {
    emit({ type: "claimed", job });
    const interrupt = new AbortController();
    let lostHow: LeaseLossCause | undefined;
    let lostReason: string | undefined;
    const takeBack = (cause: LeaseLossCause, reason?: string) => {
      if (lostHow !== undefined) return;
      lostHow = cause;
      lostReason = reason;
      log.discard();
      void lease.stop();
      interrupt.abort(new JobAbortedError("lease_lost", reason));
    };
    const log = openJobLog(job, {
      client,
      budget: options.logBudget,
      emit,
      onTakenBack: (error) => takeBack("logs", error.jobStatus),
      onUnauthorized: giveUp,
    });
    const lease = keepLeased(job, { client, emit, onLost: takeBack, onUnauthorized: giveUp });
    const stopListening = options.cancels?.listen(
      job.id,
      job.attempts,
      (signal) => takeBack("signal", signal.reason),
      () => lease.beatNow(),
    );
    let onAbandon = () => undefined as void;
    const abandoned = new Promise<"abandoned">((resolve) => (onAbandon = () => resolve("abandoned")));
    if (options.abandon.aborted) onAbandon();
    else options.abandon.addEventListener("abort", onAbandon, { once: true });
    const controls: JobControls = {
      signal: interrupt.signal,
      log: (level, message) => log.write(level, message),
      progress: (percent, message) => lease.reportProgress(progressOf(percent, message)),
    };
    let outcome: Outcome;
    try {
      const settled = await Promise.race([options.run(job, controls), abandoned]);
      if (settled === "abandoned") {
        // The handler may go on; its result is no longer wanted.
        interrupt.abort(new JobAbortedError("shutdown"));
        emit({ type: "abandoned", jobId: job.id });
        outcome = { ok: false, error: ABANDONED_AT_SHUTDOWN, retryable: true };
      } else {
        outcome = settled;
      }
      // The job's lines and last progress go before its outcome: once it is finished the hub takes neither.
      if (lostHow === undefined) await log.close(Math.min(lease.heldUntilMs(), Date.now() + LOG_FLUSH_TIMEOUT_MS));
      if (lostHow === undefined) await lease.flushProgress();
    } finally {
      options.abandon.removeEventListener("abort", onAbandon);
      stopListening?.();
      await lease.stop();
    }
    if (lostHow !== undefined || !lease.held()) {
      emit({ type: "lease_lost", jobId: job.id, during: lostHow ?? "expired", reason: lostReason });
      return null;
    }
    // Claims may have stopped while the job ran: then the report claims nothing.
    return reporter.report(job, outcome, lease.heldUntilMs(), claimNext && !claims.signal.aborted);
  }

  /**
   * One job at a time: long-polls POST /jobs/claim, works what it got, and again. A job's result
   * goes with complete-and-claim (no wait), which brings the next job when one is ready: under load
   * a job then costs two requests, not three; when none is ready the slot long-polls as before.
   */
  async function slot(): Promise<void> {
    let backoffMs = 0;
    let next: HubJob | null = null;
    while (next || !claims.signal.aborted) {
      let job: HubJob | null = next;
      next = null;
      if (!job) {
        try {
          job = await client.claim(waitSeconds, claims.signal);
          backoffMs = 0;
        } catch (error) {
          if (!isTransient(error)) return giveUp(error);
          backoffMs = nextBackoff(backoffMs, error);
          emit({ type: "hub_error", operation: "claim", message: (error as Error).message, retryInMs: backoffMs });
          await sleep(backoffMs, claims.signal);
          continue;
        }
      }
      if (job) next = await work(job, true);
    }
  }

  /**
   * Keeps up to `concurrency` jobs in hand, claiming up to `batch` per claim-batch call once
   * enough slots are free (`batch`, or half of them), so one call brings several jobs.
   */
  async function batchClaims(): Promise<void> {
    const inHand = new Set<Promise<unknown>>();
    const stopped = new Promise<void>((resolve) => claims.signal.addEventListener("abort", () => resolve(), { once: true }));
    const enoughFree = Math.min(batch, Math.ceil(concurrency / 2));
    let backoffMs = 0;
    while (!claims.signal.aborted) {
      const free = concurrency - inHand.size;
      if (free < enoughFree) {
        await Promise.race([...inHand, stopped]);
        continue;
      }
      let jobs: HubJob[];
      try {
        jobs = await client.claimBatch(Math.min(batch, free), waitSeconds, claims.signal);
        backoffMs = 0;
      } catch (error) {
        if (!isTransient(error)) {
          giveUp(error);
          break;
        }
        backoffMs = nextBackoff(backoffMs, error);
        emit({ type: "hub_error", operation: "claim-batch", message: (error as Error).message, retryInMs: backoffMs });
        await sleep(backoffMs, claims.signal);
        continue;
      }
      for (const job of jobs) {
        const working: Promise<unknown> = work(job).finally(() => inHand.delete(working));
        inHand.add(working);
      }
    }
    await Promise.all(inHand);
  }

  try {
    if (batch > 1) await batchClaims();
    else await Promise.all(Array.from({ length: concurrency }, () => slot()));
  } finally {
    options.stopClaiming.removeEventListener("abort", stopClaims);
  }
  if (fatal) throw fatal;
}
