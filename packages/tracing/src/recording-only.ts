/**
 * The PostgreSQL and Redis client instrumentations, patched to step aside outside a recording span.
 *
 * Their own `requireParentSpan` asks only whether some span is active, and under a sampler that
 * keeps 1 % of traces the other 99 % of requests, offers and sweeps have one too: a span that is
 * not sampled. Every query and command inside one would still pay for a span of its own (ids, the
 * sampler, attributes), its callbacks bound to the context and its connection's details read —
 * all for a child that the parent-based sampler is bound to drop as well, since a child follows
 * its parent's decision. In the hub's API that work was most of what 1 % sampling cost
 * (bench/runs/2026-12-02-1838-unsampled-tracing-cost.md).
 *
 * So each method the instrumentation wraps is wrapped once more: inside a recording span it runs
 * the instrumentation's version, which records the promised client span; anywhere else the
 * module's own, untouched. No trace context travels to PostgreSQL or Redis, so nothing is lost by
 * skipping them. A sampled trace keeps every client span it had.
 */
import { trace } from "@opentelemetry/api";
import { IORedisInstrumentation, type IORedisInstrumentationConfig } from "@opentelemetry/instrumentation-ioredis";
import { PgInstrumentation, type PgInstrumentationConfig } from "@opentelemetry/instrumentation-pg";

type Wrap = PgInstrumentation["_wrap"];

/** `wrap` (an instrumentation's shimmer wrap) whose wrappers run only while a recording span is active. */
export function wrapInRecordingSpans(wrap: Wrap): Wrap {
  return (nodule, name, wrapper) =>
    wrap(nodule, name, (original, field) => {
      const patched = wrapper(original, field);
      if (typeof original !== "function" || typeof patched !== "function") return patched;
      const [plain, instrumented] = [original as (...args: unknown[]) => unknown, patched as (...args: unknown[]) => unknown];
      return function (this: unknown, ...args: unknown[]) {
        return trace.getActiveSpan()?.isRecording() ? instrumented.apply(this, args) : plain.apply(this, args);
      } as typeof original;
    });
}

/** PostgreSQL client spans (`pg.query:…`, `pg.connect`, `pg-pool.connect`), only inside a recording span. */
export class RecordingOnlyPgInstrumentation extends PgInstrumentation {
  constructor(config: PgInstrumentationConfig) {
    super(config);
    this._wrap = wrapInRecordingSpans(this._wrap);
  }
}

/** Redis command spans, only inside a recording span. */
export class RecordingOnlyIORedisInstrumentation extends IORedisInstrumentation {
  constructor(config: IORedisInstrumentationConfig) {
    super(config);
    this._wrap = wrapInRecordingSpans(this._wrap);
  }
}
