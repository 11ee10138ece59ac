/**
 * `pnpm bench keys`: does one customer's backlog delay another customer's jobs? On a
 * fresh hub per run, one automation with `max_concurrent_jobs` 32, run twice on the same arrivals:
 *
 * - "plain": no `concurrency_key` (the small customers' jobs queue behind the backlog);
 * - "keys": `concurrency_key` with `max_concurrent_per_key` 2 (fair sharing across the values).
 *
 * Arrivals: one customer's backlog (20,000 jobs) is created first, as fast as the API takes it; then
 * the 999 other customers each submit one job per round, 20 rounds, while the backlog still drains,
 * at half of what the plain run completes with the backlog alone (or a round every
 * BENCH_KEYS_ROUND_MS), each round sent in chunks of 25 spread over its interval: below capacity
 * and without bursts, so the small jobs do not queue behind each other. Workers
 * `claim-batch` and complete at once throughout. So a small customer's job arrives while the big
 * one has thousands queued, as in production, and its wait says whether the backlog delays it;
 * creating every small job up front instead would make the last of them wait for the 19,979 before
 * it, however fair the order.
 *
 * Then, on the same hub, the drain phase (target: "jobs/s ≥ 0.8× plain"): the backlog again and
 * BENCH_KEYS_SMALL jobs of every other value, all queued before the workers start, drained until the
 * small customers' last job completes. Every claim finds full batches there, so its jobs/s and CPU per
 * job say what the claim costs at saturation, with a key or without; the arrivals window, below
 * capacity, says whether the backlog delays the others (its claims are small by design, so its CPU
 * per job is not a throughput figure).
 *
 * Printed per run: the small customers' wait (started_at − available_at) p50/p99 over their jobs
 * that arrived while the backlog still had jobs queued, and over all of them; jobs/s over the
 * arrivals window (first small job created → last one completed) and the small customers' share of
 * it; the hub's CPU ms per job (API, dispatcher, relay, the run's PostgreSQL backends, Redis) over
 * the whole run; and the same-run ratios keys ÷ plain. Sizes: BENCH_KEYS_* (lib/config.ts);
 * `--smoke` runs a few hundred jobs to prove the mode works (its figures mean nothing).
 */
import pg from "pg";
import type { BenchConfig, KeysConfig } from "../lib/config";
import { enableStatementCounts, snapshotStatements, topStatements } from "../lib/counters";
import { cpuSecondsBetween, snapshotCpu } from "../lib/cpu";
import { databaseName } from "../lib/drive";
import { JsonClient } from "../lib/http";
import { formatNumber, writeReport } from "../lib/report";
import { percentile } from "../lib/stats";
import { onFreshHub } from "../hub";
import { HUB_CPU_LABELS, printKeysReport, type KeysReport, type KeysRun, type KeysRunName } from "./report";

export type { KeysReport, KeysRun } from "./report";

const KEY_PARAMETER = "customer";
const BIG_KEY = "big-customer";
/** Jobs per POST /jobs/batch (its largest, CONTRACT §6.6). */
const CREATE_BATCH = 500;
/** A claim's long-poll: workers wait a little when nothing is claimable, as real ones do. */
const CLAIM_WAIT_SECONDS = 1;
/** The small customers' jobs per POST /jobs/batch: a round is sent in chunks spread over its interval. */
const ARRIVAL_CHUNK = 25;
/** Statements shown per run: where PostgreSQL's time went in the drain (pg_stat_statements, nested included). */
const TOP_STATEMENTS = 8;
/** How long the plain run samples its throughput with the backlog alone, to space the rounds. */
const CAPACITY_SAMPLE_MS = 5000;

interface ClaimedJob {
  id: string;
  context: Record<string, string>;
  available_at: string;
  started_at: string;
}

const isSmall = (job: ClaimedJob) => job.context[KEY_PARAMETER] !== BIG_KEY;

