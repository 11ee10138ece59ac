/**
 * A batching span processor that never makes the traced code wait and counts what it loses.
 *
 * The SDK's BatchSpanProcessor already never blocks, but it keeps its drop count to itself; the
 * hub must publish one (`hub_trace_spans_dropped_total`, CONTRACT §6.20). This one follows the same
 * `OTEL_BSP_*` variables and adds the count: a span that finds the queue full, and every span of an
 * export that failed or timed out (an unreachable or hanging collector), is dropped and counted.
 * At most one export is in flight, so a collector that hangs costs one batch in memory, never a
 * pile of pending requests; spans that end meanwhile queue until the queue is full.
 */
import { context, ROOT_CONTEXT, type Context } from "@opentelemetry/api";
import { ExportResultCode, getNumberFromEnv, suppressTracing } from "@opentelemetry/core";
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from "@opentelemetry/sdk-trace-base";

export interface DroppingBatchOptions {
  /** OTEL_BSP_MAX_QUEUE_SIZE, default 2048. */
  maxQueueSize?: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE, default 512. */
  maxExportBatchSize?: number;
  /** OTEL_BSP_SCHEDULE_DELAY, default 5000 ms. */
  scheduleDelayMs?: number;
  /** OTEL_BSP_EXPORT_TIMEOUT, default 30000 ms: an export not answered by then counts as failed. */
  exportTimeoutMs?: number;
}

export function batchOptionsFromEnv(): DroppingBatchOptions {
  const options: DroppingBatchOptions = {};
  const set = (key: keyof DroppingBatchOptions, variable: string) => {
    const value = getNumberFromEnv(variable);
    if (value !== undefined && value > 0) options[key] = value;
  };
  set("maxQueueSize", "OTEL_BSP_MAX_QUEUE_SIZE");
  set("maxExportBatchSize", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE");
  set("scheduleDelayMs", "OTEL_BSP_SCHEDULE_DELAY");
  set("exportTimeoutMs", "OTEL_BSP_EXPORT_TIMEOUT");
  return options;
}

export class DroppingBatchProcessor implements SpanProcessor {
  readonly #exporter: SpanExporter;
  readonly #maxQueueSize: number;
  readonly #maxBatch: number;
  readonly #delayMs: number;
  readonly #timeoutMs: number;
  #queue: ReadableSpan[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  #dropped = 0;
  #exported = 0;
  #closed = false;

  constructor(exporter: SpanExporter, options: DroppingBatchOptions = {}) {
    this.#exporter = exporter;
    this.#maxQueueSize = options.maxQueueSize ?? 2048;
    this.#maxBatch = Math.min(options.maxExportBatchSize ?? 512, this.#maxQueueSize);
    this.#delayMs = options.scheduleDelayMs ?? 5000;
    this.#timeoutMs = options.exportTimeoutMs ?? 30_000;
  }

  /** Spans lost so far: queue full, or their export failed or timed out. */
  get droppedSpans(): number {
    return this.#dropped;
  }

  /** Spans the collector accepted so far. */
  get exportedSpans(): number {
    return this.#exported;
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (this.#closed || (span.spanContext().traceFlags & 1) === 0) return;
    if (this.#queue.length >= this.#maxQueueSize) {
      this.#dropped += 1;
      return;
    }
    this.#queue.push(span);
    if (this.#queue.length >= this.#maxBatch) this.#exportNext();
    else this.#arm();
  }

  async forceFlush(): Promise<void> {
    while (this.#queue.length > 0 || this.#inFlight) {
      if (this.#inFlight) await this.#inFlight;
      else this.#exportNext();
    }
  }

  async shutdown(): Promise<void> {
    if (this.#closed) return;
    await this.forceFlush();
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#exporter.shutdown();
  }

  #arm(): void {
    if (this.#timer || this.#inFlight) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#exportNext();
    }, this.#delayMs);
    // A pending export never keeps a stopping process alive: shutdown flushes explicitly.
    this.#timer.unref();
  }

  #exportNext(): void {
    if (this.#inFlight || this.#queue.length === 0) return;
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#queue.splice(0, this.#maxBatch);
    this.#inFlight = this.#export(batch).finally(() => {
      this.#inFlight = undefined;
      if (this.#queue.length >= this.#maxBatch) this.#exportNext();
      else if (this.#queue.length > 0) this.#arm();
    });
  }

  /** Resolves when the exporter answers or the timeout passes, whichever is first; never rejects. */
  #export(batch: ReadableSpan[]): Promise<void> {
    return new Promise<void>((resolve) => {
      let settled = false;
      const settle = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (ok) this.#exported += batch.length;
        else this.#dropped += batch.length;
        resolve();
      };
      const timer = setTimeout(() => settle(false), this.#timeoutMs);
      timer.unref();
      try {
        // Outside every span, and untraced: an export started while a request's span is active
        // would otherwise be traced as that request's outgoing call, and its spans exported next.
        context.with(suppressTracing(ROOT_CONTEXT), () => this.#exporter.export(batch, (result) => settle(result.code === ExportResultCode.SUCCESS)));
      } catch {
        settle(false);
      }
    });
  }
}
