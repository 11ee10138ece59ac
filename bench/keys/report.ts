/** The keys mode's report: the figures of its two runs (written as JSON) and the tables it prints. */
import type { KeysConfig } from "../lib/config";
import { formatNumber, formatRatio, table } from "../lib/report";

/** The hub's processes and servers, whose CPU per job is the cost figure. */
export const HUB_CPU_LABELS = ["api", "dispatcher", "relay", "postgres", "redis"] as const;

export type KeysRunName = "plain" | "keys";

export interface KeysRun {
  name: KeysRunName;
  /** The rounds' spacing, ms. */
  roundMs: number;
  jobs: number;
  /** The whole run: the first create request to the workers' stop. */
  seconds: number;
  jobsPerSecond: number;
  /** The backlog's jobs still queued when the last small customer's job completed, cancelled then. */
  cancelled: number;
  /** From the first small customer's job created to the last one completed. */
  windowSeconds: number;
  /** Jobs completed (any customer) in that window ÷ its length. */
  windowJobsPerSecond: number;
  /** The small customers' jobs ÷ the window's length: their arrival rate, when the hub keeps up. */
  smallJobsPerSecond: number;
  /** The small customers' jobs created while the backlog still had queued jobs (before its last job started). */
  smallDuringBacklog: number;
  /** Their waits (started_at − available_at), in seconds; NaN when none arrived while the backlog was queued. */
  smallDuringBacklogWaitP50: number;
  smallDuringBacklogWaitP99: number;
  /** Every small customer's job's wait, in seconds. */
  smallWaitP50: number;
  smallWaitP99: number;
  bigWaitP99: number;
  /** CPU ms per job of the hub (HUB_CPU_LABELS) over the arrivals window (÷ the jobs completed in it), and by process. */
  cpuMsPerJob: number;
  cpuMsPerJobBy: Record<string, number>;
  /** The statements PostgreSQL spent the drain phase on, most time first, per job completed in it (empty without pg_stat_statements). */
  statements: Array<{ query: string; callsPerJob: number; msPerJob: number }>;
  /**
   * The drain phase, after the arrivals (target: "jobs/s ≥ 0.8× plain"): the backlog again and every other value's
   * BENCH_KEYS_SMALL jobs, all queued before the workers start, drained until the small customers' last job completes:
   * jobs completed in that time ÷ its length, and the hub's CPU ms per job over it. Every claim finds full batches
   * here, so the figure is what the claim costs at saturation, keyed or not.
   */
  drainJobs: number;
  drainSeconds: number;
  drainJobsPerSecond: number;
  drainCpuMsPerJob: number;
  drainCpuMsPerJobBy: Record<string, number>;
  /** Every small customer's job completed, every claimed job exactly once, the rest of the backlog cancelled unstarted. */
  allCompleted: boolean;
}

export interface KeysReport {
  mode: "keys";
  startedAt: string;
  config: KeysConfig;
  runs: KeysRun[];
  /** keys ÷ plain: jobs/s over the arrivals window; jobs per hub CPU second (plain's CPU per job ÷ keys'), target "≥ 0.8× plain". */
  windowThroughputRatio: number;
  cpuThroughputRatio: number;
  /** keys ÷ plain: jobs/s of the drain phase. */
  drainThroughputRatio: number;
  passed: boolean;
}

/** Prints the two runs side by side, keys ÷ plain, and where PostgreSQL's time went; `roundMs` is the rounds' spacing used. */
export function printKeysReport(report: KeysReport, roundMs: number | null): void {
  const { runs, config: sizes } = report;
  const [plain, keys] = runs as [KeysRun, KeysRun];
  console.log(
    table([
      [
        "run",
        "jobs",
        "small jobs arriving while the backlog was queued",
        "their wait p50 / p99 (s)",
        "every small job's wait p50 / p99 (s)",
        "big key's wait p99 (s)",
        "jobs/s in the arrivals window (small only)",
        "hub CPU ms per job",
        "backlog cancelled at the end",
        "all completed once",
      ],
      ...runs.map((run) => [
        run.name,
        String(run.jobs),
        String(run.smallDuringBacklog),
        `${formatNumber(run.smallDuringBacklogWaitP50)} / ${formatNumber(run.smallDuringBacklogWaitP99)}`,
        `${formatNumber(run.smallWaitP50)} / ${formatNumber(run.smallWaitP99)}`,
        formatNumber(run.bigWaitP99),
        `${formatNumber(run.windowJobsPerSecond)} (${formatNumber(run.smallJobsPerSecond)})`,
        `${formatNumber(run.cpuMsPerJob)} (${HUB_CPU_LABELS.map((label) => `${label} ${formatNumber(run.cpuMsPerJobBy[label])}`).join(", ")})`,
        String(run.cancelled),
        run.allCompleted ? "yes" : "NO",
      ]),
    ]),
  );
  console.log(`rounds every ${roundMs} ms: ${formatNumber(((sizes.values - 1) * 1000) / (roundMs ?? 1))} small jobs/s offered`);
  console.log(
    `keys ÷ plain (same run): jobs/s in the arrivals window ${formatRatio(keys.windowJobsPerSecond, plain.windowJobsPerSecond)} ` +
      `(the keyed run holds the backlog to ${sizes.perKeyLimit} at a time, as its limit says); ` +
      `jobs per hub CPU second ${formatRatio(plain.cpuMsPerJob, keys.cpuMsPerJob)} (below capacity the keyed claims are small by design; the throughput target is the drain's, below)`,
  );
  console.log(
    `\ndrain (the backlog and ${sizes.smallJobs} jobs of every other value queued first, until the last small customer's job completed):\n` +
      table([
        ["run", "jobs completed", "seconds", "jobs/s", "hub CPU ms per job"],
        ...runs.map((run) => [
          run.name,
          String(run.drainJobs),
          formatNumber(run.drainSeconds),
          formatNumber(run.drainJobsPerSecond),
          `${formatNumber(run.drainCpuMsPerJob)} (${HUB_CPU_LABELS.map((label) => `${label} ${formatNumber(run.drainCpuMsPerJobBy[label])}`).join(", ")})`,
        ]),
      ]),
  );
  console.log(`keys ÷ plain (same run), drain: jobs/s ${formatRatio(keys.drainJobsPerSecond, plain.drainJobsPerSecond)} (issue 27's target ≥ 0.8×)`);
  for (const run of runs) {
    if (run.statements.length === 0) continue;
    console.log(
      `\nwhere PostgreSQL's time went, ${run.name} run (pg_stat_statements over the drain, per job completed in it; a function's statements inside its call):`,
    );
    console.log(
      table([
        ["ms / job", "calls / job", "statement"],
        ...run.statements.map((statement) => [statement.msPerJob.toFixed(3), statement.callsPerJob.toFixed(2), statement.query]),
      ]),
    );
  }
}
