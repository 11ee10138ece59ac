/**
 * W3C trace context strings as the hub stores and hands them out, without loading OpenTelemetry.
 */
import { createHash } from "node:crypto";

/** A job's stored trace context: what a W3C `traceparent` (and `tracestate`) header carries. */
export interface StoredTraceContext {
  traceparent: string;
  tracestate?: string | null | undefined;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The parts of a version-00 `traceparent`, or undefined when it is not one (or names the all-zero ids). */
export function parseTraceparent(traceparent: string): { traceId: string; spanId: string; flags: string } | undefined {
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, flags };
}

/**
 * Whether a stored context's trace is sampled (its `traceparent`'s sampled flag): only then is a
 * span in it, or a link to it, recorded anywhere (a child follows its parent's decision), so work
 * on a job whose trace is not sampled makes no span and reads nothing more for one.
 */
export function isSampled(stored: StoredTraceContext): boolean {
  const flags = parseTraceparent(stored.traceparent)?.flags;
  // The W3C flags byte: bit 0 is "sampled".
  return flags !== undefined && (Number.parseInt(flags, 16) & 1) === 1;
}

/**
 * The span id of attempt `attempt` of job `jobId`'s `job.run` span. Derived, not stored: the claim
 * (which hands it out as the worker's parent) and whichever process later records the span (when
 * the attempt ends) agree on it without the claim writing anything more, and it is unique per
 * attempt within the job's trace.
 */
export function runSpanId(jobId: string, attempt: number): string {
  const id = createHash("sha256").update(`job.run:${jobId}:${attempt}`).digest("hex").slice(0, 16);
  // An all-zero span id is invalid; 2^-64, but cheap to rule out.
  return id === "0000000000000000" ? "0000000000000001" : id;
}

/**
 * The trace context a claim hands out for attempt `attempt`: the creating request's trace, with
 * the attempt's `job.run` span as parent and the creator's sampling decision. Undefined when the
 * stored context is not a valid `traceparent`.
 */
export function runTraceContext(stored: StoredTraceContext, jobId: string, attempt: number): StoredTraceContext | undefined {
  const parent = parseTraceparent(stored.traceparent);
  if (!parent) return undefined;
  return { traceparent: `00-${parent.traceId}-${runSpanId(jobId, attempt)}-${parent.flags}`, tracestate: stored.tracestate ?? null };
}
