/**
 * A typed client of the hub's worker protocol (header `X-Worker-Api-Key`):
 *
 *   claim(waitSeconds) → job | null      POST /jobs/claim {wait_seconds}   200 job | 204
 *   heartbeat(jobId)   → lease expiry    POST /jobs/{id}/heartbeat         200 {lease_expires_at}
 *   complete(jobId, result) → job        POST /jobs/{id}/complete {result} 200 job
 *   completeAndClaim(jobId, result) → {job, next}
 *                                        POST /jobs/{id}/complete-and-claim 200 {job, next}
 *   fail(jobId, {error, retryable})      POST /jobs/{id}/fail              200 job
 *   claimBatch(maxJobs, waitSeconds) → jobs   POST /jobs/claim-batch       200 {jobs} | 204
 *   completeBatch(items) → verdicts      POST /jobs/complete-batch         200 {results}
 *   appendLogs(jobId, lines, attempt)    POST /jobs/{id}/logs              200 {accepted, truncated}
 *   openSignals(signal) → SSE body       GET /workers/me/signals           200 text/event-stream
 *   offline()                            POST /workers/me/offline          204
 *
 * Refusals become typed errors: 409 {@link LeaseLostError} (the job is no longer running under
 * this worker's lease — stop working on it, nothing was recorded), 401
 * {@link WorkerUnauthorizedError} (key wrong, rotated or unregistered), anything else non-2xx
 * {@link HubRequestError}; a call whose outcome is unknown (network error, timeout) throws
 * {@link HubUnreachableError}.
 *
 * Connections are reused: Node's built-in fetch keeps them alive in a per-origin pool, so a worker
 * polling in a loop does not pay a TCP handshake per call. The api key lives in a private field
 * and is never part of an error or a log line.
 */
import { HubRequestError, HubUnreachableError, LeaseLostError, WorkerUnauthorizedError, type WorkerOperation } from "./errors.js";

export { JOB_STATUSES, type HubJob, type JobDependency, type JobStatus } from "./hub-job.js";
import type { HubJob, JobDependency } from "./hub-job.js";

/** Most jobs whose trace headers the client remembers at once; the oldest is forgotten first. */
const MAX_TRACED_JOBS = 10_000;

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** One line of `POST /jobs/{id}/logs`; `ts` is when it was written (ISO 8601). */
export interface LogLine {
  level: LogLevel;
  message: string;
  ts: string;
}

/** What a heartbeat may carry: it replaces the job's whole progress (an omitted field becomes null). */
export interface JobProgress {
  percent?: number;
  message?: string;
}

/** The longest log line the hub stores (characters); longer lines are split before they are sent. */
export const MAX_LOG_LINE_LENGTH = 8192;
/** The most lines one `POST /jobs/{id}/logs` takes. */
export const MAX_LOG_LINES_PER_REQUEST = 1000;
/** The longest progress message the hub stores (characters). */
export const MAX_PROGRESS_MESSAGE_LENGTH = 500;

/** The longest long-poll the hub accepts. */
export const MAX_CLAIM_WAIT_SECONDS = 30;

/** The most jobs one claim-batch or complete-batch call handles. */
export const MAX_BATCH_SIZE = 100;

/** The longest failure message the hub accepts (`POST /jobs/{id}/fail` `error`). */
export const MAX_FAILURE_ERROR_LENGTH = 10_000;

/** One result of a complete-batch call; `conflict` is the 409 of a single complete. */
export interface CompleteBatchVerdict {
  id: string;
  status: "completed" | "conflict" | "not_found";
}

export interface HubWorkerClientOptions {
  /** The hub's base URL, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** The key `POST /automations/{id}/worker` returned. */
  apiKey: string;
  /** How long a call may take (a claim: on top of its wait). Default 10 000 ms. */
  requestTimeoutMs?: number;
}

