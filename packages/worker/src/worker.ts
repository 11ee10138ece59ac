/** createWorker: the SDK's entry point, a worker process for one automation in a few lines. */
import type { EmitWorkerEvent, WorkerEvent } from "./events.js";
import { HubWorkerClient, MAX_BATCH_SIZE, MAX_CLAIM_WAIT_SECONDS, type HubJob, type JobDependency, type LogLevel } from "./hub-client.js";
import { LogBudget } from "./job-log.js";
import { inJobTrace } from "./job-trace.js";
import { defaultLogger, logWorkerEvent, type Logger } from "./logging.js";
import { runWorkerLoop, type JobControls } from "./loop.js";
import { failureText, outcomeOf, type JobResult, type Outcome } from "./outcome.js";
import { CancelListeners, holdSignalsStream } from "./signals.js";
import { describeIssues, type StandardSchemaV1 } from "./standard-schema.js";

/**
 * A claimed job as the handler sees it: `context` as the context schema produced it, and what the
 * handler may tell the hub while it works.
 */
export type WorkerJob<Context = Record<string, unknown>> = Omit<HubJob, "context" | "progress" | "dependencies"> & {
  context: Context;
  /** The jobs this one waited for (its `depends_on`), in order, each with its status, result and error; [] for none. Results are whole. */
  dependencies: JobDependency[];
  /**
   * Adds a line to the job's log on the hub (`debug`, `info`, `warn` or `error`), shown live on
   * its console page. Lines are buffered and sent in batches, in order, and before the job's
   * outcome; the call never waits and never throws. A line over 8192 characters is split. While
   * the hub cannot take lines, they wait in a bounded buffer (`maxBufferedLogBytes`); beyond it
   * they are dropped and counted (`HubWorker.droppedLogLines`).
   */
  log(level: LogLevel, message: string): void;
  /**
   * Reports how far the job is (percent 0–100, clamped; a message of at most 500 characters),
   * sent with a heartbeat within a second. Each report replaces the whole progress: an omitted
   * field is cleared. (It stands in for the job record's `progress` field, which a claimed job
   * always has `null`.)
   */
  progress(percent?: number, message?: string): void;
  /** The same signal as `tools.signal`. */
  signal: AbortSignal;
};

export interface JobTools {
  /**
   * Aborts when the result is no longer wanted: the hub took the job back (cancelled, timed out,
   * lease lapsed: within a second through the signals stream, else at the next heartbeat or log
   * batch it refuses) or the shutdown deadline passed. Its `reason` is a `JobAbortedError`. Pass
   * it on to `fetch`, child processes and the like.
   */
  signal: AbortSignal;
  /** The worker's logger with the job's id bound. */
  logger: Logger;
}

/**
 * Does the work of one job and returns its result, a JSON object (returning nothing completes the
 * job with `{}`). Throw to fail the job: a `RetryableError` re-queues it while attempts remain,
 * anything else fails it for good.
 */
export type JobHandler<Context = Record<string, unknown>> = (job: WorkerJob<Context>, tools: JobTools) => Promise<JobResult | void>;

