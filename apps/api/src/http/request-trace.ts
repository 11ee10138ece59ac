/**
 * The trace context of a request, for the jobs it creates (CONTRACT §6.20): its server span, a
 * child of its incoming `traceparent`, sampled or not — every attempt's `job.run` span hangs under
 * it, and every process downstream follows its sampling decision. Read from the request, not from
 * the active context, which carries only recording spans (@hub/tracing recording-context.ts).
 * Undefined while tracing is off.
 */
import type { IncomingMessage } from "node:http";
import { activeTracing, type StoredTraceContext } from "@hub/tracing";

export const requestTrace = (req: IncomingMessage): StoredTraceContext | undefined => activeTracing()?.requestContext(req);
