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
  /** The figure, and how it is shown ("0.11×", "5.2 ms"…). */
  value: number;
  shown: string;
  met: boolean;
}

/** Targets and peers the hub's figures are compared with. */
const HUB_TARGETS = ["hub", "hub-batched", "hub-webhooks"] as const;
const PEERS = ["graphile", "graphile-batched", "pgboss", "pg", "bullmq"] as const satisfies readonly BenchPart[];

/** How each part is titled in the tables. */
const TITLES: Record<BenchPart, string> = {
  hub: "hub",
  "hub-batched": "hub batched",
  "hub-webhooks": "hub + webhooks",
  pg: "pg ceiling",
  graphile: "graphile-worker",
  "graphile-batched": "graphile-worker batched",
  pgboss: "pg-boss",
  bullmq: "bullmq (raw)",
};

const measured = (result: TargetResult | undefined): result is TargetResult => result !== undefined && result.skipped === undefined;

/** Machine CPU ms per job of a phase without the load driver (`bench`) and the rest of the machine (`other`). */
export function machineCpuMsPerJob(phase: Pick<PhaseResult, "cpuMsPerJob">): number {
  return Object.entries(phase.cpuMsPerJob)
    .filter(([name]) => name !== "bench" && name !== "other")
    .reduce((sum, [, ms]) => sum + ms, 0);
}

/** The benchmark's targets (figures, never test assertions). */
export function checkTargets(results: E2eReport["results"]): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const ms = (value: number) => `${formatNumber(value)} ms`;
  const times = (value: number) => `${value.toFixed(2)}×`;
  const add = (target: string, value: number | null | undefined, shown: (value: number) => string, met: (value: number) => boolean) => {
    if (usable(value ?? undefined)) checks.push({ target, value: value!, shown: shown(value!), met: met(value!) });
  };
  const { hub, graphile, pgboss } = results;
  const batched = results["hub-batched"];
  if (measured(hub)) {
    if (measured(graphile))
      add("one job per request: peak throughput ≥ 0.3× graphile-worker plain", hub.peak.throughput / graphile.peak.throughput, times, (v) => v >= 0.3);
    add("one job per request: machine CPU per job at peak, driver excluded ≤ 6 ms", machineCpuMsPerJob(hub.peak), ms, (v) => v <= 6);
    add("one job per request: PostgreSQL transactions per job ≤ 4", hub.costs?.transactionsPerJob, formatNumber, (v) => v <= 4);
    add("one job per request: Redis commands per job ≤ 10", hub.costs?.redisCommandsPerJob, formatNumber, (v) => v <= 10);
    add(
      "one job per request: no empty claims (claims answered 204 per job; a lower bound: empty claim transactions inside a long-poll are not seen)",
      hub.costs?.emptyClaimsPerJob,
      formatNumber,
      (v) => v < 0.01,
    );
    const claim = hub.paced?.createToClaimMs;
    add("at half of peak: create→claim p50 < 10 ms", claim?.p50, ms, (v) => v < 10);
    add("at half of peak: create→claim p99 < 50 ms", claim?.p99, ms, (v) => v < 50);
    add("at half of peak: POST /jobs p99 < 25 ms", hub.paced?.createMs.p99, ms, (v) => v < 25);
    add("at half of peak: relay lag p99 < 50 ms", hub.paced?.relayLagMs?.p99, ms, (v) => v < 50);
    add(
      "API peak RSS under load < 200 MiB",
      hub.peakRssMiB?.api,
      (v) => `${v.toFixed(0)} MiB`,
      (v) => v < 200,
    );
  }
  const withWebhooks = results["hub-webhooks"];
  if (measured(hub) && measured(withWebhooks)) {
    add(
      `with a * webhook subscription to a local sink: peak throughput within 10 % of the hub without it (${formatNumber(withWebhooks.peak.throughput)} vs ${formatNumber(hub.peak.throughput)} jobs/s)`,
      withWebhooks.peak.throughput / hub.peak.throughput,
      times,
      (v) => v >= 0.9,
    );
  }
  if (measured(batched)) {
    if (measured(graphile))
      add("batched: peak throughput ≥ 1.0× graphile-worker plain", batched.peak.throughput / graphile.peak.throughput, times, (v) => v >= 1);
    if (measured(pgboss)) add("batched (stretch): peak throughput ≥ 1.0× pg-boss", batched.peak.throughput / pgboss.peak.throughput, times, (v) => v >= 1);
    add(
      "batched: API peak RSS under load < 200 MiB",
      batched.peakRssMiB?.api,
      (v) => `${v.toFixed(0)} MiB`,
      (v) => v < 200,
    );
  }
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
  /** hub figure ÷ peer figure, per hub mode and peer. */
  ratios: Partial<Record<(typeof HUB_TARGETS)[number], Partial<Record<BenchPart, Record<string, number>>>>>;
  targets: TargetCheck[];
  auditPassed: boolean;
}

