/** Latency statistics: the one percentile helper every figure of the benchmark goes through. */

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/**
 * The `p`-th percentile (0–100) of `sorted` (ascending) by the nearest-rank method: always a value
 * that was observed, so a p99 of 40 ms means one sample in a hundred really took 40 ms or longer.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Count, p50/p95/p99, max and mean of `values` (milliseconds, usually); NaN figures when empty. */
export function summarize(values: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  let total = 0;
  for (const value of sorted) total += value;
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length > 0 ? sorted[sorted.length - 1]! : Number.NaN,
    mean: sorted.length > 0 ? total / sorted.length : Number.NaN,
  };
}
