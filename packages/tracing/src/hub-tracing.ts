import type { IncomingMessage } from "node:http";
import type { StoredTraceContext } from "./trace-context";

/** The fields a log line gains while a span is active. */
export interface TraceLogFields {
  trace_id?: string;
  span_id?: string;
}

/** One attempt of a job, ended: what its `job.run <slug>` span records. */
export interface JobRun {
  /** The job's stored trace context: the creating request's span. */
  trace: StoredTraceContext;
  jobId: string;
  attempt: number;
  automationId: string;
  automationSlug: string;
  /** The claim. */
  startedAt: Date;
  endedAt: Date;
  /** How the attempt ended: the ending event's type, without `job.` (completed, failed, requeued, cancelled). */
  outcome: string;
  /** For requeued and cancelled: the event's reason (lease_expired, timeout, …): a fixed vocabulary, never free text. */
  reason?: string | undefined;
}

export interface JobSpanOptions {
  /** The trace contexts of the jobs the operation serves: one → a child span in that job's trace; several → a root span linked to each. */
  jobs?: readonly (StoredTraceContext | null | undefined)[];
  kind?: "internal" | "producer" | "consumer";
  /** Ids, counts and fixed names only: never a context value, result, log line, secret or e-mail address. */
  attributes?: Record<string, string | number | boolean>;
  /** When the operation began, if before the span is started (work whose jobs are known only once it is done); default now. */
  startTime?: Date;
}

/** A span the caller ends: one whose context must be known before its work (a schedule's fire, stored with the job it creates). */
export interface OpenSpan {
  /** The span's W3C context (sampled or not, it names the span's trace). */
  readonly traceContext: StoredTraceContext | undefined;
  /** Ends it; `error` (a fixed name, never a message) marks it failed; `attributes` as {@link JobSpanOptions.attributes}. */
  end(outcome?: { error?: string; attributes?: Record<string, string | number | boolean> }): void;
}

/** What the hub's code asks of the tracer; only ever exists while tracing is on. */
export interface HubTracing {
  readonly serviceName: string;
  /**
   * The trace context of an incoming request's server span, sampled or not (a child of its incoming
   * `traceparent`), to store with the jobs it creates; undefined for a request no one traces (probes).
   */
  requestContext(request: IncomingMessage): StoredTraceContext | undefined;
  /** `trace_id`/`span_id` of an incoming request's server span, sampled or not, for its log line. */
  requestLogFields(request: IncomingMessage): TraceLogFields;
  /** Records the `job.run <slug>` span of one ended attempt, under the span id the claim handed out. */
  recordJobRun(run: JobRun): void;
  /** Runs `fn` inside a span for an operation on jobs (see {@link JobSpanOptions.jobs}); a job-less one starts a trace of its own. */
  inSpan<T>(name: string, options: JobSpanOptions, fn: () => Promise<T>): Promise<T>;
  /** Starts a span placed as {@link inSpan} places it (not made active); the caller ends it. */
  startSpan(name: string, options: JobSpanOptions): OpenSpan;
  /** `trace_id`/`span_id` of the active span, for log lines: a recording span's (./recording-context carries no other). */
  logFields(): TraceLogFields;
  /** Spans dropped so far: queue full, or their export failed or timed out. */
  droppedSpans(): number;
  /** Exports what is queued (bounded by the export timeout) and stops. */
  shutdown(): Promise<void>;
}