interface Answer {
  status: number;
  body: unknown;
  retryAfterMs: number | undefined;
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(at - nowMs, 0);
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The 404 of a route the hub does not have (CONTRACT §1), as opposed to a job's "Job not found". */
function isUnknownRoute(answer: Answer): boolean {
  return answer.status === 404 && typeof answer.body === "object" && answer.body !== null && (answer.body as { detail?: unknown }).detail === "Not Found";
}

export class HubWorkerClient {
  readonly baseUrl: string;
  readonly #apiKey: string;
  /** Trace headers (`traceparent`, `tracestate`) of the jobs in hand, by job id: sent with every call about the job. */
  readonly #traces = new Map<string, Record<string, string>>();
  readonly #requestTimeoutMs: number;
  /** The hub answered 404 for POST /jobs/{id}/complete-and-claim: it predates the route. */
  #withoutCompleteAndClaim = false;

  constructor(options: HubWorkerClientOptions) {
    if (!options.apiKey) throw new Error("HubWorkerClient: apiKey is required");
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  /**
   * Asks for the oldest available job of the worker's automation, waiting up to `waitSeconds`
   * (0–30) for one. Resolves null when none came, or when `signal` aborted the wait — a job the
   * hub handed out at that very instant is then never seen here; its lease lapses and the hub
   * queues it again.
   */
  async claim(waitSeconds = 0, signal?: AbortSignal): Promise<HubJob | null> {
    if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > MAX_CLAIM_WAIT_SECONDS) {
      throw new RangeError(`claim: waitSeconds must be a whole number from 0 to ${MAX_CLAIM_WAIT_SECONDS}`);
    }
    if (signal?.aborted) return null;
    let answer: Answer;
    try {
      answer = await this.#call("claim", "/jobs/claim", { wait_seconds: waitSeconds }, waitSeconds * 1000, signal);
    } catch (error) {
      if (signal?.aborted) return null;
      throw error;
    }
    if (answer.status === 204) return null;
    return this.#remember(this.#expect("claim", answer, 200) as HubJob);
  }

  /**
   * Asks for up to `maxJobs` (1–100) available jobs, never beyond the automation's concurrency
   * limit, waiting up to `waitSeconds` for at least one; in the hub's claim order. Resolves []
   * when none came or `signal` aborted the wait (as for {@link claim}).
   */
  async claimBatch(maxJobs: number, waitSeconds = 0, signal?: AbortSignal): Promise<HubJob[]> {
    if (!Number.isInteger(maxJobs) || maxJobs < 1 || maxJobs > MAX_BATCH_SIZE) {
      throw new RangeError(`claimBatch: maxJobs must be a whole number from 1 to ${MAX_BATCH_SIZE}`);
    }
    if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > MAX_CLAIM_WAIT_SECONDS) {
      throw new RangeError(`claimBatch: waitSeconds must be a whole number from 0 to ${MAX_CLAIM_WAIT_SECONDS}`);
    }
    if (signal?.aborted) return [];
    let answer: Answer;
    try {
      answer = await this.#call("claim-batch", "/jobs/claim-batch", { max_jobs: maxJobs, wait_seconds: waitSeconds }, waitSeconds * 1000, signal);
    } catch (error) {
      if (signal?.aborted) return [];
      throw error;
    }
    if (answer.status === 204) return [];
    return (this.#expect("claim-batch", answer, 200) as { jobs: HubJob[] }).jobs.map((job) => this.#remember(job));
  }

