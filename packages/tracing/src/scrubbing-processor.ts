/**
 * Keeps out of every exported span what the contract forbids there (CONTRACT §6.20): query strings
 * (the http instrumentation records the request target and full URL with them) and the message of
 * recorded exceptions (a driver's error may quote a bound value). Runs before batching, on the
 * ended span's own attributes, so nothing forbidden is ever queued.
 */
import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";

/** Attributes that hold a URL or a request target: their query string is cut off. */
const URL_ATTRIBUTES = ["http.target", "http.url", "url.full", "url.path"];
/** Attributes dropped outright. */
const DROPPED_ATTRIBUTES = ["url.query", "exception.message", "exception.stacktrace", "db.query.parameter"];

/** The hub's own tracer (./sdk). */
export const OWN_SCOPE = "@hub/tracing";

function scrub(attributes: Record<string, unknown>): void {
  for (const key of URL_ATTRIBUTES) {
    const value = attributes[key];
    if (typeof value === "string" && value.includes("?")) attributes[key] = value.slice(0, value.indexOf("?"));
  }
  for (const key of DROPPED_ATTRIBUTES) delete attributes[key];
}

export class ScrubbingProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    // An ended span's attributes are plain objects the SDK no longer writes to.
    scrub(span.attributes as Record<string, unknown>);
    for (const event of span.events) if (event.attributes) scrub(event.attributes as Record<string, unknown>);
    for (const link of span.links) if (link.attributes) scrub(link.attributes as Record<string, unknown>);
    // An instrumentation's error status carries the driver's message; the hub's own spans set only fixed words.
    if (span.instrumentationScope.name !== OWN_SCOPE && span.status.message) (span.status as { message?: string }).message = undefined;
    this.next.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}
