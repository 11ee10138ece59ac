/**
 * The OpenTelemetry SDK of a hub process, loaded only when tracing is on (see ./index).
 *
 * - Exporter: OTLP/HTTP, protobuf or JSON; it reads its own `OTEL_EXPORTER_OTLP_*` variables
 *   (endpoint, headers, timeout, compression). Spans go through {@link DroppingBatchProcessor}.
 * - Sampler, limits, resource: the SDK's own reading of `OTEL_TRACES_SAMPLER(_ARG)`,
 *   `OTEL_*_LIMIT`, `OTEL_RESOURCE_ATTRIBUTES`; the service name is `OTEL_SERVICE_NAME` or the app's.
 * - Propagation: W3C trace context and baggage, in and out.
 * - Instrumentations: http (server spans, named `METHOD /route/:template` by the route express
 *   matched), pg and ioredis (client spans, only inside a recording span: the dispatcher's and
 *   relay's idle polling would otherwise be a trace per query, and a trace that is not sampled
 *   should cost next to nothing; ./recording-only).
 * - Context: ./recording-context, which carries only recording spans' contexts. A request's own
 *   context, sampled or not, is read from the request ({@link HubTracing.requestContext}).
 */
import type { IncomingMessage } from "node:http";
import { register } from "node:module";
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Link,
  type SpanContext,
  type Span,
  type SpanOptions,
} from "@opentelemetry/api";
import { isSpanContextValid } from "@opentelemetry/api";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, RandomIdGenerator, type IdGenerator } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_HTTP_ROUTE, ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { batchOptionsFromEnv, DroppingBatchProcessor } from "./dropping-batch-processor";
import type { HubTracing, JobRun, JobSpanOptions, OpenSpan, TraceLogFields } from "./hub-tracing";
import { OpenSpanCounter, RecordingOnlyContextManager } from "./recording-context";
import { RecordingOnlyIORedisInstrumentation, RecordingOnlyPgInstrumentation } from "./recording-only";
import { OWN_SCOPE, ScrubbingProcessor } from "./scrubbing-processor";
import { runSpanId, type StoredTraceContext } from "./trace-context";
import type { TracingSettings } from "./settings";

/** The modules the ESM hook wraps; every other import is left alone (no proxy, no cost). */
const HOOKED_MODULES = ["pg", "pg-pool", "ioredis", "http", "https", "node:http", "node:https"];
/** Requests no one traces: probes and scrapes, every few seconds. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);
/** At most this many links on a span that serves many jobs (the SDK's default link limit). */
const MAX_LINKS = 128;

/**
 * Random ids, except the ones a caller sets for the next span: a `job.run` span's derived span id,
 * and the trace id a request's sampling decision was made for ({@link RequestSampling}).
 */
class HubIdGenerator implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  nextSpanId: string | undefined;
  nextTraceId: string | undefined;
  generateTraceId = () => {
    const id = this.nextTraceId;
    this.nextTraceId = undefined;
    return id ?? this.#random.generateTraceId();
  };
  generateSpanId = () => {
    const id = this.nextSpanId;
    this.nextSpanId = undefined;
    return id ?? this.#random.generateSpanId();
  };
}

/** The route template express matched (`/jobs/:job_id/complete`), set on the request by express; none for a 404 or a static file. */
const routeOf = (request: IncomingMessage): string | undefined =>
  (request as IncomingMessage & { route?: { path?: unknown } }).route?.path as string | undefined;

const pathOf = (request: IncomingMessage) => (request.url ?? "").split("?")[0] ?? "";

/**
 * Each incoming request's sampling decision, made before the HTTP instrumentation does any work
 * for it. A request whose trace is not sampled is one the instrumentation ignores: it reads no
 * attributes, starts no span, adds no listeners and ends nothing, which was most of what tracing
 * at 1 % cost the API (bench/runs/2026-12-03-1114-unsampled-requests-skip-the-http-instrumentation.md).
 *
 * The decision is the configured sampler's own: a tracer of a provider without processors, which
 * reads the same `OTEL_TRACES_SAMPLER(_ARG)` as the exporting one, starts the request's span from
 * its incoming context. Not sampled, that span (ids and flags, nothing recorded) is the request's
 * context: what its jobs store and its log line names. Sampled, it is dropped (never ended, so never
 * exported) and the instrumentation starts the real one, in the same trace: a root request's trace
 * id is handed to the id generator, and the samplers the SDK offers (always, never, by trace id
 * ratio, parent based) decide the same for the same trace id and parent.
 */
class RequestSampling {
  readonly #probe = new BasicTracerProvider().getTracer("automation-hub-sampling");
  constructor(readonly ids: HubIdGenerator) {}

  /** The request's span if its trace is not sampled; undefined if it is, with the real span's trace id set. */
  unsampledSpan(request: IncomingMessage): Span | undefined {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const span = this.#probe.startSpan(request.method ?? "GET", { kind: SpanKind.SERVER }, parent);
    if (!span.isRecording()) return span;
    const incoming = trace.getSpanContext(parent);
    if (!incoming || !isSpanContextValid(incoming)) this.ids.nextTraceId = span.spanContext().traceId;
    return undefined;
  }
}

/** W3C trace context of a span (sampled or not), as a job stores it. */
function storedContextOf(span: Span | undefined): StoredTraceContext | undefined {
  if (!span) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate ?? null } : undefined;
}

const spanKinds = { internal: SpanKind.INTERNAL, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER } as const;

function spanContextOf(stored: StoredTraceContext): SpanContext | undefined {
  const carrier: Record<string, string> = { traceparent: stored.traceparent };
  if (stored.tracestate) carrier.tracestate = stored.tracestate;
  const spanContext = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier));
  return spanContext && isSpanContextValid(spanContext) ? spanContext : undefined;
}

