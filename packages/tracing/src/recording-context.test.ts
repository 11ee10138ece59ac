import { EventEmitter } from "node:events";
import { setImmediate as nextTurn } from "node:timers/promises";
import { ROOT_CONTEXT, trace, TraceFlags, type Context } from "@opentelemetry/api";
import { suppressTracing, isTracingSuppressed } from "@opentelemetry/core";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { OpenSpanCounter, RecordingOnlyContextManager } from "./recording-context";

function setup() {
  const manager = new RecordingOnlyContextManager();
  const provider = new BasicTracerProvider({ spanProcessors: [new OpenSpanCounter(manager)] });
  const tracer = provider.getTracer("test");
  const recordingContext = () => {
    const span = tracer.startSpan("recorded", {}, ROOT_CONTEXT);
    return { span, context: trace.setSpan(ROOT_CONTEXT, span) };
  };
  const unsampledContext = trace.setSpan(
    ROOT_CONTEXT,
    trace.wrapSpanContext({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.NONE }),
  );
  // The storage's switch (Node's AsyncLocalStorage#enabled): on, Node runs its async hook on every promise.
  const storageOn = () => (manager as unknown as { _asyncLocalStorage: { enabled: boolean } })._asyncLocalStorage.enabled;
  return { manager, recordingContext, unsampledContext, storageOn };
}

/** The active context after an await inside `fn`'s context: what the work of a request sees later on. */
async function activeAfterAwait(manager: RecordingOnlyContextManager, context: Context): Promise<Context> {
  return manager.with(context, async () => {
    await nextTurn();
    return manager.active();
  });
}

describe("the context manager of a tracing hub process", () => {
  it("when a request's span is recorded, then its context is active across its awaits, and the storage is off again once the span ends", async () => {
    const { manager, recordingContext, storageOn } = setup();
    expect(storageOn()).toBe(false);
    const { span, context } = recordingContext();
    expect(await activeAfterAwait(manager, context)).toBe(context);
    expect(storageOn()).toBe(true);
    span.end();
    expect(manager.openSpans).toBe(0);
    expect(storageOn()).toBe(false);
  });

  it("when a request's span is not sampled, then nothing is entered: no storage, the active context stays ROOT, emitters are not patched", async () => {
    const { manager, unsampledContext, storageOn } = setup();
    expect(await activeAfterAwait(manager, unsampledContext)).toBe(ROOT_CONTEXT);
    expect(storageOn()).toBe(false);
    const emitter = new EventEmitter();
    const on = emitter.on;
    expect(manager.bind(unsampledContext, emitter)).toBe(emitter);
    expect(emitter.on).toBe(on);
    const listener = () => undefined;
    expect(manager.bind(unsampledContext, listener)).toBe(listener);
  });

  it("when an unsampled context is entered inside a recorded one, then the work inside does not run under the recorded span", async () => {
    const { manager, recordingContext, unsampledContext } = setup();
    const { span, context } = recordingContext();
    const inner = await manager.with(context, () => activeAfterAwait(manager, unsampledContext));
    expect(inner).toBe(ROOT_CONTEXT);
    span.end();
  });

  it("when the exporter suppresses tracing inside a recorded span, then the suppression is carried across awaits; from ROOT it enters nothing", async () => {
    const { manager, recordingContext, storageOn } = setup();
    expect(await activeAfterAwait(manager, suppressTracing(ROOT_CONTEXT))).toBe(ROOT_CONTEXT);
    expect(storageOn()).toBe(false);
    const { span, context } = recordingContext();
    const suppressed = await manager.with(context, () => activeAfterAwait(manager, suppressTracing(context)));
    expect(isTracingSuppressed(suppressed)).toBe(true);
    span.end();
    expect(storageOn()).toBe(false);
  });

  it("when a span has ended but its context is still stored (work that outlived it), then it reads as ROOT, and another span's context keeps the storage on", async () => {
    const { manager, recordingContext, storageOn } = setup();
    const first = recordingContext();
    const second = recordingContext();
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const later = manager.with(first.context, async () => {
      await resumed;
      return manager.active();
    });
    first.span.end();
    // The second span is still open: the storage stays on, and the first's continuation finds its ended context.
    expect(storageOn()).toBe(true);
    resume();
    expect(await later).toBe(ROOT_CONTEXT);
    expect(await activeAfterAwait(manager, second.context)).toBe(second.context);
    second.span.end();
    expect(storageOn()).toBe(false);
  });
});
