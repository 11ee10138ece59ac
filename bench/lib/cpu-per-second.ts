/**
 * CPU milliseconds per wall second of each process, sampled every second over a window: what the
 * hub costs while it waits (the timed mode's waiting window, the alerts mode's idle windows).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { cpuSecondsBetween, snapshotCpu, type CpuSnapshot } from "./cpu";

/** Processes whose CPU the reports show; `hub` sums {@link HUB_LABELS}. */
export const CPU_LABELS = ["api", "dispatcher", "relay", "postgres", "redis", "pg-shared", "bench", "other"] as const;
export const HUB_LABELS = ["api", "dispatcher", "relay", "postgres", "redis"] as const;

export interface CpuPerSecond {
  /** CPU milliseconds per wall second, over the whole window. */
  mean: Record<string, number>;
  /** The busiest one-second sample (ticks are 10 ms, so single samples are coarse). */
  max: Record<string, number>;
  seconds: number;
}

/** Samples CPU every second until `until` (ms since the epoch) and averages it per wall second. */
export async function sampleCpu(pids: Record<string, number | undefined>, database: string, until: number): Promise<CpuPerSecond> {
  const first = snapshotCpu(pids, database);
  const started = performance.now();
  const max: Record<string, number> = {};
  let previous: CpuSnapshot = first;
  while (Date.now() < until) {
    await sleep(Math.min(1000, Math.max(0, until - Date.now())));
    const current = snapshotCpu(pids, database);
    const step = cpuSecondsBetween(previous, current);
    for (const label of CPU_LABELS) max[label] = Math.max(max[label] ?? 0, (step[label] ?? 0) * 1000);
    max.hub = Math.max(
      max.hub ?? 0,
      HUB_LABELS.reduce((sum, label) => sum + (step[label] ?? 0) * 1000, 0),
    );
    previous = current;
  }
  const seconds = (performance.now() - started) / 1000;
  const total = cpuSecondsBetween(first, previous);
  const mean: Record<string, number> = Object.fromEntries(CPU_LABELS.map((label) => [label, ((total[label] ?? 0) * 1000) / seconds]));
  mean.hub = HUB_LABELS.reduce((sum, label) => sum + mean[label]!, 0);
  return { mean, max, seconds };
}

/** Milliseconds as the idle reports print them. */
export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : "–");

/** One line: every process's mean / busiest second, and the hub's sum. */
export function renderCpuPerSecond(cpu: CpuPerSecond): string {
  return [...HUB_LABELS, "pg-shared", "bench", "other"]
    .map((label) => `${label} ${ms(cpu.mean[label]!)} / ${ms(cpu.max[label]!)}`)
    .concat(`hub Σ ${ms(cpu.mean.hub!)} / ${ms(cpu.max.hub!)}`)
    .join(" · ");
}
