/**
 * The context manager of a tracing hub process: an AsyncLocalStorage one that carries only
 * contexts that matter, and is switched off while no recorded span is open.
 *
 * Under a sampler that keeps 1 % of traces, the SDK's own manager made every request, offer and
 * publish pay for a context nobody reads: the HTTP instrumentation enters each request's context
 * (its server span is not sampled, so nothing will be recorded under it) and binds the request's
 * and response's event emitters to it, wrapping every listener; and once any context has been
 * entered, Node 20's AsyncLocalStorage runs an async hook on every promise and callback the
 * process makes, for good. In the API that was most of what was left of 1 % sampling's cost
 * (bench/runs/2026-12-02-2300-tracing-context-only-when-recorded.md).
 *
 * A context matters when it holds a recording span (a sampled one, not yet ended) or suppresses
 * tracing (the exporter's own calls). So:
 * - {@link with} a context without a recording span, from ROOT, just calls the function: nothing
 *   is entered (a suppressing context from ROOT included: every instrumentation here traces only
 *   under a recording parent, so there is nothing to suppress);
 * - {@link bind} to a context that does not matter returns the target as it is;
 * - {@link active} reads a context that does not matter as ROOT (a stored one can be stale: the
 *   context of a span that has ended since, still on a pooled connection's socket);
 * - {@link OpenSpanCounter}, the provider's first span processor, counts the open recorded spans;
 *   when the last one ends the storage is disabled, which removes Node's async hook until the next
 *   recorded span's context is entered.
 *
 * What an unsampled request still needs downstream — its trace context with the sampled flag
 * unset, for the jobs it creates, and its ids on its log line — is read from the request itself
 * (./sdk.ts `requestContext`), not from the active context.
 */
import { ROOT_CONTEXT, trace, type Context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { isTracingSuppressed } from "@opentelemetry/core";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";

const isRecording = (context: Context): boolean => trace.getSpan(context)?.isRecording() === true;

/** True for a context worth carrying across async work: a recording span's, or one that suppresses tracing. */
function contextMatters(context: Context): boolean {
  return isRecording(context) || isTracingSuppressed(context);
}

export class RecordingOnlyContextManager extends AsyncLocalStorageContextManager {
  #openSpans = 0;

  override active(): Context {
    const context = super.active();
    return context === ROOT_CONTEXT || contextMatters(context) ? context : ROOT_CONTEXT;
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    // From ROOT, a context without a recording span changes nothing worth carrying: nothing under it is recorded, and a
    // suppressed one (the exporter's calls) has nothing to suppress, since every instrumentation of a hub process
    // traces only under a recording parent. Leaving a recording context for another one does have to be entered, so
    // that the work inside does not run under the outer span.
    if (!isRecording(context) && this.active() === ROOT_CONTEXT) return fn.apply(thisArg, args);
    return super.with(context, fn, thisArg, ...args);
  }

  override bind<T>(context: Context, target: T): T {
    return contextMatters(context) ? super.bind(context, target) : target;
  }

  /** A recorded span has started: the storage is on from its context's first entry until the last one ends. */
  spanStarted(): void {
    this.#openSpans += 1;
  }

  /** A recorded span has ended; with none open, the storage (and with it Node's async hook) is switched off. */
  spanEnded(): void {
    this.#openSpans = Math.max(0, this.#openSpans - 1);
    if (this.#openSpans === 0) this.disable();
  }

  /** Recorded spans open now (for tests). */
  get openSpans(): number {
    return this.#openSpans;
  }
}

/** A span processor that tells the context manager when recorded spans start and end (processors see only those). */
export class OpenSpanCounter implements SpanProcessor {
  constructor(private readonly manager: RecordingOnlyContextManager) {}
  onStart(_span: Span): void {
    this.manager.spanStarted();
  }
  onEnd(_span: ReadableSpan): void {
    this.manager.spanEnded();
  }
  forceFlush = () => Promise.resolve();
  shutdown = () => Promise.resolve();
}