/** The figures that get a column (and a ratio), by phase. */
const FIGURES: { label: string; pick: (phase: PhaseResult) => number | undefined }[] = [
  { label: "jobs/s", pick: (phase) => phase.throughput },
  { label: "wall jobs/s", pick: (phase) => phase.wallThroughput },
  { label: "c→claim p50", pick: (phase) => phase.createToClaimMs.p50 },
  { label: "p95", pick: (phase) => phase.createToClaimMs.p95 },
  { label: "p99", pick: (phase) => phase.createToClaimMs.p99 },
  { label: "create p50", pick: (phase) => phase.createMs.p50 },
  { label: "p99", pick: (phase) => phase.createMs.p99 },
  { label: "complete p50", pick: (phase) => phase.completeMs.p50 },
  { label: "p99", pick: (phase) => phase.completeMs.p99 },
  { label: "relay lag p50", pick: (phase) => phase.relayLagMs?.p50 },
  { label: "p99", pick: (phase) => phase.relayLagMs?.p99 },
];

const usable = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value);

export function computeRatios(results: E2eReport["results"]): E2eReport["ratios"] {
  const ratios: E2eReport["ratios"] = {};
  for (const hubName of HUB_TARGETS) {
    const hub = results[hubName];
    if (!measured(hub)) continue;
    const perPeer: Partial<Record<BenchPart, Record<string, number>>> = {};
    for (const peer of PEERS) {
      const other = results[peer];
      if (!measured(other)) continue;
      const row: Record<string, number> = {};
      for (const phase of ["peak", "paced"] as const) {
        const mine = hub[phase];
        const theirs = other[phase];
        if (!mine || !theirs) continue;
        for (const [index, figure] of FIGURES.entries()) {
          const a = figure.pick(mine);
          const b = figure.pick(theirs);
          if (usable(a) && usable(b) && b > 0) row[`${phase}: ${FIGURES_LONG[index]}`] = a / b;
        }
      }
      perPeer[peer] = row;
    }
    ratios[hubName] = perPeer;
  }
  return ratios;
}

/** Full names of FIGURES, for the JSON's ratio keys. */
const FIGURES_LONG = [
  "throughput (steady state), jobs/s",
  "throughput (first create to last completion), jobs/s",
  "create→claim p50, ms",
  "create→claim p95, ms",
  "create→claim p99, ms",
  "create p50, ms",
  "create p99, ms",
  "complete p50, ms",
  "complete p99, ms",
  "relay lag p50, ms",
  "relay lag p99, ms",
];

