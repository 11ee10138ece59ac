import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { DroppingBatchProcessor } from "./dropping-batch-processor";

const span = () => ({ spanContext: () => ({ traceId: "a".repeat(32), spanId: "b".repeat(16), traceFlags: 1 }) }) as unknown as ReadableSpan;

/** An exporter whose exports answer only when the test says. */
function heldExporter() {
  const pending: ((result: ExportResult) => void)[] = [];
  const exporter: SpanExporter = {
    export: (_spans, done) => void pending.push(done),
    shutdown: async () => undefined,
  };
  return { exporter, pending };
}

describe("the dropping batch processor", () => {
  it("when the collector never answers, then ending spans never waits, the queue stays bounded, and overflow and the timed-out batch are counted", async () => {
    const { exporter, pending } = heldExporter();
    const processor = new DroppingBatchProcessor(exporter, { maxQueueSize: 4, maxExportBatchSize: 2, scheduleDelayMs: 10, exportTimeoutMs: 50 });
    for (let index = 0; index < 2; index += 1) processor.onEnd(span()); // a full batch: exported at once, never answered
    expect(pending).toHaveLength(1);
    for (let index = 0; index < 6; index += 1) processor.onEnd(span()); // 4 queue, 2 overflow
    expect(processor.droppedSpans).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 80));
    // The hung batch timed out (2 more dropped) and the next one went out.
    expect(processor.droppedSpans).toBe(4);
    expect(pending.length).toBeGreaterThanOrEqual(2);
    for (const done of pending.splice(0)) done({ code: ExportResultCode.SUCCESS });
    expect(processor.exportedSpans).toBeGreaterThanOrEqual(2);
  });

  it("when an export fails, then its spans are counted as dropped", async () => {
    const { exporter, pending } = heldExporter();
    const processor = new DroppingBatchProcessor(exporter, { maxExportBatchSize: 3, exportTimeoutMs: 1000 });
    for (let index = 0; index < 3; index += 1) processor.onEnd(span());
    pending[0]!({ code: ExportResultCode.FAILED });
    await new Promise((resolve) => setImmediate(resolve));
    expect(processor.droppedSpans).toBe(3);
    expect(processor.exportedSpans).toBe(0);
  });
});