export interface WorkerOptions<Context = Record<string, unknown>> {
  /** The hub's base URL, e.g. `https://hub.example.com`. */
  url: string;
  /** The worker's api key (`POST /automations/{id}/worker` returned it once). Never logged. */
  apiKey: string;
  handler: JobHandler<Context>;
  /**
   * Validates each job's context before the handler sees it, and types the handler's
   * `job.context`: a zod 4 schema (or any Standard Schema: valibot, arktype). A context that does
   * not match fails the job for good, naming every problem; the handler is not called.
   */
  contextSchema?: StandardSchemaV1<unknown, Context>;
  /** Most jobs worked at once. Default: `batch`, else 1. Keep it ≤ the automation's `max_concurrent_jobs`. */
  concurrency?: number;
  /**
   * Most jobs per claim (1–100). 1 (the default) long-polls `POST /jobs/claim` per free slot; more
   * claims with `POST /jobs/claim-batch` once enough slots are free and reports results together
   * with `POST /jobs/complete-batch`, for throughput.
   */
  batch?: number;
  /** Long-poll of each claim in seconds (0–30). Default 20. */
  waitSeconds?: number;
  /**
   * On stop (SIGTERM): how long running handlers may take to finish before their jobs are failed
   * as retryable (the hub queues them again) and their signals abort. Default 30 000 ms.
   */
  shutdownTimeoutMs?: number;
  /**
   * Stop gracefully on SIGTERM and SIGINT while `run()` runs; a second signal gives up the jobs in
   * hand at once. Default true; false leaves signals to you (call `stop()`).
   */
  handleSignals?: boolean;
  /** A pino logger. Default: JSON lines on stdout at `info`. */
  logger?: Logger;
  /** How long one call to the hub may take (a claim: on top of its long-poll). Default 10 000 ms. */
  requestTimeoutMs?: number;
  /** Every event of the worker's life (claimed, completed, failed, hub errors …), after it is logged. */
  onEvent?: (event: WorkerEvent) => void;
  /**
   * The most memory (UTF-8 bytes, about) that log lines waiting for the hub may hold, over all
   * jobs in hand; lines beyond it are dropped and counted. Default 8 MiB.
   */
  maxBufferedLogBytes?: number;
}

export interface HubWorker {
  /**
   * Claims and works jobs until stopped. Resolves once every job in hand has been reported (or
   * failed as retryable at the shutdown deadline); rejects with a `WorkerUnauthorizedError` when
   * the api key stops working, after finishing the jobs in hand. Calling it again returns the
   * same promise. While it runs the worker holds the hub's signals stream (a cancel reaches a
   * handler within a second); after a graceful stop it closes it and tells the hub it is offline.
   */
  run(): Promise<void>;
  /**
   * Stops gracefully: no new claims, running handlers may finish until `shutdownTimeoutMs`, then
   * their jobs are failed as retryable. A second call gives them up at once. Resolves when
   * `run()` has settled.
   */
  stop(): Promise<void>;
  /** Log lines dropped since the worker started (the hub unreachable while the buffer was full, or unsent when a job ended). */
  readonly droppedLogLines: number;
}

function wholeNumber(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`createWorker: ${name} must be a whole number from ${min} to ${max}`);
  return value;
}