/** One round of the small customers: one job each. */
function smallRound(sizes: KeysConfig): Array<Record<string, string>> {
  return Array.from({ length: sizes.values - 1 }, (_, index) => ({ [KEY_PARAMETER]: `customer-${index + 1}` }));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Cancels the automation's queued jobs (POST /jobs/bulk-cancel, 10,000 at a time): how many. */
async function cancelQueued(http: JsonClient, token: string, automationId: string): Promise<number> {
  let cancelled = 0;
  for (;;) {
    const answer = await http.send<{ matched: number; affected: number }>("POST", "/jobs/bulk-cancel", {
      token,
      body: { automation_id: automationId, status: ["queued"], limit: 10_000 },
      expected: 200,
    });
    cancelled += answer.affected;
    if (answer.matched === 0) return cancelled;
  }
}

/**
 * One run. `roundMs`: the rounds' spacing; null derives it from this run's throughput while only the
 * backlog runs (the plain run's, which the keyed run then reuses).
 */
async function runOnce(config: BenchConfig, name: KeysRunName, roundMs: number | null): Promise<KeysRun> {
  const sizes = config.keys;
  const options = { dispatchers: 1, relays: 1, env: { HUB_JOB_LEASE_SECONDS: "60" } };
  return onFreshHub(config, options, async ({ processes: hub, databaseUrl }) => {
    const http = new JsonClient(hub.apiUrl, sizes.workers + 4);
    try {
      const { access_token: token } = await http.send<{ access_token: string }>("POST", "/identity/token", { body: hub.admin, expected: 200 });
      const sector = await http.send<{ id: string }>("POST", "/sectors", { token, body: { name: "Keys benchmark", color: "#336699" }, expected: 201 });
      const automation = await http.send<{ id: string }>("POST", "/automations", {
        token,
        body: {
          name: `Keys benchmark (${name})`,
          slug: `bench-keys-${name}`,
          sector_id: sector.id,
          parameters: [{ name: KEY_PARAMETER, description: "Whose export" }],
          max_concurrent_jobs: sizes.limit,
          ...(name === "keys" ? { concurrency_key: KEY_PARAMETER, max_concurrent_per_key: sizes.perKeyLimit } : {}),
        },
        expected: 201,
      });
      const worker = await http.send<{ api_key: string }>("POST", `/automations/${automation.id}/worker`, {
        token,
        body: { cloud_instance_id: "bench-keys" },
        expected: 201,
      });
      const workerHeaders = { "x-worker-api-key": worker.api_key };
      const smallTotal = (sizes.values - 1) * sizes.smallJobs;
      const totalJobs = sizes.bigBacklog + smallTotal;
      const claimed: ClaimedJob[] = [];
      /** Completed jobs in completion order, with when (ms) each batch was recorded. */
      const completions: Array<{ at: number; small: boolean }> = [];
      let working = true;
      let smallCompleted = 0;
      let onSmallDone = () => {};
      const smallDone = new Promise<void>((resolve) => (onSmallDone = resolve));
      /** The drain phase's completions, counted apart (see KeysRun.drainJobs). */
      const drainClaimed: ClaimedJob[] = [];
      const drain = { active: false, completed: 0, smallCompleted: 0, smallTotal: 0, lastSmallAt: 0, onSmallDone: () => {} };

      const workerLoop = async () => {
        while (working) {
          const answer = await http.exchange("POST", "/jobs/claim-batch", {
            headers: workerHeaders,
            body: { max_jobs: sizes.claimBatch, wait_seconds: CLAIM_WAIT_SECONDS },
          });
          if (answer.status === 204) continue;
          if (answer.status !== 200) throw new Error(`claim-batch answered ${answer.status}: ${answer.text}`);
          const { jobs } = JSON.parse(answer.text) as { jobs: ClaimedJob[] };
          (drain.active ? drainClaimed : claimed).push(...jobs);
          await http.send("POST", "/jobs/complete-batch", {
            headers: workerHeaders,
            body: { items: jobs.map((job) => ({ id: job.id, result: {} })) },
            expected: 200,
          });
          const at = Date.now();
          if (drain.active) {
            drain.completed += jobs.length;
            drain.smallCompleted += jobs.filter(isSmall).length;
            if (jobs.some(isSmall)) drain.lastSmallAt = at;
            if (drain.smallCompleted === drain.smallTotal) drain.onSmallDone();
            continue;
          }
          for (const job of jobs) completions.push({ at, small: isSmall(job) });
          smallCompleted += jobs.filter(isSmall).length;
          if (smallCompleted === smallTotal) onSmallDone();
        }
      };
      const create = async (contexts: Array<Record<string, string>>) => {
        for (let offset = 0; offset < contexts.length; offset += CREATE_BATCH) {
          const jobs = contexts.slice(offset, offset + CREATE_BATCH).map((context) => ({ automation_id: automation.id, context }));
          await http.send("POST", "/jobs/batch", { token, body: { jobs }, expected: 201 });
        }
      };

      const pids = { api: hub.api.pid, dispatcher: hub.dispatchers[0]?.pid, relay: hub.relays[0]?.pid };
      const startedAt = Date.now();
      let workers = Array.from({ length: sizes.workers }, workerLoop);
      await create(Array.from({ length: sizes.bigBacklog }, () => ({ [KEY_PARAMETER]: BIG_KEY })));
      // As autovacuum does within its naptime (a minute) of the backlog's inserts. Without it the arrivals window
      // would run on a database that was never analysed, which only a hub in its first minute has: then no
      // statistics tell a key value's probe from a walk of the claim order (docs/CAPACITY.md, "Limits per key").
      await analyzeJobs(databaseUrl);
      const round = smallRound(sizes);
      let spacing = roundMs;
      if (spacing === null) {
        // What the hub completes with only the backlog queued: a few seconds of completions once it is all created.
        const from = Date.now();
        const before = completions.length;
        await sleep(CAPACITY_SAMPLE_MS);
        const capacity = ((completions.length - before) * 1000) / (Date.now() - from);
        spacing = Math.round((round.length * 1000) / Math.max(1, capacity * sizes.loadFraction));
        console.error(`bench: keys: ${formatNumber(capacity)} jobs/s with the backlog alone: a round every ${spacing} ms`);
      }
      // The small customers' rounds, open loop and spread evenly: chunk c of round k is sent at
      // windowStart + (k + c ÷ chunks) × spacing whatever the answers took, so a round is not a burst of 999 jobs
      // (whose last would wait for the 998 before it however fair the order).
      const cpuBefore = snapshotCpu(pids, databaseName(databaseUrl));
      const windowStart = Date.now();
      const chunks = Math.ceil(round.length / ARRIVAL_CHUNK);
      for (let index = 0; index < sizes.smallJobs; index += 1) {
        for (let chunk = 0; chunk < chunks; chunk += 1) {
          await sleep(windowStart + (index + chunk / chunks) * spacing - Date.now());
          await create(round.slice(chunk * ARRIVAL_CHUNK, (chunk + 1) * ARRIVAL_CHUNK));
        }
      }
      await smallDone;
      const cpu = cpuSecondsBetween(cpuBefore, snapshotCpu(pids, databaseName(databaseUrl)));
      const completedInWindow = completions.filter((completion) => completion.at >= windowStart).length;
      // What is left of the backlog (with a key it drains 2 at a time, as the limit says, for minutes) is cancelled
      // once the workers have stopped (each completes what it holds): the figures are about the window, and the run
      // stays a few minutes long.
      working = false;
      await Promise.all(workers);
      const cancelled = await cancelQueued(http, token, automation.id);
      const seconds = (Date.now() - startedAt) / 1000;

      // The drain phase: everything queued first, then the workers start.
      const drainSmall = Array.from({ length: sizes.smallJobs }, () => round).flat();
      await create(Array.from({ length: sizes.bigBacklog }, () => ({ [KEY_PARAMETER]: BIG_KEY })));
      await create(drainSmall);
      await analyzeJobs(databaseUrl);
      drain.smallTotal = drainSmall.length;
      const drainSmallDone = new Promise<void>((resolve) => (drain.onSmallDone = resolve));
      const statementsBefore = (await enableStatementCounts(databaseUrl)) ? await snapshotStatements(databaseUrl) : undefined;
      const drainCpuBefore = snapshotCpu(pids, databaseName(databaseUrl));
      const drainStart = Date.now();
      drain.active = true;
      working = true;
      workers = Array.from({ length: sizes.workers }, workerLoop);
      await drainSmallDone;
      const drainCpu = cpuSecondsBetween(drainCpuBefore, snapshotCpu(pids, databaseName(databaseUrl)));
      const drainCompleted = drain.completed;
      const profile = statementsBefore ? topStatements(statementsBefore, await snapshotStatements(databaseUrl), TOP_STATEMENTS) : [];
      const drainSeconds = (drain.lastSmallAt - drainStart) / 1000;
      working = false;
      await Promise.all(workers);
      const drainCancelled = await cancelQueued(http, token, automation.id);
      const drainCpuMsPerJobBy = Object.fromEntries(HUB_CPU_LABELS.map((label) => [label, ((drainCpu[label] ?? 0) * 1000) / drainCompleted]));

      const waitOf = (job: ClaimedJob) => Math.max(0, Date.parse(job.started_at) - Date.parse(job.available_at)) / 1000;
      const sortedWaits = (jobs: ClaimedJob[]) => Float64Array.from(jobs.map(waitOf)).sort();
      const smallJobs = claimed.filter(isSmall);
      const bigJobs = claimed.filter((job) => !isSmall(job));
      const lastBigStart = Math.max(...bigJobs.map((job) => Date.parse(job.started_at)));
      const duringBacklog = sortedWaits(smallJobs.filter((job) => Date.parse(job.available_at) < lastBigStart));
      const small = sortedWaits(smallJobs);
      const database = new pg.Client({ connectionString: databaseUrl });
      await database.connect();
      let completed: number;
      let cancelledUnstarted: number;
      try {
        const { rows } = await database.query<{ completed: number; cancelled: number }>(
          `select count(*) filter (where status = 'completed' and attempts = 1)::int as completed,
                  count(*) filter (where status = 'cancelled' and attempts = 0)::int as cancelled from jobs`,
        );
        completed = rows[0]!.completed;
        cancelledUnstarted = rows[0]!.cancelled;
      } finally {
        await database.end();
      }
      const lastSmall = completions.findLastIndex((completion) => completion.small);
      const windowEnd = lastSmall < 0 ? Date.now() : completions[lastSmall]!.at;
      const windowSeconds = (windowEnd - windowStart) / 1000;
      const inWindow = completions.filter((completion) => completion.at >= windowStart && completion.at <= windowEnd).length;
      const cpuMsPerJobBy = Object.fromEntries(HUB_CPU_LABELS.map((label) => [label, ((cpu[label] ?? 0) * 1000) / completedInWindow]));
      const run: KeysRun = {
        name,
        roundMs: spacing,
        jobs: totalJobs,
        seconds,
        jobsPerSecond: completed / seconds,
        cancelled,
        windowSeconds,
        windowJobsPerSecond: inWindow / windowSeconds,
        smallJobsPerSecond: smallJobs.length / windowSeconds,
        smallDuringBacklog: duringBacklog.length,
        smallDuringBacklogWaitP50: percentile(duringBacklog, 50),
        smallDuringBacklogWaitP99: percentile(duringBacklog, 99),
        smallWaitP50: percentile(small, 50),
        smallWaitP99: percentile(small, 99),
        bigWaitP99: percentile(sortedWaits(bigJobs), 99),
        cpuMsPerJob: Object.values(cpuMsPerJobBy).reduce((sum, value) => sum + value, 0),
        cpuMsPerJobBy,
        drainJobs: drainCompleted,
        drainSeconds,
        drainJobsPerSecond: drainCompleted / drainSeconds,
        drainCpuMsPerJob: Object.values(drainCpuMsPerJobBy).reduce((sum, value) => sum + value, 0),
        drainCpuMsPerJobBy,
        statements: profile.map((statement) => ({
          query: statement.query.replace(/\s+/g, " ").slice(0, 160),
          callsPerJob: statement.calls / drainCompleted,
          msPerJob: statement.totalMs / drainCompleted,
        })),
        allCompleted:
          smallCompleted === smallTotal &&
          completed === claimed.length + drainClaimed.length &&
          new Set([...claimed, ...drainClaimed].map((job) => job.id)).size === claimed.length + drainClaimed.length &&
          completed + cancelledUnstarted === totalJobs + sizes.bigBacklog + drainSmall.length &&
          cancelledUnstarted === cancelled + drainCancelled,
      };
      return { value: run, passed: run.allCompleted };
    } finally {
      await http.close();
    }
  });
}

async function analyzeJobs(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("analyze jobs");
  } finally {
    await client.end();
  }
}

