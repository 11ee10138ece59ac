/**
 * `pnpm bench logs` (CONTRACT §6.12): what job logs and live control cost and how fast
 * they are, on fresh hubs run as processes, with worker-SDK workers in this driver:
 *
 * 1. peak jobs/s with BENCH_LOGS_LINES (20) lines per job written through `job.log`, against the
 *    same workers and automations without logs, before and after it (same-run ratio; target ≥ 0.85×);
 * 2. at half of that peak, accepted-to-shown of lines on `GET /jobs/{id}/logs/stream` (target p99 < 1 s);
 * 3. cancel-to-signal of 1,000 running jobs over 50 workers holding `GET /workers/me/signals`,
 *    cancelled singly and in bulk (target p99 < 1 s), and the API's RSS per open signals stream.
 *
 * How it works and how to read it: bench/MODES.md, "The logs mode".
 */
import { randomBytes } from "node:crypto";
import type { AuditCheck } from "../lib/audit";
import type { BenchConfig } from "../lib/config";
import { auditLines, busyWarning, describeMachine, formatNumber, machineCpuMsPerJob, table, writeReport, type MachineInfo } from "../lib/report";
import type { LatencySummary } from "../lib/stats";
import { runCancelLatency, type CancelRun } from "./cancel";
import { runLogsThroughput, type LogsThroughputRun } from "./throughput";

export interface LogsReport {
  mode: "logs";
  startedAt: string;
  machine: MachineInfo;
  config: BenchConfig["logs"] & { automations: number; limits: number[]; creators: number; loadFraction: number };
  throughput: LogsThroughputRun;
  cancel: CancelRun;
  auditPassed: boolean;
}

const THROUGHPUT_TARGET = 0.85;
const LATENCY_TARGET_MS = 1000;

const check = (ok: boolean) => (ok ? "✓" : "✗");
const latencyRow = (name: string, figures: LatencySummary) => [
  name,
  String(figures.count),
  formatNumber(figures.p50),
  formatNumber(figures.p99),
  formatNumber(figures.max),
];

