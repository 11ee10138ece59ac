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

/** Share of the latest completions a phase's throughput leaves out (the drain tail, stragglers). */
export const THROUGHPUT_TAIL = 0.05;

export interface Throughput {
  /** Jobs/s from the first create request until 95 % of the jobs had completed: no drain tail, no straggler. */
  steady: number;
  /** Completed jobs ÷ (last completion − first create request): everything, stragglers included. */
  wall: number;
}

/**
 * Throughput of a phase from its completion times (ms, any order) and its first create request.
 * The main figure counts the first 95 % of the completions and divides by the time from the first
 * create request to the last of them, so a few jobs held far longer than the rest (the slow,
 * heartbeating ones) or a slow drain cannot stretch the window, while the start-up (first
 * creates racing the first claims) still counts against the target as it should. Starting the
 * window at the first request rather than at a completion keeps it sound for peers that complete
 * in bursts (pg-boss completes a whole fetched batch at one instant). Below 20 completions it is
 * the wall figure.
 */
export function throughputOf(completionTimes: readonly number[], firstCreateAt: number, tail = THROUGHPUT_TAIL): Throughput {
  const sorted = Float64Array.from(completionTimes).sort();
  const count = sorted.length;
  const wall = count === 0 ? Number.NaN : (count / (sorted[count - 1]! - firstCreateAt)) * 1000;
  if (count < 20) return { steady: wall, wall };
  const counted = Math.ceil((1 - tail) * count);
  return { steady: (counted / (sorted[counted - 1]! - firstCreateAt)) * 1000, wall };
}
