/**
 * Results: one JSON file per run in bench/results/ and a short table on stdout. Every hub figure
 * is also given as a ratio to the same figure of each baseline measured in the same run: the
 * ratios, not the absolute times, are what compare across runs and machines.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { AuditCheck } from "./audit";
import type { BenchConfig, BenchPart } from "./config";
import type { PhaseResult, TargetResult } from "./drive";

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  node: string;
  /** 1-minute load average when the run started (it lags: a run just finished still shows). */
  loadAverageAtStart: number;
  /** Share of all cores busy during the second before the run started: other work on the machine. */
  busyBeforeStart: number;
}

/** Busy and total jiffies of all cores (/proc/stat's first line). */
function cpuJiffies(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

export async function describeMachine(): Promise<MachineInfo> {
  const before = cpuJiffies();
  await sleep(1000);
  const after = cpuJiffies();
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    node: process.version,
    loadAverageAtStart: loadavg()[0]!,
    busyBeforeStart: (after.busy - before.busy) / Math.max(1, after.total - before.total),
  };
}

/** The warning line when something else was using the machine as the run started. */
export function busyWarning(machine: MachineInfo): string | undefined {
  if (machine.busyBeforeStart <= 0.2) return undefined;
  return `WARNING: ${(100 * machine.busyBeforeStart).toFixed(0)}% of the CPU was busy with other work as the run started: figures are unreliable, re-run on a quiet machine`;
}

export interface TargetCheck {
  target: string;
  value: number;
  met: boolean;
}

/** The issue's targets (benchmark figures, never test assertions). */
export function checkTargets(hub: TargetResult): TargetCheck[] {
  const checks: TargetCheck[] = [{ target: "end-to-end throughput ≥ 500 jobs/s", value: hub.peak.throughput, met: hub.peak.throughput >= 500 }];
  if (hub.paced) {
    const claim = hub.paced.createToClaimMs;
    checks.push(
      { target: "create→claim p50 < 10 ms at half of peak load", value: claim.p50, met: claim.p50 < 10 },
      { target: "create→claim p99 < 50 ms at half of peak load", value: claim.p99, met: claim.p99 < 50 },
    );
  }
  const lag = hub.peak.relayLagMs;
  if (lag) checks.push({ target: "relay lag p99 < 100 ms (at peak load)", value: lag.p99, met: lag.p99 < 100 });
  const pacedLag = hub.paced?.relayLagMs;
  if (pacedLag) checks.push({ target: "relay lag p99 < 100 ms (at half of peak load)", value: pacedLag.p99, met: pacedLag.p99 < 100 });
  return checks;
}

export interface E2eReport {
  mode: "e2e";
  startedAt: string;
  machine: MachineInfo;
  config: Omit<BenchConfig, "databaseServerUrl" | "redisUrl" | "resultsDir">;
  /** Jobs/s of every latency phase. */
  pacedRate: number | null;
  results: Partial<Record<BenchPart, TargetResult>>;
  /** hub figure ÷ baseline figure, per baseline. */
  ratios: Partial<Record<"pg" | "bullmq", Record<string, number>>>;
  targets: TargetCheck[];
  auditPassed: boolean;
}

/** The figures that get a row (and a ratio), by phase. */
const FIGURES: { label: string; pick: (phase: PhaseResult) => number | undefined }[] = [
  { label: "throughput, jobs/s", pick: (phase) => phase.throughput },
  { label: "create→claim p50, ms", pick: (phase) => phase.createToClaimMs.p50 },
  { label: "create→claim p95, ms", pick: (phase) => phase.createToClaimMs.p95 },
  { label: "create→claim p99, ms", pick: (phase) => phase.createToClaimMs.p99 },
  { label: "create (POST /jobs) p50, ms", pick: (phase) => phase.createMs.p50 },
  { label: "create (POST /jobs) p99, ms", pick: (phase) => phase.createMs.p99 },
  { label: "complete p50, ms", pick: (phase) => phase.completeMs.p50 },
  { label: "complete p99, ms", pick: (phase) => phase.completeMs.p99 },
  { label: "relay lag p50, ms", pick: (phase) => phase.relayLagMs?.p50 },
  { label: "relay lag p99, ms", pick: (phase) => phase.relayLagMs?.p99 },
];

const usable = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value);

export function computeRatios(results: E2eReport["results"]): E2eReport["ratios"] {
  const ratios: E2eReport["ratios"] = {};
  const hub = results.hub;
  if (!hub) return ratios;
  for (const baseline of ["pg", "bullmq"] as const) {
    const other = results[baseline];
    if (!other) continue;
    const row: Record<string, number> = {};
    for (const phase of ["peak", "paced"] as const) {
      const mine = hub[phase];
      const theirs = other[phase];
      if (!mine || !theirs) continue;
      for (const figure of FIGURES) {
        const a = figure.pick(mine);
        const b = figure.pick(theirs);
        if (usable(a) && usable(b) && b > 0) row[`${phase}: ${figure.label}`] = a / b;
      }
    }
    ratios[baseline] = row;
  }
  return ratios;
}