  /**
   * Reports several results (1–100) in one call; each is recorded or refused on its own, and the
   * verdicts come back in input order. `attempt` fences each item as for {@link heartbeat}.
   */
  async completeBatch(items: Array<{ id: string; result: Record<string, unknown>; attempt?: number }>): Promise<CompleteBatchVerdict[]> {
    const answer = await this.#call("complete-batch", "/jobs/complete-batch", { items });
    return (this.#expect("complete-batch", answer, 200) as { results: CompleteBatchVerdict[] }).results;
  }

  /**
   * Extends the job's lease by the hub's lease length; resolves with the new expiry. `attempt` (the
   * job's `attempts` as claimed) fences the call to that attempt: an earlier attempt's late call
   * is refused (409) even after this worker claimed the job again.
   */
  async heartbeat(jobId: string, attempt?: number, progress?: JobProgress): Promise<{ lease_expires_at: string }> {
    const body = attempt === undefined && progress === undefined ? undefined : { attempt, progress };
    const answer = await this.#call("heartbeat", `/jobs/${encodeURIComponent(jobId)}/heartbeat`, body, 0, undefined, jobId);
    return this.#expect("heartbeat", answer, 200, jobId) as { lease_expires_at: string };
  }

  /**
   * Stores log lines of the job (1–1000, each 1–8192 characters), in order, fenced like
   * {@link heartbeat}. `truncated` turns true once the job's log reached the hub's size limit:
   * from then on the hub drops every line.
   */
  async appendLogs(jobId: string, lines: LogLine[], attempt?: number): Promise<{ accepted: number; truncated: boolean }> {
    const answer = await this.#call("logs", `/jobs/${encodeURIComponent(jobId)}/logs`, { lines, attempt }, 0, undefined, jobId);
    return this.#expect("logs", answer, 200, jobId) as { accepted: number; truncated: boolean };
  }

  /** The dependencies of a job this worker holds, every result in full (GET /jobs/{id}/dependencies). */
  async dependencies(jobId: string): Promise<JobDependency[]> {
    const answer = await this.#call("dependencies", `/jobs/${encodeURIComponent(jobId)}/dependencies`, undefined, 0, undefined, jobId, "GET");
    return (this.#expect("dependencies", answer, 200, jobId) as { items: JobDependency[] }).items;
  }

  /**
   * Opens the worker's signals stream (server-sent events: `event: cancel` `{job_id, attempt,
   * reason}` when the hub takes back a job this worker runs). Resolves with the open stream's
   * body; aborting `signal` closes it (pass a signal of this connection alone: it is listened to
   * until then). 429 (too many open streams) is a {@link HubRequestError} with `retryAfterMs`.
   */
  async openSignals(signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    let response: Response;
    // Only the connection is timed: once open, the stream lasts until the hub or `signal` ends it.
    const connection = new AbortController();
    const close = () => connection.abort(signal.reason);
    if (signal.aborted) close();
    else signal.addEventListener("abort", close, { once: true });
    const timer = setTimeout(() => connection.abort(new Error(`no answer within ${this.#requestTimeoutMs} ms`)), this.#requestTimeoutMs);
    try {
      response = await fetch(`${this.baseUrl}/workers/me/signals`, {
        headers: { "x-worker-api-key": this.#apiKey, accept: "text/event-stream" },
        signal: connection.signal,
      });
    } catch (error) {
      signal.removeEventListener("abort", close);
      throw new HubUnreachableError("signals", error);
    } finally {
      clearTimeout(timer);
    }
    if (response.status === 200 && response.body) return response.body;
    const text = await response.text().catch(() => "");
    this.#expect("signals", { status: response.status, body: parseBody(text), retryAfterMs: parseRetryAfter(response.headers.get("retry-after")) }, 200);
    throw new HubRequestError("signals", response.status, "no stream");
  }

  /**
   * Tells the hub this worker stops (after it drained and closed its signals stream): the
   * worker shows `stopped` at once rather than when it is no longer seen. Running jobs are left alone.
   */
  async offline(): Promise<void> {
    const answer = await this.#call("offline", "/workers/me/offline", undefined);
    this.#expect("offline", answer, 204);
  }

  /** Reports the job's result; resolves with the job, now `completed`. `attempt` as for heartbeat. */
  async complete(jobId: string, result: Record<string, unknown>, attempt?: number): Promise<HubJob> {
    const answer = await this.#call("complete", `/jobs/${encodeURIComponent(jobId)}/complete`, { result, attempt }, 0, undefined, jobId);
    return this.#finished(jobId, () => this.#expect("complete", answer, 200, jobId) as HubJob);
  }

  /**
   * Reports the job's result and claims the next job in the same request (POST
   * /jobs/{id}/complete-and-claim), waiting up to `waitSeconds` (0–30, default 0) for one; `next`
   * is null when none came. The result is fenced and refused (409, 404) exactly as by
   * {@link complete}, and then nothing is claimed. A hub without the route (404 Not Found) gets
   * {@link complete} and then {@link claim} instead, from then on; the result is recorded by then,
   * so a failing claim there gives `next: null` rather than an error.
   *
   * Not abortable: the call carries a result, and an abandoned call would leave unknown whether it
   * was recorded. Keep `waitSeconds` short where the caller may need to stop (the worker loop sends 0).
   */
  async completeAndClaim(
    jobId: string,
    result: Record<string, unknown>,
    options: { attempt?: number; waitSeconds?: number } = {},
  ): Promise<{ job: HubJob; next: HubJob | null }> {
    const waitSeconds = options.waitSeconds ?? 0;
    if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > MAX_CLAIM_WAIT_SECONDS) {
      throw new RangeError(`completeAndClaim: waitSeconds must be a whole number from 0 to ${MAX_CLAIM_WAIT_SECONDS}`);
    }
    if (!this.#withoutCompleteAndClaim) {
      const answer = await this.#call(
        "complete-and-claim",
        `/jobs/${encodeURIComponent(jobId)}/complete-and-claim`,
        { result, attempt: options.attempt, wait_seconds: waitSeconds },
        waitSeconds * 1000,
        undefined,
        jobId,
      );
      if (!isUnknownRoute(answer)) {
        const done = this.#finished(jobId, () => this.#expect("complete-and-claim", answer, 200, jobId) as { job: HubJob; next: HubJob | null });
        return { job: done.job, next: done.next && this.#remember(done.next) };
      }
      this.#withoutCompleteAndClaim = true;
    }
    const job = await this.complete(jobId, result, options.attempt);
    const next = await this.claim(waitSeconds).catch(() => null);
    return { job, next };
  }

  /**
   * Reports a failure. With `retryable` the hub queues the job again while attempts remain;
   * the returned job's status says which happened (`queued` or `failed`).
   */
  async fail(jobId: string, failure: { error: string; retryable?: boolean; attempt?: number }): Promise<HubJob> {
    const answer = await this.#call(
      "fail",
      `/jobs/${encodeURIComponent(jobId)}/fail`,
      {
        error: failure.error,
        retryable: failure.retryable ?? false,
        attempt: failure.attempt,
      },
      0,
      undefined,
      jobId,
    );
    return this.#finished(jobId, () => this.#expect("fail", answer, 200, jobId) as HubJob);
  }

  /** Remembers a claimed job's trace headers for the calls about it. */
  #remember(job: HubJob): HubJob {
    if (!job.traceparent) return job;
    if (this.#traces.size >= MAX_TRACED_JOBS) this.#traces.delete(this.#traces.keys().next().value!);
    this.#traces.set(job.id, job.tracestate ? { traceparent: job.traceparent, tracestate: job.tracestate } : { traceparent: job.traceparent });
    return job;
  }

  /** The answer of a call that ends the attempt (or finds it ended): its trace headers are forgotten either way. */
  #finished<T>(jobId: string, answer: () => T): T {
    try {
      return answer();
    } finally {
      this.#traces.delete(jobId);
    }
  }

  async #call(
    operation: WorkerOperation,
    path: string,
    body: unknown,
    extraTimeoutMs = 0,
    signal?: AbortSignal,
    jobId?: string,
    method: "POST" | "GET" = "POST",
  ): Promise<Answer> {
    const timeout = AbortSignal.timeout(this.#requestTimeoutMs + extraTimeoutMs);
    const trace = jobId === undefined ? undefined : this.#traces.get(jobId);
    try {
      const response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { "x-worker-api-key": this.#apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }), ...trace },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const text = await response.text();
      return { status: response.status, body: parseBody(text), retryAfterMs: parseRetryAfter(response.headers.get("retry-after")) };
    } catch (error) {
      throw new HubUnreachableError(operation, error);
    }
  }

  #expect(operation: WorkerOperation, answer: Answer, expected: number, jobId?: string): unknown {
    if (answer.status === expected) return answer.body;
    const body = typeof answer.body === "object" && answer.body !== null ? (answer.body as { detail?: unknown; status?: unknown }) : undefined;
    const detail = body && "detail" in body ? body.detail : answer.body;
    if (answer.status === 409 && jobId !== undefined)
      throw new LeaseLostError(operation, jobId, detail, typeof body?.status === "string" ? body.status : undefined);
    if (answer.status === 401) throw new WorkerUnauthorizedError(operation, detail);
    throw new HubRequestError(operation, answer.status, detail, answer.retryAfterMs);
  }
}