export async function runKeysMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const sizes = config.keys;
  console.error(
    `bench: keys: ${sizes.values} key values, one backlog of ${sizes.bigBacklog}, then ${sizes.smallJobs} rounds of one job per other value ` +
      (sizes.roundMs === null ? `at ${sizes.loadFraction} of the plain run's throughput with the backlog alone` : `every ${sizes.roundMs} ms`),
  );
  const runs: KeysRun[] = [];
  let roundMs = sizes.roundMs;
  for (const name of ["plain", "keys"] as const) {
    console.error(`bench: keys: the ${name} run on a fresh hub`);
    const run = await runOnce(config, name, roundMs);
    roundMs = run.roundMs;
    runs.push(run);
  }
  const [plain, keys] = runs as [KeysRun, KeysRun];
  const report: KeysReport = {
    mode: "keys",
    startedAt: startedAt.toISOString(),
    config: sizes,
    runs,
    windowThroughputRatio: keys.windowJobsPerSecond / plain.windowJobsPerSecond,
    cpuThroughputRatio: plain.cpuMsPerJob / keys.cpuMsPerJob,
    drainThroughputRatio: keys.drainJobsPerSecond / plain.drainJobsPerSecond,
    passed: runs.every((run) => run.allCompleted),
  };
  printKeysReport(report, roundMs);
  if (config.smoke) console.log("(--smoke: sizes too small for the figures to mean anything)");
  console.log(`\nresults: ${writeReport(config.resultsDir, config.smoke ? "keys-smoke" : "keys", report, startedAt)}`);
  return report.passed;
}
