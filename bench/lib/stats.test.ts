import { describe, expect, it } from "vitest";
import { percentile, summarize } from "./stats";

describe("summarize", () => {
  it("when summarizing 1 to 100 in any order, then p50, p95 and p99 are the observed values of those ranks", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);

    const summary = summarize(values);

    expect(summary).toMatchObject({ count: 100, p50: 50, p95: 95, p99: 99, max: 100, mean: 50.5 });
  });

  it("when there is one sample, then every percentile is that sample", () => {
    expect(summarize([7.5])).toMatchObject({ count: 1, p50: 7.5, p95: 7.5, p99: 7.5, max: 7.5 });
  });

  it("when there are no samples, then the figures are NaN rather than zero", () => {
    const summary = summarize([]);

    expect(summary.count).toBe(0);
    expect(summary.p99).toBeNaN();
  });

  it("when 10 samples are ranked, then p99 is the largest and p10 the smallest (nearest rank)", () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    expect(percentile(sorted, 99)).toBe(10);
    expect(percentile(sorted, 10)).toBe(1);
  });
});
