/**
 * A job's log lines on their way to the hub (`POST /jobs/{id}/logs`): buffered, sent in batches
 * by one request at a time per job (so they arrive in the order they were written), and never in
 * the handler's way — writing a line neither waits nor throws.
 *
 * Memory is bounded for the whole worker ({@link LogBudget}): while the hub cannot take lines
 * (unreachable, 503, 429) they wait and are retried with back-off; once the buffered lines reach
 * the budget, new lines are dropped and counted. Before a job's outcome is reported its lines are
 * sent ({@link JobLog.close}); what cannot be sent by then is dropped and counted too.
 */
import { HubRequestError, isTransient, LeaseLostError, WorkerUnauthorizedError } from "./errors.js";
import type { EmitWorkerEvent } from "./events.js";
import { LOG_LEVELS, MAX_LOG_LINE_LENGTH, MAX_LOG_LINES_PER_REQUEST, type HubJob, type HubWorkerClient, type LogLevel, type LogLine } from "./hub-client.js";
import { nextBackoff, sleep } from "./timing.js";

/** How long a line waits for others to share its request. */
export const LOG_LINGER_MS = 150;
/** What one request may carry (UTF-8 bytes of its JSON), well under the hub's 1 MiB body limit. */
const MAX_REQUEST_BYTES = 768 * 1024;
/** JSON around one line's message: `{"level":"debug","message":,"ts":"2026-11-26T22:00:00.000Z"},`. */
const LINE_OVERHEAD_BYTES = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `text` as log messages the hub stores: without the NUL characters and lone surrogates
 * PostgreSQL cannot hold, cut into pieces of at most {@link MAX_LOG_LINE_LENGTH} characters
 * (never inside a surrogate pair); none for an empty text.
 */
export function logMessages(text: string): string[] {
  const clean = text.replaceAll("\u0000", "").replace(LONE_SURROGATE, "\ufffd");
  const pieces: string[] = [];
  let start = 0;
  while (start < clean.length) {
    let end = Math.min(start + MAX_LOG_LINE_LENGTH, clean.length);
    // A high surrogate last would split its pair: leave it for the next piece.
    if (end < clean.length && /[\uD800-\uDBFF]/.test(clean[end - 1]!)) end -= 1;
    pieces.push(clean.slice(start, end));
    start = end;
  }
  return pieces;
}

/** The worker-wide bound on buffered log lines, and the count of lines dropped. */
export class LogBudget {
  #usedBytes = 0;
  #dropped = 0;
  /** Lines dropped since the last delivery, to log an outage's drops once. */
  #droppedInOutage = 0;

  constructor(
    readonly maxBytes: number,
    private readonly emit: EmitWorkerEvent,
  ) {}

  /** Log lines this worker dropped (hub unreachable, buffer full) since it started. */
  get dropped(): number {
    return this.#dropped;
  }