export function formatNumber(value: number | undefined): string {
  if (!usable(value)) return "–";
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function formatRatio(a: number | undefined, b: number | undefined): string {
  return usable(a) && usable(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "–";
}

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ")).join("\n");
}

export function auditLines(name: string, audit: readonly AuditCheck[]): string[] {
  const failed = audit.filter((check) => !check.ok);
  if (failed.length === 0) return [`  ${name}: all ${audit.length} checks passed`];
  return [`  ${name}: ${failed.length} of ${audit.length} checks FAILED`, ...failed.map((check) => `    ✗ ${check.name}: ${check.detail}`)];
}

/** The CPU columns, in this order; any other label a phase has comes after them. */
export const CPU_COLUMNS = ["api", "dispatcher", "relay", "postgres", "pg-shared", "redis", "bench", "other"];

export function renderE2e(report: E2eReport): string {
  const entries = (Object.entries(report.results) as [BenchPart, TargetResult][]).filter(([, result]) => result !== undefined);
  const ran = entries.filter(([, result]) => measured(result));
  const lines: string[] = [];
  const { config, machine } = report;
  lines.push(
    `Automation Hub benchmark (e2e) — N=${config.jobs} C=${config.creators} A=${config.automations} limits ${config.limits.join(",")} ` +
      `batch ${config.batchSize} · ${machine.cpus} cores, ${(100 * machine.busyBeforeStart).toFixed(0)}% busy before the start`,
  );
  const warning = busyWarning(machine);
  if (warning) lines.push(warning);
  for (const [name, result] of entries) if (result.skipped) lines.push(`${TITLES[name]}: ${result.skipped}`);

  for (const phase of ["peak", "paced"] as const) {
    const rows = ran.filter(([, result]) => result[phase]);
    if (rows.length === 0) continue;
    const heading =
      phase === "peak"
        ? `peak: ${config.jobs} jobs from ${config.creators} clients as fast as answered (ms)`
        : `latency phase: ${config.latencyJobs} jobs paced at ${formatNumber(report.pacedRate ?? undefined)} jobs/s (ms)`;
    lines.push(
      "",
      table([
        [heading, ...FIGURES.map((figure) => figure.label)],
        ...rows.map(([name, result]) => [`  ${TITLES[name]}`, ...FIGURES.map((figure) => formatNumber(figure.pick(result[phase]!)))]),
      ]),
    );
  }

  const hubs = HUB_TARGETS.filter((name) => measured(report.results[name]));
  const peers = PEERS.filter((name) => measured(report.results[name]));
  if (hubs.length > 0 && peers.length > 0) {
    lines.push("", "hub ÷ peer, same run (steady-state peak throughput; create→claim p50 at half of peak where both have one)");
    const ratioRows: string[][] = [["", ...peers.map((peer) => TITLES[peer])]];
    for (const hubName of hubs) {
      const hub = report.results[hubName]!;
      ratioRows.push([`  ${TITLES[hubName]}`, ...peers.map((peer) => formatRatio(hub.peak.throughput, report.results[peer]!.peak.throughput))]);
      if (hub.paced) {
        ratioRows.push([
          `    c→claim p50`,
          ...peers.map((peer) => {
            const theirs = report.results[peer]!.paced;
            return theirs ? formatRatio(hub.paced!.createToClaimMs.p50, theirs.createToClaimMs.p50) : "–";
          }),
        ]);
      }
    }
    lines.push(table(ratioRows));
  }

  if (ran.length > 0) {
    lines.push(
      "",
      "CPU ms per job (/proc; postgres: the target's own backends; pg-shared: PostgreSQL's server processes; redis: the run's redis-server;",
      "the driver is 'bench', with graphile-worker's, pg-boss's and bullmq's in-process workers; Σ: all but bench and other)",
    );
    const labels = [...new Set([...CPU_COLUMNS, ...ran.flatMap(([, result]) => Object.keys(result.peak.cpuMsPerJob))])].filter((label) =>
      ran.some(([, result]) => label in result.peak.cpuMsPerJob || (result.paced !== null && label in result.paced.cpuMsPerJob)),
    );
    const cpuRows: string[][] = [["", ...labels, "Σ"]];
    for (const [name, result] of ran) {
      for (const phase of [result.peak, result.paced]) {
        if (!phase) continue;
        cpuRows.push([
          `  ${TITLES[name]} ${phase.kind}`,
          ...labels.map((label) => formatNumber(phase.cpuMsPerJob[label])),
          formatNumber(machineCpuMsPerJob(phase)),
        ]);
      }
    }
    lines.push(table(cpuRows));
    for (const [name, result] of ran) {
      for (const phase of [result.peak, result.paced]) {
        if (!phase?.redisCommandsPerJob) continue;
        const commands = Object.entries(phase.redisCommandsPerJob);
        const total = commands.reduce((sum, [, calls]) => sum + calls, 0);
        const top = commands.slice(0, 8).map(([command, calls]) => `${command} ${formatNumber(calls)}`);
        lines.push(`  ${TITLES[name]} ${phase.kind}: Redis commands per job ${formatNumber(total)} (${top.join(", ")})`);
      }
    }
    for (const [name, result] of ran) {
      if (!result.idleCpuPercent) continue;
      const idle = Object.entries(result.idleCpuPercent).map(([processName, percent]) => `${processName} ${percent.toFixed(0)}%`);
      lines.push(`  ${TITLES[name]} idle: ${idle.join(", ")} (% of a core, before the phases: polling, sweeps, long-polls)`);
    }

    const statementsKnown = ran.some(([, result]) => result.costs?.statementsPerJob !== null && result.costs?.statementsPerJob !== undefined);
    lines.push(
      "",
      "per job over the whole run (idle window, both phases, drain): PostgreSQL transactions of the target's database (rolled back),",
      `statements (pg_stat_statements${statementsKnown ? "" : ": n/a, the server does not preload it"}), Redis commands (server-wide INFO commandstats,`,
      "Lua-internal included), claim requests and those answered 204",
    );
    const costRows: string[][] = [["", "xacts", "(rolled back)", "statements", "(top-level)", "redis cmds", "claims", "204s", "top redis commands"]];
    for (const [name, result] of ran) {
      const costs = result.costs;
      if (!costs) continue;
      costRows.push([
        `  ${TITLES[name]}`,
        formatNumber(costs.transactionsPerJob),
        formatNumber(costs.rolledBackPerJob),
        costs.statementsPerJob === null ? "n/a" : formatNumber(costs.statementsPerJob),
        costs.topLevelStatementsPerJob == null ? "n/a" : formatNumber(costs.topLevelStatementsPerJob),
        costs.redisCommandsPerJob === null ? "–" : formatNumber(costs.redisCommandsPerJob),
        formatNumber(costs.claimsPerJob),
        formatNumber(costs.emptyClaimsPerJob),
        Object.entries(costs.redisTopCommands)
          .map(([command, calls]) => `${command} ${formatNumber(calls)}`)
          .join(", "),
      ]);
    }
    lines.push(table(costRows));
    for (const name of hubs) {
      const frequent = report.results[name]?.costs?.statementsByCalls?.slice(0, 10) ?? [];
      if (frequent.length === 0) continue;
      lines.push(`  ${TITLES[name]}: most frequent statements per job (calls, ms; * = inside a function or trigger)`);
      for (const statement of frequent) {
        lines.push(
          `    ${formatNumber(statement.callsPerJob).padStart(6)} ${formatNumber(statement.msPerJob).padStart(6)} ${statement.toplevel ? " " : "*"} ${statement.query.slice(0, 110)}`,
        );
      }
    }
  }

  for (const name of hubs) {
    const hub = report.results[name]!;
    const rss = hub.peakRssMiB
      ? Object.entries(hub.peakRssMiB)
          .map(([app, mib]) => `${app} ${mib.toFixed(0)}`)
          .join(", ")
      : "–";
    lines.push("", `${TITLES[name]} processes: peak RSS (VmHWM) MiB ${rss}; heartbeats sent ${hub.peak.heartbeats + (hub.paced?.heartbeats ?? 0)}`);
  }
  if (report.targets.length > 0) {
    lines.push("", "targets of issues 9 and 12 (figures, not assertions)");
    for (const target of report.targets) lines.push(`  ${target.met ? "✓" : "✗"} ${target.target}: ${target.shown}`);
  }
  lines.push("", "audit");
  for (const [name, result] of entries) {
    if (result.skipped) lines.push(`  ${TITLES[name]}: skipped`);
    else lines.push(...auditLines(TITLES[name], result.audit));
  }
  return lines.join("\n");
}

/** Writes `report` to bench/results/<mode>-<timestamp>.json and returns the path. */
export function writeReport(resultsDir: string, mode: string, report: object, startedAt: Date): string {
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(
    resultsDir,
    `${mode}-${startedAt
      .toISOString()
      .replaceAll(":", "-")
      .replace(/\.\d+Z$/, "Z")}.json`,
  );
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
