import { describe, expect, it } from "vitest";
import { isSampled, parseTraceparent, runSpanId, runTraceContext } from "./trace-context";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const JOB = "c2d4e6f8-1a3b-4c5d-9e7f-8a0b2c4d6e8f";

describe("job.run trace contexts", () => {
  it("when a claim hands out an attempt, then it keeps the creator's trace and flags and names a span id of that attempt alone", () => {
    const stored = { traceparent: `00-${TRACE}-b7ad6b7169203331-01`, tracestate: "vendor=1" };
    const first = runTraceContext(stored, JOB, 1);
    expect(first).toEqual({ traceparent: `00-${TRACE}-${runSpanId(JOB, 1)}-01`, tracestate: "vendor=1" });
    expect(runTraceContext(stored, JOB, 1)).toEqual(first);
    expect(runSpanId(JOB, 2)).not.toBe(runSpanId(JOB, 1));
    expect(runTraceContext({ traceparent: `00-${TRACE}-b7ad6b7169203331-00` }, JOB, 1)?.traceparent.endsWith("-00")).toBe(true);
  });

  it("when the stored value is not a valid traceparent, then no context is handed out", () => {
    expect(runTraceContext({ traceparent: "garbage" }, JOB, 1)).toBeUndefined();
    expect(parseTraceparent(`00-${"0".repeat(32)}-b7ad6b7169203331-01`)).toBeUndefined();
    expect(parseTraceparent(`00-${TRACE}-0000000000000000-01`)).toBeUndefined();
  });

  it("when a stored context's sampled flag is set, then its trace is sampled; unset or not a traceparent, it is not", () => {
    expect(isSampled({ traceparent: `00-${TRACE}-b7ad6b7169203331-01` })).toBe(true);
    expect(isSampled({ traceparent: `00-${TRACE}-b7ad6b7169203331-03` })).toBe(true);
    expect(isSampled({ traceparent: `00-${TRACE}-b7ad6b7169203331-00` })).toBe(false);
    expect(isSampled({ traceparent: `00-${TRACE}-b7ad6b7169203331-02` })).toBe(false);
    expect(isSampled({ traceparent: "garbage" })).toBe(false);
  });
});
