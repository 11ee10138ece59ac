import { describe, expect, it } from "vitest";
import { percentile, summarize, throughputOf } from "./stats";

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

describe("throughputOf", () => {
  it("when a few stragglers complete long after the rest, then the main figure ignores them and the wall figure does not", () => {
    // 1000 jobs completing one per ms from t=0, then 5 stragglers at t=7500 ms.
    const times = [...Array.from({ length: 1000 }, (_, i) => i + 1), 7500, 7500, 7500, 7500, 7500];

    const throughput = throughputOf(times, 0);

    expect(throughput.steady).toBeCloseTo(1000, -1);
    expect(throughput.wall).toBeCloseTo((1005 / 7500) * 1000, 5);
  });

  it("when jobs complete in bursts of a whole batch, then the figure is the batches' rate, not one burst's", () => {
    // 10 bursts of 100 jobs, one every 500 ms, the first at 500 ms: 200 jobs/s.
    const times = Array.from({ length: 1000 }, (_, i) => 500 * (Math.floor(i / 100) + 1));

    const steady = throughputOf(times, 0).steady;

    // 950 of them by the last burst at 5000 ms: 190/s, within a burst's granularity of 200/s.
    expect(steady).toBeGreaterThanOrEqual(180);
    expect(steady).toBeLessThanOrEqual(200);
  });

  it("when there are too few completions to leave any out, then both figures are the wall figure", () => {
    const throughput = throughputOf([100, 200, 1000], 0);

    expect(throughput.steady).toBe(throughput.wall);
    expect(throughput.wall).toBeCloseTo(3, 5);
  });
});
