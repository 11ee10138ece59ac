import { context, trace, TraceFlags } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterAll, describe, expect, it } from "vitest";
import { wrapInRecordingSpans } from "./recording-only";

// A context manager, as in a hub process (NodeTracerProvider registers AsyncLocalStorage's).
const provider = new NodeTracerProvider();
provider.register();
afterAll(() => provider.shutdown());

/** A client method, and what the instrumentation's wrapper makes of it. */
function instrumentedClient() {
  const client = { query: (sql: string) => `plain ${sql}` };
  const wrap = wrapInRecordingSpans((nodule, name, wrapper) => {
    nodule[name] = wrapper(nodule[name], name);
    return undefined;
  });
  wrap(client, "query", (original) => (sql: string) => `instrumented ${original(sql)}`);
  return client;
}

describe("client instrumentations in recording spans only", () => {
  it("when a query runs inside a recording span, then the instrumentation's version runs; outside any span or inside one not sampled, the module's own", () => {
    const client = instrumentedClient();
    const recording = provider.getTracer("test").startSpan("request");
    const unsampled = trace.wrapSpanContext({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: TraceFlags.NONE });

    expect(context.with(trace.setSpan(context.active(), recording), () => client.query("select 1"))).toBe("instrumented plain select 1");
    expect(context.with(trace.setSpan(context.active(), unsampled), () => client.query("select 1"))).toBe("plain select 1");
    expect(client.query("select 1")).toBe("plain select 1");
    recording.end();
    // An ended span records nothing more: its children would be dropped.
    expect(context.with(trace.setSpan(context.active(), recording), () => client.query("select 1"))).toBe("plain select 1");
  });
});