/** A worker for the automation whose api key it holds: `await createWorker({...}).run()`. */
export function createWorker<Context = Record<string, unknown>>(options: WorkerOptions<Context>): HubWorker {
  const hubOrigin = new URL(options.url).origin;
  const batch = wholeNumber("batch", options.batch ?? 1, 1, MAX_BATCH_SIZE);
  const concurrency = wholeNumber("concurrency", options.concurrency ?? batch, 1, 1000);
  const waitSeconds = wholeNumber("waitSeconds", options.waitSeconds ?? 20, 0, MAX_CLAIM_WAIT_SECONDS);
  const shutdownTimeoutMs = wholeNumber("shutdownTimeoutMs", options.shutdownTimeoutMs ?? 30_000, 0, 86_400_000);
  const logger = options.logger ?? defaultLogger();
  const maxBufferedLogBytes = wholeNumber("maxBufferedLogBytes", options.maxBufferedLogBytes ?? 8 * 1024 * 1024, 0, 2 ** 31);
  const client = new HubWorkerClient({ baseUrl: options.url, apiKey: options.apiKey, requestTimeoutMs: options.requestTimeoutMs });
  const emit: EmitWorkerEvent = (event) => {
    logWorkerEvent(logger, event);
    options.onEvent?.(event);
  };
  const logBudget = new LogBudget(maxBufferedLogBytes, emit);
  const stopClaiming = new AbortController();
  const abandon = new AbortController();
  let running: Promise<void> | undefined;
  let deadline: NodeJS.Timeout | undefined;

  async function runJob(claimed: HubJob, controls: JobControls): Promise<Outcome> {
    const { signal } = controls;
    const tools: JobTools = { signal, logger: logger.child({ job_id: claimed.id }) };
    let hubJob = { ...claimed, dependencies: claimed.dependencies ?? [] };
    // Results the claim left out (past 1 MiB in all) are read whole before the handler runs.
    if (hubJob.dependencies.some((dependency) => dependency.result_omitted)) {
      try {
        hubJob = { ...hubJob, dependencies: await client.dependencies(hubJob.id) };
      } catch (error) {
        return {
          ok: false,
          error: failureText(`could not read the job's dependencies: ${error instanceof Error ? error.message : String(error)}`),
          retryable: true,
        };
      }
    }
    const job = { ...hubJob, log: controls.log, progress: controls.progress, signal };
    const schema = options.contextSchema;
    if (!schema) return inJobTrace(hubJob, () => outcomeOf(() => options.handler(job as WorkerJob<Context>, tools)));
    let checked: Awaited<ReturnType<(typeof schema)["~standard"]["validate"]>>;
    try {
      checked = await schema["~standard"].validate(job.context);
    } catch (error) {
      return { ok: false, error: failureText(`the context schema threw: ${error instanceof Error ? error.message : String(error)}`), retryable: false };
    }
    if (checked.issues) {
      return { ok: false, error: failureText(`the job's context does not match the worker's schema: ${describeIssues(checked.issues)}`), retryable: false };
    }
    const context = checked.value;
    return inJobTrace(hubJob, () => outcomeOf(() => options.handler({ ...job, context }, tools)));
  }

  function stop(): Promise<void> {
    if (!stopClaiming.signal.aborted) {
      logger.info({ shutdown_timeout_ms: shutdownTimeoutMs }, "stopping: finishing the jobs in hand");
      stopClaiming.abort();
      // Unreferenced: once no handler runs, there is nothing left for it to give up.
      deadline = setTimeout(() => abandon.abort(), shutdownTimeoutMs).unref();
    } else if (!abandon.signal.aborted) {
      logger.warn("stopping now: the jobs in hand are failed as retryable");
      abandon.abort();
    }
    return (running ?? Promise.resolve()).then(
      () => undefined,
      () => undefined,
    );
  }

  function onSignal(signal: NodeJS.Signals): void {
    logger.info({ signal }, "signal received");
    void stop();
  }

  async function run(): Promise<void> {
    if (options.handleSignals ?? true) {
      process.on("SIGTERM", onSignal);
      process.on("SIGINT", onSignal);
    }
    logger.info({ hub: hubOrigin, concurrency, batch, wait_seconds: waitSeconds }, "worker started");
    const cancels = new CancelListeners();
    const signals = holdSignalsStream({ client, listeners: cancels, emit });
    try {
      try {
        await runWorkerLoop({
          client,
          run: runJob,
          concurrency,
          batch,
          waitSeconds,
          stopClaiming: stopClaiming.signal,
          abandon: abandon.signal,
          emit,
          logBudget,
          cancels,
        });
      } finally {
        await signals.close();
      }
      // Drained, and the signals stream closed (the hub gives a just-closed stream a moment to be
      // seen ending): the hub shows this worker stopped at once.
      await client.offline().catch((error: unknown) => emit({ type: "hub_error", operation: "offline", message: (error as Error).message, retryInMs: -1 }));
      logger.info("worker stopped");
    } catch (error) {
      logger.error({ error: error instanceof Error ? error.message : String(error) }, "worker gave up");
      throw error;
    } finally {
      clearTimeout(deadline);
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    }
  }

  return {
    run: () => (running ??= run()),
    stop,
    get droppedLogLines() {
      return logBudget.dropped;
    },
  };
}
