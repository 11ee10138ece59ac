import { describe, expect, it } from "vitest";
import { activeTracing } from "@hub/tracing";
import type { Executor } from "@hub/db";
import type { Logger } from "@hub/shared";
import { FireSpans, inOfferSpan, inSweepSpan, sweepStart } from "./job-tracing";

describe("the dispatcher's spans with tracing off", () => {
  it("when no OTLP endpoint is set, then a sweep reads no clock, its hand-off runs as is, and a fire pass opens no span", async () => {
    expect(activeTracing()).toBeUndefined();
    expect(sweepStart()).toBeUndefined();
    const handedOff = Promise.resolve();
    const swept = { requeued: [], failed: [] };
    // The very promise of the hand-off: no wrapper, no span, no allocation around it.
    expect(inSweepSpan("lease_expired", swept, new Date(), () => handedOff)).toBe(handedOff);
    expect(FireSpans.forPass()).toBeUndefined();
  });

  it("when no OTLP endpoint is set, then an offer reads no trace context and is the offer itself", () => {
    const untouchable = new Proxy({}, { get: () => expect.fail("tracing off must not touch the database or the logger") });
    const offered = Promise.resolve();
    expect(inOfferSpan(untouchable as Executor, untouchable as Logger, [{ id: "a" }], () => offered)).toBe(offered);
  });
});