  take(bytes: number): boolean {
    if (this.#usedBytes + bytes > this.maxBytes) return false;
    this.#usedBytes += bytes;
    return true;
  }

  release(bytes: number): void {
    this.#usedBytes -= bytes;
  }

  drop(jobId: string, lines: number): void {
    if (lines <= 0) return;
    this.#dropped += lines;
    if (this.#droppedInOutage === 0) this.emit({ type: "log_lines_dropped", jobId, total: this.#dropped });
    this.#droppedInOutage += lines;
  }

  delivered(): void {
    if (this.#droppedInOutage === 0) return;
    this.emit({ type: "log_lines_delivered_again", dropped: this.#droppedInOutage, total: this.#dropped });
    this.#droppedInOutage = 0;
  }
}

export interface JobLog {
  /** Queues a line (split when over 8192 characters); never waits, never throws. */
  write(level: LogLevel, message: string): void;
  /**
   * Sends what is buffered, retrying transient errors until `deadlineMs` (our clock); lines still
   * unsent then are dropped and counted. Later writes are ignored.
   */
  close(deadlineMs: number): Promise<void>;
  /** The job is no longer this worker's: its lines would be refused; forget them. */
  discard(): void;
}

export interface JobLogOptions {
  client: Pick<HubWorkerClient, "appendLogs">;
  budget: LogBudget;
  emit: EmitWorkerEvent;
  /** The hub refused a batch with 409: the job is no longer this worker's. */
  onTakenBack(error: LeaseLostError): void;
  onUnauthorized(error: WorkerUnauthorizedError): void;
}

interface BufferedLine {
  line: LogLine;
  bytes: number;
}

export function openJobLog(job: HubJob, options: JobLogOptions): JobLog {
  const { client, budget, emit } = options;
  const pending: BufferedLine[] = [];
  let lingerTimer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;
  /** Set by close: writes are ignored from then on. */
  let closing = false;
  /** Set when nothing more will be sent: taken back, unauthorized, past the close deadline, or the hub's limit reached. */
  let finished = false;
  /** Cuts a back-off short when the close deadline passes. */
  const deadline = new AbortController();

  const forget = (count: boolean) => {
    const lines = pending.splice(0);
    budget.release(lines.reduce((sum, item) => sum + item.bytes, 0));
    if (count) budget.drop(job.id, lines.length);
  };

  /** The batch at the head of `pending` is done with: sent, or refused for good. */
  const settle = (batch: BufferedLine[]) => {
    pending.splice(0, batch.length);
    budget.release(batch.reduce((sum, item) => sum + item.bytes, 0));
  };

  const nextBatch = (): BufferedLine[] => {
    let bytes = 0;
    let size = 0;
    while (size < pending.length && size < MAX_LOG_LINES_PER_REQUEST && bytes + pending[size]!.bytes <= MAX_REQUEST_BYTES) {
      bytes += pending[size]!.bytes;
      size += 1;
    }
    return pending.slice(0, Math.max(size, 1));
  };

  async function pump(): Promise<void> {
    let backoffMs = 0;
    while (pending.length > 0 && !finished) {
      const batch = nextBatch();
      try {
        const answer = await client.appendLogs(
          job.id,
          batch.map((item) => item.line),
          job.attempts,
        );
        budget.delivered();
        // Past the close deadline these lines were already forgotten (and counted as dropped).
        if (finished) return;
        settle(batch);
        backoffMs = 0;
        if (answer.truncated) {
          // The hub stores no more of this job's lines: sending them would only cost traffic.
          finished = true;
          forget(false);
        }
      } catch (error) {
        if (error instanceof LeaseLostError) {
          finished = true;
          forget(false);
          options.onTakenBack(error);
          return;
        }
        if (error instanceof HubRequestError && error.status === 404) {
          // Not this automation's job, or a hub without job logs: the heartbeat tells which; no line will be taken.
          finished = true;
          forget(true);
          emit({ type: "hub_error", operation: "logs", message: error.message, retryInMs: -1 });
          return;
        }
        if (error instanceof WorkerUnauthorizedError) {
          finished = true;
          forget(true);
          options.onUnauthorized(error);
          return;
        }
        if (!isTransient(error)) {
          // The hub refuses these lines as they are (422): retrying cannot help.
          if (finished) return;
          settle(batch);
          budget.drop(job.id, batch.length);
          emit({ type: "hub_error", operation: "logs", message: (error as Error).message, retryInMs: -1 });
          continue;
        }
        backoffMs = nextBackoff(backoffMs, error);
        emit({ type: "hub_error", operation: "logs", message: (error as Error).message, retryInMs: backoffMs });
        await sleep(backoffMs, deadline.signal);
      }
    }
  }

  const startPump = () => {
    clearTimeout(lingerTimer);
    lingerTimer = undefined;
    pumping ??= pump().finally(() => {
      pumping = undefined;
      // Lines written while the last request was answered.
      if (pending.length > 0 && !finished) schedule();
    });
  };

  const schedule = () => {
    if (pumping || lingerTimer) return;
    if (pending.length >= MAX_LOG_LINES_PER_REQUEST) startPump();
    else lingerTimer = setTimeout(startPump, LOG_LINGER_MS);
  };

  return {
    write(level, message) {
      if (closing || finished) return;
      const checkedLevel: LogLevel = LOG_LEVELS.includes(level) ? level : "info";
      const ts = new Date().toISOString();
      for (const piece of logMessages(typeof message === "string" ? message : String(message))) {
        const bytes = Buffer.byteLength(JSON.stringify(piece)) + LINE_OVERHEAD_BYTES;
        if (!budget.take(bytes)) {
          budget.drop(job.id, 1);
          continue;
        }
        pending.push({ line: { level: checkedLevel, message: piece, ts }, bytes });
      }
      if (pending.length > 0) schedule();
    },
    async close(deadlineMs) {
      closing = true;
      if (pending.length > 0 && !finished) startPump();
      const timer = setTimeout(() => deadline.abort(), Math.max(deadlineMs - Date.now(), 0));
      const passed = new Promise<void>((resolve) => deadline.signal.addEventListener("abort", () => resolve(), { once: true }));
      try {
        while (pumping && !deadline.signal.aborted) await Promise.race([pumping, passed]);
      } finally {
        clearTimeout(timer);
      }
      finished = true;
      clearTimeout(lingerTimer);
      forget(true);
    },
    discard() {
      finished = true;
      clearTimeout(lingerTimer);
      deadline.abort();
      forget(false);
    },
  };
}
