/** The scale mode's report: its shape (written as JSON) and its rendering for the terminal. */
import { HISTORY_CUSTOMERS } from "@hub/testing";
import { firstRowsLine, type FirstRows } from "../console";
import type { BenchConfig } from "../lib/config";
import { busyWarning, type MachineInfo } from "../lib/report";
import { summarize, type LatencySummary } from "../lib/stats";
import { INSERT_COST_JOBS, INSERT_COST_ROUNDS, type ContextIndexCost, type PlanCheck, type TableSize } from "./measure";
import { HISTORY_DAYS, RETENTION_DAYS, type ScaleCounts } from "./preflight";

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 1 : 0) : "–");
const latency = (s: LatencySummary) => `n=${s.count}: p50 ${ms(s.p50)} · p99 ${ms(s.p99)} · max ${ms(s.max)} ms`;

export interface ScaleReport {
  mode: "scale";
  startedAt: string;
  machine: MachineInfo;
  config: BenchConfig["scale"];
  counts: ScaleCounts;
  seedSeconds: number;
  sizes: Record<"jobs" | "events", TableSize>;
  plans: PlanCheck[];
  listJobs: LatencySummary;
  contextFilters: { customerAll: LatencySummary; customerOneAutomation: LatencySummary; invoiceAll: LatencySummary };
  contextIndex: ContextIndexCost;
  /** The console's Jobs page over the whole history (absent when the browser could not run: the reason is logged). */
  consoleJobsPage?: FirstRows[];
  listEvents: LatencySummary;
  metricsScrape: LatencySummary;
  sweep: { rows: Record<string, number>; seconds: number; rowsPerSecond: number; sizesAfter: Record<"jobs" | "events", TableSize> };
  createToClaim: { withoutSweep: LatencySummary; duringSweep: LatencySummary };
  checks: Array<{ name: string; ok: boolean; detail: string }>;
}

/** GET /jobs's context filters: p50/p99 of each, timed or already summarised. */
export function contextFilterLines(times: Record<keyof ScaleReport["contextFilters"], number[] | LatencySummary>): string[] {
  const of = (value: number[] | LatencySummary) => latency(Array.isArray(value) ? summarize(value) : value);
  return [
    `GET /jobs?context.customer_id=… (1/${HISTORY_CUSTOMERS} of the jobs each), every automation  ${of(times.customerAll)}`,
    `GET /jobs?context.customer_id=…&automation_id=…                       ${of(times.customerOneAutomation)}`,
    `GET /jobs?context[invoice_id]=… (1 job each), every automation       ${of(times.invoiceAll)}`,
  ];
}

export function contextIndexLine(cost: ContextIndexCost): string {
  return (
    `context index (job_context_values + index): ${(cost.bytes / 1e6).toFixed(0)} MB, ${cost.bytesPerJob.toFixed(0)} B/job · ` +
    `job insert ${cost.withIndexUs.toFixed(0)} µs with its trigger, ${cost.withoutIndexUs.toFixed(0)} µs without ` +
    `(inserts/s with ÷ without: ${cost.ratio.toFixed(3)}, median of ${INSERT_COST_ROUNDS} rounds of ${INSERT_COST_JOBS})`
  );
}

export function render(report: ScaleReport): string {
  const size = (s: TableSize) => `${s.rows} rows, ${(s.bytes / 1e6).toFixed(0)} MB, ${s.bytesPerRow.toFixed(0)} B/row`;
  const rowsAndMb = (s: TableSize) => `${s.rows} rows, ${(s.bytes / 1e6).toFixed(0)} MB`;
  return [
    `Automation Hub benchmark (scale) — BENCH_SCALE=${report.config.scale}: ${report.counts.automations} automations, ${report.counts.jobs} jobs, ` +
      `${report.counts.events} events over ${HISTORY_DAYS} days · ${report.machine.cpus} cores, ${(100 * report.machine.busyBeforeStart).toFixed(0)}% busy before the start`,
    ...(busyWarning(report.machine) ? [busyWarning(report.machine)!] : []),
    `seeded in ${report.seedSeconds.toFixed(0)} s · jobs ${size(report.sizes.jobs)} · events ${size(report.sizes.events)} (heap + indexes)`,
    "",
    "plans (EXPLAIN ANALYZE through auto_explain):",
    ...report.plans.map(
      (plan) =>
        `  ${plan.ok ? "✓" : "✗"} ${plan.name}: ${plan.indexes.join(", ") || "no index"}${plan.sequentialScans.length > 0 ? ` · seq scans: ${plan.sequentialScans.join(", ")}` : ""}`,
    ),
    "",
    `GET /jobs?automation_id=…    ${latency(report.listJobs)}`,
    `GET /events?aggregate_id=…   ${latency(report.listEvents)}`,
    ...contextFilterLines({
      customerAll: report.contextFilters.customerAll,
      customerOneAutomation: report.contextFilters.customerOneAutomation,
      invoiceAll: report.contextFilters.invoiceAll,
    }),
    contextIndexLine(report.contextIndex),
    ...(report.consoleJobsPage ?? []).map((figure) => `console: ${firstRowsLine(figure)}`),
    `GET /metrics (uncached)      ${latency(report.metricsScrape)}`,
    "",
    `retention sweep (HUB_RETENTION_DAYS=${RETENTION_DAYS}, one dispatcher, default batches): ${Object.entries(report.sweep.rows)
      .map(([table, rows]) => `${table} ${rows}`)
      .join(", ")} ` + `in ${report.sweep.seconds.toFixed(1)} s = ${report.sweep.rowsPerSecond.toFixed(0)} rows/s`,
    `  after: jobs ${rowsAndMb(report.sweep.sizesAfter.jobs)} · events ${rowsAndMb(report.sweep.sizesAfter.events)} (freed space is reused by new rows, not returned to the disk)`,
    "",
    `create→claim at ${report.config.rate} jobs/s, no sweep      ${latency(report.createToClaim.withoutSweep)}`,
    `create→claim at ${report.config.rate} jobs/s, sweep running ${latency(report.createToClaim.duringSweep)}`,
    "",
    "checks",
    ...report.checks.map((check) => `  ${check.ok ? "✓" : "✗"} ${check.name}: ${check.detail}`),
  ].join("\n");
}
