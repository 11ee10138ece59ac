/** The `flows` mode's report: what it writes to bench/results and prints. */
import type { AuditCheck } from "../lib/audit";
import type { FlowsConfig } from "../lib/config";
import { CLAIM_COST_TOLERANCE, FLOW_THROUGHPUT_TARGET, ratioOfMeans } from "../lib/flow-plan";
import { auditLines, busyWarning, formatNumber, table, type MachineInfo } from "../lib/report";
import type { FlowPhase } from "./phases";
import type { ReleaseFigures } from "./release";

export interface FlowsReport {
  mode: "flows";
  startedAt: string;
  machine: MachineInfo;
  config: FlowsConfig & { automations: number; jobsPerBatch: number; slotsOverLimit: number };
  /** Whether the API takes `depends_on`; without, only the plain phases ran. */
  dependencies: boolean;
  phases: FlowPhase[];
  release: ReleaseFigures | null;
  audit: AuditCheck[];
  auditPassed: boolean;
}

const CPU = ["api", "dispatcher", "relay", "postgres", "pg-shared", "redis", "bench", "other"] as const;
const check = (met: boolean) => (met ? "✓" : "✗");

export function renderFlows(report: FlowsReport): string {
  const { config, machine } = report;
  const lines = [
    `Automation Hub benchmark (flows) — ${config.fanouts} fan-outs of ${config.width} with a fan-in each (${config.jobsPerBatch} jobs per POST /jobs/batch) ` +
      `against as many plain batches; ${config.automations} automations × max_concurrent_jobs ${config.limit}, ${1 + config.slotsOverLimit} claim-batch loops each of ` +
      `${config.claimBatch}, ${config.creators} batches in flight · ${machine.cpus} cores, ${(100 * machine.busyBeforeStart).toFixed(0)}% busy before the start`,
  ];
  const warning = busyWarning(machine);
  if (warning) lines.push(warning);
  if (!report.dependencies) lines.push("the API takes no depends_on (a build without flows): only the plain phases ran, their claim figures are today's");
  lines.push(
    "",
    table([
      ["phase", "jobs", "jobs/s", "wall jobs/s", ...CPU, "Σ ms/job", "claims", "claim ms/call", "claim ms/job", "stmts/job"],
      ...report.phases.map((phase) => [
        `  ${phase.name}`,
        String(phase.created),
        formatNumber(phase.throughput),
        formatNumber(phase.wallThroughput),
        ...CPU.map((label) => formatNumber(phase.cpuMsPerJob[label])),
        formatNumber(phase.machineCpuMsPerJob),
        String(phase.claim.calls),
        formatNumber(phase.claim.msPerCall),
        formatNumber(phase.claim.msPerJob),
        formatNumber(phase.topLevelStatementsPerJob),
      ]),
    ]),
    "  CPU columns: ms per job created in the phase (/proc); Σ: the hub's processes, PostgreSQL and Redis (not bench, not other).",
    "  claim: top-level statements calling the claim function (pg_stat_statements, claim-batch of every loop); ms/job: their time ÷ jobs they handed out.",
  );
  const of = (...names: Array<FlowPhase["name"]>) => report.phases.filter((phase) => names.includes(phase.name));
  const plain = of("plain", "plain again");
  const flow = of("flows", "flows again");
  const figures = (phases: FlowPhase[], figure: (phase: FlowPhase) => number) => phases.map((phase) => formatNumber(figure(phase))).join(" and ");
  if (plain.length === 2) {
    lines.push(
      "",
      `  plain phases: ${figures(plain, (phase) => phase.throughput)} jobs/s; claim ${figures(plain, (phase) => phase.claim.msPerJob)} ms per job (their gap is the machine's noise)`,
    );
  }
  if (flow.length > 0 && plain.length > 0) {
    if (flow.length === 2)
      lines.push(`  flows phases: ${figures(flow, (phase) => phase.throughput)} jobs/s; claim ${figures(flow, (phase) => phase.claim.msPerJob)} ms per job`);
    const ratio = (figure: (phase: FlowPhase) => number) => ratioOfMeans(flow.map(figure), plain.map(figure));
    const throughput = ratio((phase) => phase.throughput);
    const claimPerJob = ratio((phase) => phase.claim.msPerJob);
    const claimPerCall = ratio((phase) => phase.claim.msPerCall);
    lines.push(
      "  same-run ratios, the mean of the flows phases to the mean of the plain phases (issue 44's targets; figures, not assertions):",
      `  ${check(throughput >= FLOW_THROUGHPUT_TARGET)} jobs/s, flows ÷ plain: ${throughput.toFixed(2)}× (≥ ${FLOW_THROUGHPUT_TARGET})`,
      `  ${check(claimPerJob <= 1 + CLAIM_COST_TOLERANCE)} claim statement ms per job handed out, flows ÷ plain: ${claimPerJob.toFixed(3)}× (within ${100 * CLAIM_COST_TOLERANCE} %); per call ${claimPerCall.toFixed(3)}×`,
      "  the plain phases' claim figures against today's: the same mode on main (it runs only the plain phases there)",
    );
  }
  for (const phase of report.phases.filter((phase) => phase.name === "plain" || phase.name === "flows")) {
    lines.push(
      "",
      `where PostgreSQL's time went in the ${phase.name} phase (pg_stat_statements; ms per job of the phase; * = inside a function or trigger, so inside its caller's time too):`,
      ...phase.slowest.map(
        (statement) =>
          `  ${String(statement.calls).padStart(6)} calls ${formatNumber(statement.ms / Math.max(1, phase.created)).padStart(6)} ms/job ${formatNumber(statement.ms / statement.calls).padStart(6)} ms/call ${statement.toplevel ? " " : "*"} ${statement.query.slice(0, 100)}`,
      ),
    );
  }
  const release = report.release;
  if (release) {
    lines.push(
      "",
      `releasing ${release.dependents} dependents of one job: the finishing request (complete-batch of that job) took ${formatNumber(release.completeMs)} ms; ` +
        `${release.released} of the ${release.checked} listed show pending_dependencies 0 right after`,
      `  ${check(release.statements.oneStatement)} the release is one statement, not one per dependent: that request ran ${release.statements.calls} statements ` +
        `(${release.statements.topLevelCalls} top-level; nested ones inside functions and triggers counted), the most calls of any one ${
          release.statements.mostCalls ? `${release.statements.mostCalls.calls} (${release.statements.mostCalls.query.slice(0, 80)})` : "–"
        }`,
      "  where its time went (pg_stat_statements over that request; * = inside a function or trigger):",
      ...release.statements.slowest.map(
        (statement) =>
          `    ${String(statement.calls).padStart(4)} calls ${String(statement.rows).padStart(6)} rows ${formatNumber(statement.ms).padStart(7)} ms ${statement.toplevel ? " " : "*"} ${statement.query.slice(0, 100)}`,
      ),
    );
  }
  lines.push(...auditLines("audit", report.audit));
  return lines.join("\n");
}