export function renderLogs(report: LogsReport): string {
  const { throughput, cancel } = report;
  const lines: string[] = [
    `logs mode — ${report.machine.cpus} × ${report.machine.cpuModel}, node ${report.machine.node}, load average ${report.machine.loadAverageAtStart.toFixed(2)} at start`,
  ];
  const warning = busyWarning(report.machine);
  if (warning) lines.push(warning);
  lines.push(
    "",
    `Peak jobs/s, ${report.config.automations} automations (limits ${report.config.limits.join(", ")}), one worker-SDK worker each, ${report.config.creators} creating clients:`,
    table([
      ["phase", "log lines/job", "jobs", "jobs/s", "wall jobs/s", "create→claim p50 ms", "api CPU ms/job", "postgres CPU ms/job", "machine CPU ms/job"],
      ...throughput.phases.map((phase) => [
        phase.name,
        String(phase.linesPerJob),
        String(phase.created),
        formatNumber(phase.throughput),
        formatNumber(phase.wallThroughput),
        formatNumber(phase.createToClaimMs.p50),
        formatNumber(phase.cpuMsPerJob.api),
        formatNumber((phase.cpuMsPerJob.postgres ?? 0) + (phase.cpuMsPerJob["pg-shared"] ?? 0)),
        formatNumber(machineCpuMsPerJob(phase)),
      ]),
    ]),
    `with ${report.config.linesPerJob} log lines per job ÷ without (mean of both runs without): ${throughput.throughputRatio.toFixed(2)}× (target ≥ ${THROUGHPUT_TARGET}×) ${check(throughput.throughputRatio >= THROUGHPUT_TARGET)}`,
    `log lines stored ${throughput.storedLogLines} of ${throughput.expectedLogLines}, dropped by the workers ${throughput.droppedLogLines}`,
    "",
    `Log stream, accepted (POST /jobs/{id}/logs answered) → shown (line read from GET /jobs/{id}/logs/stream), at ${formatNumber(throughput.halfLoadRate)} jobs/s (half load), ${throughput.follow.followedJobs} jobs followed:`,
    table([["lines", "count", "p50 ms", "p99 ms", "max ms"], latencyRow("accepted→shown", throughput.follow.acceptedToShownMs)]),
    `${throughput.follow.arrivedBeforeAnswer} of ${throughput.follow.arrived} lines arrived before their POST's answer was read (counted as 0 ms); p99 < ${LATENCY_TARGET_MS} ms ${check(throughput.follow.acceptedToShownMs.p99 < LATENCY_TARGET_MS)}`,
    "",
    `Cancel → event: cancel at the worker, ${cancel.cancel.running} running jobs over ${cancel.workers} worker-SDK workers holding GET /workers/me/signals; to the handler's AbortSignal from the cancel's commit as PostgreSQL polls saw it (upper bound: the last poll that did not yet see it; polls ${formatNumber(cancel.cancel.pollGapMs.p50)} ms apart, at most ${formatNumber(cancel.cancel.pollGapMs.max)}), and for comparison from finished_at (the transaction's start) and from the API's answer (a lower bound); one machine clock:`,
    table([
      ["cancels", "count", "p50 ms", "p99 ms", "max ms"],
      latencyRow("all, from the commit", cancel.cancel.signalMs),
      latencyRow(`single (POST /jobs/{id}/cancel, ${cancel.cancel.single}), from the commit`, cancel.cancel.singleSignalMs),
      latencyRow(`bulk (POST /jobs/bulk-cancel, ${cancel.cancel.bulk}), from the commit`, cancel.cancel.bulkSignalMs),
      latencyRow("single, from finished_at", cancel.cancel.singleFromFinishedAtMs),
      latencyRow("bulk, from finished_at", cancel.cancel.bulkFromFinishedAtMs),
      latencyRow("single, from the API's answer", cancel.cancel.answerToSignalMs),
      latencyRow("bulk, from the API's answer", cancel.cancel.bulkAnswerToSignalMs),
    ]),
    `aborted by the signals stream ${cancel.cancel.bySignal}, otherwise ${cancel.cancel.otherwise}, never ${cancel.cancel.neverAborted}; p99 from the commit < ${LATENCY_TARGET_MS} ms ${check(cancel.cancel.signalMs.p99 < LATENCY_TARGET_MS)}`,
    `the hub's hub_signal_delay_seconds (commit → write on the stream) over the cancels: ${cancel.cancel.hubHistogram.signals} signals, ${cancel.cancel.hubHistogram.withinHalfSecond} within 0.5 s, ${cancel.cancel.hubHistogram.withinOneSecond} within 1 s`,
    "",
    "API resident memory per open signals stream (streams opened by the driver before the workers start):",
    table([
      ["streams", "opened", "RSS before MiB", "RSS open MiB", "KiB per stream"],
      ...cancel.memory.map((row) => [
        String(row.streams),
        String(row.opened),
        formatNumber(row.rssBeforeMiB),
        formatNumber(row.rssAfterMiB),
        formatNumber(row.perStreamKiB),
      ]),
    ]),
    "",
    "Audit:",
    ...auditLines("throughput and log streams", throughput.audit),
    ...auditLines("cancel signals", cancel.audit),
  );
  return lines.join("\n");
}

export async function runLogsMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const machine = await describeMachine();
  const runId = randomBytes(3).toString("hex");
  console.error("bench: logs: peak with and without job logs, then log streams at half load: a fresh hub");
  const throughput = await runLogsThroughput(config, runId);
  console.error("bench: logs: cancel signals and stream memory: a fresh hub");
  const cancel = await runCancelLatency(config, runId);
  const audits: AuditCheck[] = [...throughput.audit, ...cancel.audit];
  const report: LogsReport = {
    mode: "logs",
    startedAt: startedAt.toISOString(),
    machine,
    config: { ...config.logs, automations: config.automations, limits: config.limits, creators: config.creators, loadFraction: config.loadFraction },
    throughput,
    cancel,
    auditPassed: audits.every((item) => item.ok),
  };
  console.log(renderLogs(report));
  const file = writeReport(config.resultsDir, config.smoke ? "logs-smoke" : "logs", report, startedAt);
  console.log(`\nresults: ${file}`);
  return report.auditPassed;
}
