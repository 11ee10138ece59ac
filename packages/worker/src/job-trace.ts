/**
 * Runs a job's handler inside its `job.run` span (CONTRACT §6.20), for programs that trace with
 * OpenTelemetry: when the program has `@opentelemetry/api` (an optional peer dependency) and the
 * claim carried a `traceparent`, the handler runs with that span as its active parent, so the spans
 * it makes — its own, and its instrumented HTTP calls, to the hub among them — join the job's
 * trace. Without either, the handler runs as it is; nothing is loaded.
 */
import type * as OpenTelemetryApi from "@opentelemetry/api";
import type { HubJob } from "./hub-client.js";

type Api = typeof OpenTelemetryApi;

let loading: Promise<Api | null> | undefined;

/** The program's OpenTelemetry API, or null when it has none; loaded once, on the first traced job. */
function openTelemetry(): Promise<Api | null> {
  loading ??= import("@opentelemetry/api").then(
    (api) => api as Api,
    () => null,
  );
  return loading;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** Calls `handler` inside the job's trace context when there is one to join (see above). */
export async function inJobTrace<T>(job: Pick<HubJob, "traceparent" | "tracestate">, handler: () => Promise<T>): Promise<T> {
  const match = job.traceparent ? TRACEPARENT.exec(job.traceparent) : null;
  if (!match) return handler();
  const api = await openTelemetry();
  if (!api) return handler();
  const spanContext: OpenTelemetryApi.SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
    ...(job.tracestate ? { traceState: api.createTraceState(job.tracestate) } : {}),
  };
  if (!api.isSpanContextValid(spanContext)) return handler();
  return api.context.with(api.trace.setSpanContext(api.ROOT_CONTEXT, spanContext), handler);
}
