/**
 * The worker's loop: `concurrency` slots, each long-polling for a job, working it while keeping
 * its lease alive (a heartbeat every lease/3), then reporting the result. Stopping (the `signal`)
 * ends the claims at once and lets the jobs in hand finish and be reported.
 *
 * Delivery is at least once: a job whose lease lapsed (worker too slow, paused, partitioned) is
 * queued again by the hub and may be handed to another claim, and the late result of the first
 * is refused (409). A handler therefore receives a signal that aborts when the lease is lost, and
 * should be safe to run twice.
 */
import {
  HubRequestError,
  HubUnreachableError,
  LeaseLostError,
  MAX_BATCH_SIZE,
  WorkerUnauthorizedError,
  type HubJob,
  type HubWorkerClient,
} from "./worker-client";

export interface JobHandlerContext {
  /** Aborts when the hub took the job back (cancelled, or its lease lapsed): stop, the result would be refused. */
  signal: AbortSignal;
}

/** Does the work of one job and returns its result (a JSON object). Throw to report a failure. */
export type JobHandler = (job: HubJob, context: JobHandlerContext) => Promise<Record<string, unknown>>;

/** Throw from a handler for a failure worth another attempt: the hub queues the job again while attempts remain. */
export class RetryableJobError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RetryableJobError";
  }
}

/** What happened, for logs and tests; never holds the api key. */
export type WorkerEvent =
  | { type: "claimed"; job: HubJob }
  /** The hub accepted the result: this is the job's one recorded result. */
  | { type: "completed"; job: HubJob; result: Record<string, unknown> }
  | { type: "failed"; job: HubJob; error: string; retryable: boolean }
  /**
   * The job is no longer this worker's: the hub refused a heartbeat or the report (409/404), or
   * the lease expired before a heartbeat renewed it. The work was dropped; nothing was recorded.
   */
  | { type: "lease_lost"; jobId: string; during: LeaseLossCause | "complete" | "fail" }
  /**
   * A report whose first attempt went unanswered was refused on retry (409): either that first
   * attempt was recorded, or the lease was lost meanwhile. `GET /jobs/{id}` tells which.
   */
  | { type: "report_unconfirmed"; jobId: string; during: "complete" | "fail" }
  /** A call failed in a way worth retrying (hub unreachable, 5xx, 429). */
  | { type: "hub_error"; operation: string; message: string; retryInMs: number };

/** What the loop needs of a client: {@link HubWorkerClient}, or a stand-in in tests. */
export type WorkerProtocol = Pick<HubWorkerClient, "claim" | "heartbeat" | "complete" | "fail">;
/** What the loop needs of a client in batch mode. */
export type BatchWorkerProtocol = WorkerProtocol & Pick<HubWorkerClient, "claimBatch" | "completeBatch">;

interface CommonWorkerOptions {
  handler: JobHandler;
  /** Long-poll of each claim, 0–30 s. Default 20. */
  waitSeconds?: number;
  /** Abort to stop: no new claims; the jobs in hand are finished and reported, then runWorker resolves. */
  signal: AbortSignal;
  onEvent?: (event: WorkerEvent) => void;
}

export type RunWorkerOptions = CommonWorkerOptions &
  (
    | {
        client: WorkerProtocol;
        /** Jobs worked at once (each slot long-polls for its own). Default 1. */
        concurrency?: number;
        batch?: undefined;
      }
    | {
        client: BatchWorkerProtocol;
        /**
         * Batch mode (`--batch N`): up to N jobs in hand, claimed with claim-batch (a claim for the
         * free slots whenever at least half are free) and completed with complete-batch (the
         * results that are ready while one report is under way go in the next). Failures are
         * reported one by one, heartbeats stay per job.
         */
        batch: number;
        concurrency?: undefined;
      }
  );

/** How a worker learns that a job is no longer its own while working it. */
export type LeaseLossCause = "heartbeat" | "expired";