/**
 * Where a span for an operation on jobs goes: one job's trace → a child of its stored span; none
 * or several → a root span (a trace of its own), linked to each job's (at most {@link MAX_LINKS}).
 */
function placement(options: JobSpanOptions): { spanOptions: SpanOptions; parent: Context } {
  const unique = new Map<string, SpanContext>();
  for (const stored of options.jobs ?? []) {
    const spanContext = stored ? spanContextOf(stored) : undefined;
    if (spanContext) unique.set(`${spanContext.traceId}-${spanContext.spanId}`, spanContext);
  }
  const contexts = [...unique.values()];
  const only = contexts.length === 1 ? contexts[0] : undefined;
  const links: Link[] = only ? [] : contexts.slice(0, MAX_LINKS).map((spanContext) => ({ context: spanContext }));
  const attributes = { ...options.attributes, ...(contexts.length > 1 ? { "hub.jobs.count": contexts.length } : {}) };
  return {
    spanOptions: {
      kind: spanKinds[options.kind ?? "internal"],
      attributes,
      links,
      root: !only,
      ...(options.startTime ? { startTime: options.startTime } : {}),
    },
    parent: only ? trace.setSpanContext(ROOT_CONTEXT, only) : ROOT_CONTEXT,
  };
}

export function startSdkTracing(settings: TracingSettings): HubTracing {
  // Before any instrumented module is imported (./index says why): the hook sees ESM imports, the
  // instrumentations' own require hook sees CommonJS requires.
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url, { data: { include: HOOKED_MODULES } });

  const exporter = settings.protocol === "http/json" ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const batching = new DroppingBatchProcessor(exporter, batchOptionsFromEnv());
  const ids = new HubIdGenerator();
  const contextManager = new RecordingOnlyContextManager();
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName })),
    idGenerator: ids,
    spanProcessors: [new OpenSpanCounter(contextManager), new ScrubbingProcessor(batching)],
  });
  provider.register({ contextManager });
  // Each incoming request's server span, sampled or not: what the jobs it creates store, and its log line's ids.
  const requestSpans = new WeakMap<IncomingMessage, Span>();
  const sampling = new RequestSampling(ids);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes are not traced; a request whose trace is not sampled keeps only its context.
        ignoreIncomingRequestHook: (request) => {
          if (UNTRACED_PATHS.has(pathOf(request))) return true;
          const unsampled = sampling.unsampledSpan(request);
          if (unsampled) requestSpans.set(request, unsampled);
          return unsampled !== undefined;
        },
        requestHook: (span, request) => {
          // The trace id set for this request's span was taken by it (or, for a request with a parent, not needed).
          ids.nextTraceId = undefined;
          if (!("setHeader" in request)) requestSpans.set(request, span);
        },
        // Named by the route express matched, read at the response's end (express keeps it on the request).
        applyCustomAttributesOnSpan: (span, request) => {
          const route = span.isRecording() && !("setHeader" in request) ? routeOf(request) : undefined;
          if (!route) return;
          span.setAttribute(ATTR_HTTP_ROUTE, route);
          span.updateName(`${request.method ?? "GET"} ${route}`);
        },
        // Outgoing calls are traced only inside a span (a webhook delivery, a worker's call to the hub).
        requireParentforOutgoingSpans: true,
      }),
      new RecordingOnlyPgInstrumentation({ requireParentSpan: true }),
      // The command's name only: its arguments hold event data, keys and values.
      new RecordingOnlyIORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    ],
  });

  const tracer = provider.getTracer(OWN_SCOPE);

  return {
    serviceName: settings.serviceName,
    requestContext: (request) => storedContextOf(requestSpans.get(request)),
    requestLogFields(request) {
      const spanContext = requestSpans.get(request)?.spanContext();
      return spanContext && isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
    },
    recordJobRun(run: JobRun) {
      const parent = spanContextOf(run.trace);
      if (!parent) return;
      ids.nextSpanId = runSpanId(run.jobId, run.attempt);
      const span = tracer.startSpan(
        `job.run ${run.automationSlug}`,
        {
          kind: SpanKind.CONSUMER,
          startTime: run.startedAt,
          attributes: {
            "hub.job.id": run.jobId,
            "hub.job.attempt": run.attempt,
            "hub.automation.id": run.automationId,
            "hub.automation.slug": run.automationSlug,
            "hub.job.outcome": run.outcome,
            ...(run.reason ? { "hub.job.reason": run.reason } : {}),
          },
        },
        trace.setSpanContext(ROOT_CONTEXT, parent),
      );
      ids.nextSpanId = undefined;
      if (run.outcome !== "completed") span.setStatus({ code: SpanStatusCode.ERROR, message: run.reason ?? run.outcome });
      span.end(run.endedAt);
    },
    inSpan<T>(name: string, options: JobSpanOptions, fn: () => Promise<T>): Promise<T> {
      const { spanOptions, parent } = placement(options);
      return tracer.startActiveSpan(name, spanOptions, parent, async (span) => {
        try {
          return await fn();
        } catch (error) {
          // The error's name only: messages may quote values.
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    startSpan(name: string, options: JobSpanOptions): OpenSpan {
      const { spanOptions, parent } = placement(options);
      const span = tracer.startSpan(name, spanOptions, parent);
      return {
        traceContext: storedContextOf(span),
        end(outcome = {}) {
          if (outcome.attributes) span.setAttributes(outcome.attributes);
          if (outcome.error) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
          span.end();
        },
      };
    },
    logFields(): TraceLogFields {
      const spanContext = trace.getSpanContext(context.active());
      return spanContext && isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
    },
    droppedSpans: () => batching.droppedSpans,
    shutdown: () => provider.shutdown(),
  };
}