function formatNumber(value: number | undefined): string {
  if (!usable(value)) return "–";
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function formatRatio(a: number | undefined, b: number | undefined): string {
  return usable(a) && usable(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "–";
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ")).join("\n");
}

function auditLines(name: string, audit: readonly AuditCheck[]): string[] {
  const failed = audit.filter((check) => !check.ok);
  if (failed.length === 0) return [`  ${name}: all ${audit.length} checks passed`];
  return [`  ${name}: ${failed.length} of ${audit.length} checks FAILED`, ...failed.map((check) => `    ✗ ${check.name}: ${check.detail}`)];
}

export function renderE2e(report: E2eReport): string {
  const { results } = report;
  const columns: { title: string; result: TargetResult | undefined; ratioTo?: TargetResult | undefined }[] = [
    { title: "hub", result: results.hub },
    { title: "pg ceiling", result: results.pg },
    { title: "hub÷pg", result: results.hub, ratioTo: results.pg },
    { title: "bullmq", result: results.bullmq },
    { title: "hub÷bullmq", result: results.hub, ratioTo: results.bullmq },
  ].filter((column) => column.result && (!("ratioTo" in column) || column.ratioTo));
  const lines: string[] = [];
  const { config, machine } = report;
  lines.push(
    `Automation Hub benchmark (e2e) — N=${config.jobs} C=${config.creators} A=${config.automations} limits ${config.limits.join(",")} ` +
      `· ${machine.cpus} cores, ${(100 * machine.busyBeforeStart).toFixed(0)}% busy before the start`,
  );
  const warning = busyWarning(machine);
  if (warning) lines.push(warning);
  for (const phase of ["peak", "paced"] as const) {
    const heading =
      phase === "peak"
        ? `peak: ${config.jobs} jobs from ${config.creators} clients as fast as answered`
        : `latency phase: ${config.latencyJobs} jobs paced at ${formatNumber(report.pacedRate ?? undefined)} jobs/s`;
    if (!columns.some((column) => column.result?.[phase])) continue;
    const rows: string[][] = [[heading, ...columns.map((column) => column.title)]];
    for (const figure of FIGURES) {
      rows.push([
        `  ${figure.label}`,
        ...columns.map((column) => {
          const mine = column.result?.[phase];
          const value = mine ? figure.pick(mine) : undefined;
          if (!column.ratioTo) return formatNumber(value);
          const theirs = column.ratioTo[phase];
          return formatRatio(value, theirs ? figure.pick(theirs) : undefined);
        }),
      ]);
    }
    lines.push("", table(rows));
  }
  const hub = results.hub;
  if (hub) {
    lines.push("", "hub processes");
    if (hub.peakRssMiB) {
      lines.push(`  peak RSS, MiB: ${Object.entries(hub.peakRssMiB).map(([name, mib]) => `${name} ${mib.toFixed(0)}`).join(", ")}`);
    }
    lines.push(`  heartbeats sent: ${hub.peak.heartbeats + (hub.paced?.heartbeats ?? 0)}`);
    lines.push("", "targets (figures, not assertions)");
    for (const target of report.targets) lines.push(`  ${target.met ? "✓" : "✗"} ${target.target}: ${formatNumber(target.value)}`);
  }
  const perJob = columns.filter((column) => !column.ratioTo && usable(column.result?.transactionsPerJob));
  if (perJob.length > 0) {
    lines.push("", `PostgreSQL transactions per job (everything: empty claims, relay polls): ${perJob.map((column) => `${column.title} ${formatNumber(column.result!.transactionsPerJob)}`).join(", ")}`);
  }
  lines.push("", "CPU ms per job (the benchmark's driver is 'bench'; postgres and redis: all their processes; other: the rest of the machine)");
  for (const [name, result] of Object.entries(results)) {
    for (const phase of [result?.peak, result?.paced]) {
      if (!phase) continue;
      const cpu = Object.entries(phase.cpuMsPerJob).map(([processName, ms]) => `${processName} ${ms.toFixed(2)}`);
      lines.push(`  ${name.padEnd(6)} ${phase.kind.padEnd(5)}: ${cpu.join(", ")}`);
    }
  }
  for (const [name, result] of Object.entries(results)) {
    if (!result?.idleCpuPercent) continue;
    const idle = Object.entries(result.idleCpuPercent).map(([processName, percent]) => `${processName} ${percent.toFixed(0)}%`);
    lines.push(`  ${name.padEnd(6)} idle : ${idle.join(", ")} (% of a core, before the phases: polling, sweeps, long-polls)`);
  }
  lines.push("", "audit");
  for (const [name, result] of Object.entries(results)) if (result) lines.push(...auditLines(name, result.audit));
  return lines.join("\n");
}

/** Writes `report` to bench/results/<mode>-<timestamp>.json and returns the path. */
export function writeReport(resultsDir: string, mode: string, report: object, startedAt: Date): string {
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${mode}-${startedAt.toISOString().replaceAll(":", "-").replace(/\.\d+Z$/, "Z")}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