const MIN_HEARTBEAT_PERIOD_MS = 100;
/** The hub's default lease (HUB_JOB_LEASE_SECONDS), should a claimed job ever lack its lease timestamps. */
const DEFAULT_LEASE_MS = 60_000;
/** Share of the first lease assumed spent before the claim's answer arrived. */
const CLAIM_TRANSIT_ALLOWANCE = 0.1;
const MAX_BACKOFF_MS = 5_000;
const HEARTBEATS_PER_LEASE = 3;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

/** Worth calling again: the hub was unreachable, overloaded or failed internally. */
function isTransient(error: unknown): boolean {
  return error instanceof HubUnreachableError || (error instanceof HubRequestError && (error.status >= 500 || error.status === 429));
}

/** 409, or 404 (the job is not, or no longer, one of this worker's automation). */
function isTakenBack(error: unknown): boolean {
  return error instanceof LeaseLostError || (error instanceof HubRequestError && error.status === 404);
}

const nextBackoff = (previousMs: number) => Math.min(Math.max(previousMs * 2, 200), MAX_BACKOFF_MS);

/**
 * Runs until `signal` aborts and every job in hand is reported. Rejects with
 * {@link WorkerUnauthorizedError} when the key stops working (after finishing the jobs in hand).
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const { client, handler } = options;
  const concurrency = options.concurrency ?? 1;
  const batchClient = options.batch === undefined ? undefined : options.client;
  if (options.batch !== undefined && (!Number.isInteger(options.batch) || options.batch < 1 || options.batch > MAX_BATCH_SIZE)) {
    throw new RangeError(`runWorker: batch must be a whole number from 1 to ${MAX_BATCH_SIZE}`);
  }
  const waitSeconds = options.waitSeconds ?? 20;
  const emit = options.onEvent ?? (() => undefined);
  // Claims stop when the caller stops us, or when one slot hit an error no retry can fix.
  const claims = new AbortController();
  const stopClaims = () => claims.abort();
  options.signal.addEventListener("abort", stopClaims, { once: true });
  if (options.signal.aborted) claims.abort();
  let fatal: unknown;
  /** An error no retry can fix (the key stopped working): claim no more, finish what is in hand. */
  const giveUp = (error: unknown) => {
    fatal ??= error;
    claims.abort();
  };

  async function slot(): Promise<void> {
    let backoffMs = 0;
    while (!claims.signal.aborted) {
      let job: HubJob | null;
      try {
        job = await client.claim(waitSeconds, claims.signal);
        backoffMs = 0;
      } catch (error) {
        if (!isTransient(error)) {
          giveUp(error);
          return;
        }
        backoffMs = nextBackoff(backoffMs);
        emit({ type: "hub_error", operation: "claim", message: (error as Error).message, retryInMs: backoffMs });
        await sleep(backoffMs, claims.signal);
        continue;
      }
      if (job) await work(job);
    }
  }

  /** Batch mode: keeps up to `size` jobs in hand, claiming for the free slots once half are free. */
  async function batchClaims(claimer: BatchWorkerProtocol, size: number): Promise<void> {
    const inHand = new Set<Promise<void>>();
    const stopped = new Promise<void>((resolve) => claims.signal.addEventListener("abort", () => resolve(), { once: true }));
    let backoffMs = 0;
    while (!claims.signal.aborted) {
      if (inHand.size > size / 2) {
        await Promise.race([...inHand, stopped]);
        continue;
      }
      let jobs: HubJob[];
      try {
        jobs = await claimer.claimBatch(size - inHand.size, waitSeconds, claims.signal);
        backoffMs = 0;
      } catch (error) {
        if (!isTransient(error)) {
          giveUp(error);
          break;
        }
        backoffMs = nextBackoff(backoffMs);
        emit({ type: "hub_error", operation: "claim-batch", message: (error as Error).message, retryInMs: backoffMs });
        await sleep(backoffMs, claims.signal);
        continue;
      }
      for (const job of jobs) {
        const working: Promise<void> = work(job).finally(() => inHand.delete(working));
        inHand.add(working);
      }
    }
    await Promise.all(inHand);
  }

  /**
   * Batch mode: results wait for the report under way, then go together in one complete-batch
   * (at most MAX_BATCH_SIZE), so under load one call reports many jobs and when idle a result
   * leaves at once.
   */
  function completionBatcher(reporter: BatchWorkerProtocol) {
    const pending: Array<{ job: HubJob; result: Record<string, unknown>; heldUntilMs: number; done: () => void }> = [];
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
            const verdicts = await reporter.completeBatch(batch.map(({ job, result }) => ({ id: job.id, result, attempt: job.attempts })));
            batch.forEach(({ job, result }, index) => {
              if (verdicts[index]?.status === "completed") emit({ type: "completed", job: { ...job, status: "completed", result }, result });
              else emit(unanswered ? { type: "report_unconfirmed", jobId: job.id, during: "complete" } : { type: "lease_lost", jobId: job.id, during: "complete" });
            });
            return;
          } catch (error) {
            if (!isTransient(error) || Date.now() + nextBackoff(backoffMs) > heldUntilMs) {
              if (error instanceof WorkerUnauthorizedError) giveUp(error);
              emit({ type: "hub_error", operation: "complete-batch", message: (error as Error).message, retryInMs: -1 });
              return;
            }
            unanswered ||= error instanceof HubUnreachableError;
            backoffMs = nextBackoff(backoffMs);
            emit({ type: "hub_error", operation: "complete-batch", message: (error as Error).message, retryInMs: backoffMs });
            await sleep(backoffMs);
          }
        }
      } finally {
        for (const item of batch) item.done();
      }
    }
    return {
      /** Resolves once the result was reported (or given up on). */
      report: (job: HubJob, result: Record<string, unknown>, heldUntilMs: number) =>
        new Promise<void>((done) => {
          pending.push({ job, result, heldUntilMs, done });
          flushSoon();
        }),
    };
  }
  const completions = batchClient ? completionBatcher(batchClient) : undefined;

  async function work(job: HubJob): Promise<void> {
    emit({ type: "claimed", job });
    const leaseLost = new AbortController();
    let lostHow: LeaseLossCause = "heartbeat";
    const lease = keepLeased(job, (cause) => {
      lostHow = cause;
      leaseLost.abort();
    });
    let outcome: { ok: true; result: Record<string, unknown> } | { ok: false; error: string; retryable: boolean };
    try {
      outcome = { ok: true, result: await handler(job, { signal: leaseLost.signal }) };
    } catch (error) {
      outcome = { ok: false, error: error instanceof Error ? error.message || error.name : String(error), retryable: error instanceof RetryableJobError };
    } finally {
      await lease.stop();
    }
    if (leaseLost.signal.aborted || !lease.held()) {
      emit({ type: "lease_lost", jobId: job.id, during: leaseLost.signal.aborted ? lostHow : "expired" });
      return;
    }
    if (outcome.ok && completions) await completions.report(job, outcome.result, lease.heldUntilMs());
    else await report(job, outcome, lease.heldUntilMs());
  }

  /**
   * Heartbeats every lease/3 until stopped. Calls `onLost` once: "heartbeat" when the hub refused
   * one (it took the job back), "expired" when no heartbeat renewed the lease in time, so the hub
   * may have re-queued the job — possibly to this very worker, whose later calls about the job it
   * could no longer tell from the new attempt's. The lease is measured on our own clock from when
   * each successful heartbeat was *sent* (the hub renewed it no earlier), so clock skew between
   * us and the hub does not matter.
   */
  function keepLeased(job: HubJob, onLost: (cause: LeaseLossCause) => void) {
    // Both timestamps come from the hub's clock: their difference is the lease length.
    const measuredMs = Date.parse(job.lease_expires_at ?? "") - Date.parse(job.started_at ?? "");
    const leaseMs = measuredMs > 0 ? measuredMs : DEFAULT_LEASE_MS;
    const periodMs = Math.max(leaseMs / HEARTBEATS_PER_LEASE, MIN_HEARTBEAT_PERIOD_MS);
    // The claim's lease began before its answer arrived; allow a little for the answer's transit.
    let heldUntilMs = Date.now() + leaseMs * (1 - CLAIM_TRANSIT_ALLOWANCE);
    let stopped = false;
    let beatTimer: NodeJS.Timeout | undefined;
    let expiryTimer: NodeJS.Timeout | undefined;
    let inFlight: Promise<void> | undefined;
    const lose = (cause: LeaseLossCause) => {
      if (stopped) return;
      stopped = true;
      clearTimeout(beatTimer);
      clearTimeout(expiryTimer);
      onLost(cause);
    };
    const armExpiry = () => {
      clearTimeout(expiryTimer);
      expiryTimer = setTimeout(() => lose("expired"), Math.max(heldUntilMs - Date.now(), 0));
    };
    const beat = async () => {
      const sentAtMs = Date.now();
      try {
        await client.heartbeat(job.id, job.attempts);
        heldUntilMs = sentAtMs + leaseMs;
        if (!stopped) armExpiry();
      } catch (error) {
        if (isTakenBack(error)) return lose("heartbeat");
        if (error instanceof WorkerUnauthorizedError) giveUp(error);
        // A missed beat is retried on the next tick; the lease outlasts two of them.
        emit({ type: "hub_error", operation: "heartbeat", message: (error as Error).message, retryInMs: periodMs });
      }
    };
    const schedule = () => {
      beatTimer = setTimeout(() => {
        inFlight = beat().finally(() => {
          inFlight = undefined;
          if (!stopped) schedule();
        });
      }, periodMs);
    };
    armExpiry();
    schedule();
    return {
      /** Until when (our clock) the lease surely holds. */
      heldUntilMs: () => heldUntilMs,
      held: () => Date.now() < heldUntilMs,
      async stop() {
        stopped = true;
        clearTimeout(beatTimer);
        clearTimeout(expiryTimer);
        await inFlight;
      },
    };
  }

  /** Sends the result or failure, retrying transient errors while the lease may still hold. */
  async function report(
    job: HubJob,
    outcome: { ok: true; result: Record<string, unknown> } | { ok: false; error: string; retryable: boolean },
    leaseHeldUntilMs: number,
  ): Promise<void> {
    const during = outcome.ok ? "complete" : "fail";
    let unanswered = false;
    let backoffMs = 0;
    for (;;) {
      try {
        if (outcome.ok) {
          const completed = await client.complete(job.id, outcome.result, job.attempts);
          emit({ type: "completed", job: completed, result: outcome.result });
        } else {
          const failed = await client.fail(job.id, { error: outcome.error, retryable: outcome.retryable, attempt: job.attempts });
          emit({ type: "failed", job: failed, error: outcome.error, retryable: outcome.retryable });
        }
        return;
      } catch (error) {
        if (isTakenBack(error)) {
          emit(unanswered ? { type: "report_unconfirmed", jobId: job.id, during } : { type: "lease_lost", jobId: job.id, during });
          return;
        }
        if (!isTransient(error) || Date.now() + nextBackoff(backoffMs) > leaseHeldUntilMs) {
          if (error instanceof WorkerUnauthorizedError) giveUp(error);
          emit({ type: "hub_error", operation: during, message: (error as Error).message, retryInMs: -1 });
          return;
        }
        unanswered ||= error instanceof HubUnreachableError;
        backoffMs = nextBackoff(backoffMs);
        emit({ type: "hub_error", operation: during, message: (error as Error).message, retryInMs: backoffMs });
        await sleep(backoffMs);
      }
    }
  }

  try {
    if (batchClient && options.batch !== undefined) await batchClaims(batchClient, options.batch);
    else await Promise.all(Array.from({ length: concurrency }, () => slot()));
  } finally {
    options.signal.removeEventListener("abort", stopClaims);
  }
  if (fatal) throw fatal;
}
