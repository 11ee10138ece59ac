/**
 * `pnpm bench keys` (issue 27): limits per key and fair sharing under one big backlog. On a fresh
 * hub per run, one automation with `max_concurrent_jobs` 32; one key value's backlog (20,000 jobs)
 * is queued first, then 20 jobs of each of 999 other values, while workers claim in batches and
 * complete at once. Run twice on the same jobs:
 *
 * - "plain": no `concurrency_key` (today's claim: the small values' jobs wait behind the backlog);
 * - "keys": `concurrency_key` with `max_concurrent_per_key` 2 (fair sharing across the values).
 *
 * Printed per run: jobs/s (all jobs, from the first job's creation to the last completion), the
 * p50/p99 wait (started_at − available_at) of the small values' jobs, and the same-run ratio of the
 * keys run's jobs/s to the plain run's. Sizes: BENCH_KEYS_* (lib/config.ts); `--smoke` runs a few
 * hundred jobs to prove the mode works (its figures mean nothing).
 */
import pg from "pg";
import type { BenchConfig, KeysConfig } from "../lib/config";
import { JsonClient } from "../lib/http";
import { formatNumber, formatRatio, table, writeReport } from "../lib/report";
import { percentile } from "../lib/stats";
import { onFreshHub } from "../hub";

const KEY_PARAMETER = "customer";
const BIG_KEY = "big-customer";
/** Jobs per POST /jobs/batch (its largest, CONTRACT §6.6). */
const CREATE_BATCH = 500;
/** A claim's long-poll: workers wait a little when nothing is claimable, as real ones do. */
const CLAIM_WAIT_SECONDS = 1;

type KeysRunName = "plain" | "keys";

export interface KeysRun {
  name: KeysRunName;
  jobs: number;
  seconds: number;
  jobsPerSecond: number;
  /**
   * Jobs/s while the small values drain: jobs completed up to the last small value's job ÷ the time
   * to it. With a key, what is left of the backlog after that runs `max_concurrent_per_key` at a
   * time, as the limit says, so the whole run's jobs/s measures the limit, not the claim.
   */
  mixedJobsPerSecond: number;
  /** Waits of the small key values' jobs, in seconds. */
  smallWaitP50: number;
  smallWaitP99: number;
  bigWaitP99: number;
  /** Every created job completed exactly once. */
  allCompleted: boolean;
}

export interface KeysReport {
  mode: "keys";
  startedAt: string;
  config: KeysConfig;
  runs: KeysRun[];
  /** keys jobs/s ÷ plain jobs/s, over the whole run and while the small values drain (issue 27's target ≥ 0.8). */
  throughputRatio: number;
  mixedThroughputRatio: number;
  passed: boolean;
}

interface ClaimedJob {
  id: string;
  context: Record<string, string>;
  available_at: string;
  started_at: string;
}

/** The contexts, in creation order: the big value's backlog, then the small values round-robin. */
function contextsOf(sizes: KeysConfig): Array<Record<string, string>> {
  const contexts: Array<Record<string, string>> = [];
  for (let index = 0; index < sizes.bigBacklog; index += 1) contexts.push({ [KEY_PARAMETER]: BIG_KEY });
  for (let round = 0; round < sizes.smallJobs; round += 1) {
    for (let value = 1; value < sizes.values; value += 1) contexts.push({ [KEY_PARAMETER]: `customer-${value}` });
  }
  return contexts;
}

async function runOnce(config: BenchConfig, name: KeysRunName): Promise<KeysRun> {
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
      const contexts = contextsOf(sizes);
      const claimed: ClaimedJob[] = [];
      /** Completed jobs in completion order, with when (ms) each batch was recorded. */
      const completions: Array<{ at: number; small: boolean }> = [];
      let creating = true;

      const workerLoop = async () => {
        while (creating || claimed.length < contexts.length) {
          const answer = await http.exchange("POST", "/jobs/claim-batch", {
            headers: workerHeaders,
            body: { max_jobs: sizes.claimBatch, wait_seconds: CLAIM_WAIT_SECONDS },
          });
          if (answer.status === 204) continue;
          if (answer.status !== 200) throw new Error(`claim-batch answered ${answer.status}: ${answer.text}`);
          const { jobs } = JSON.parse(answer.text) as { jobs: ClaimedJob[] };
          claimed.push(...jobs);
          await http.send("POST", "/jobs/complete-batch", {
            headers: workerHeaders,
            body: { items: jobs.map((job) => ({ id: job.id, result: {} })) },
            expected: 200,
          });
          const at = Date.now();
          for (const job of jobs) completions.push({ at, small: job.context[KEY_PARAMETER] !== BIG_KEY });
        }
      };

      const startedAt = Date.now();
      const workers = Array.from({ length: sizes.workers }, workerLoop);
      for (let offset = 0; offset < contexts.length; offset += CREATE_BATCH) {
        const jobs = contexts.slice(offset, offset + CREATE_BATCH).map((context) => ({ automation_id: automation.id, context }));
        await http.send("POST", "/jobs/batch", { token, body: { jobs }, expected: 201 });
      }
      creating = false;
      await Promise.all(workers);
      const seconds = (Date.now() - startedAt) / 1000;

      const waitOf = (job: ClaimedJob) => Math.max(0, Date.parse(job.started_at) - Date.parse(job.available_at)) / 1000;
      const sortedWaits = (jobs: ClaimedJob[]) => Float64Array.from(jobs.map(waitOf)).sort();
      const small = sortedWaits(claimed.filter((job) => job.context[KEY_PARAMETER] !== BIG_KEY));
      const big = sortedWaits(claimed.filter((job) => job.context[KEY_PARAMETER] === BIG_KEY));
      const database = new pg.Client({ connectionString: databaseUrl });
      await database.connect();
      let completed: number;
      try {
        const { rows } = await database.query<{ n: number }>("select count(*)::int as n from jobs where status = 'completed' and attempts = 1");
        completed = rows[0]!.n;
      } finally {
        await database.end();
      }
      const lastSmall = completions.findLastIndex((completion) => completion.small);
      const mixedSeconds = lastSmall < 0 ? seconds : (completions[lastSmall]!.at - startedAt) / 1000;
      const run: KeysRun = {
        name,
        jobs: contexts.length,
        seconds,
        jobsPerSecond: contexts.length / seconds,
        mixedJobsPerSecond: (lastSmall + 1) / mixedSeconds,
        smallWaitP50: percentile(small, 50),
        smallWaitP99: percentile(small, 99),
        bigWaitP99: percentile(big, 99),
        allCompleted: completed === contexts.length && new Set(claimed.map((job) => job.id)).size === contexts.length,
      };
      return { value: run, passed: run.allCompleted };
    } finally {
      await http.close();
    }
  });
}

export async function runKeysMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const sizes = config.keys;
  console.error(`bench: keys: ${sizes.values} key values, one backlog of ${sizes.bigBacklog}, ${sizes.smallJobs} jobs per other value`);
  const runs: KeysRun[] = [];
  for (const name of ["plain", "keys"] as const) {
    console.error(`bench: keys: the ${name} run on a fresh hub`);
    runs.push(await runOnce(config, name));
  }
  const [plain, keys] = runs as [KeysRun, KeysRun];
  const report: KeysReport = {
    mode: "keys",
    startedAt: startedAt.toISOString(),
    config: sizes,
    runs,
    throughputRatio: keys.jobsPerSecond / plain.jobsPerSecond,
    mixedThroughputRatio: keys.mixedJobsPerSecond / plain.mixedJobsPerSecond,
    passed: runs.every((run) => run.allCompleted),
  };
  console.log(
    table([
      ["run", "jobs", "jobs/s", "jobs/s while small keys drain", "small keys' wait p50 (s)", "small keys' wait p99 (s)", "big key's wait p99 (s)", "all completed once"],
      ...runs.map((run) => [
        run.name,
        String(run.jobs),
        formatNumber(run.jobsPerSecond),
        formatNumber(run.mixedJobsPerSecond),
        formatNumber(run.smallWaitP50),
        formatNumber(run.smallWaitP99),
        formatNumber(run.bigWaitP99),
        run.allCompleted ? "yes" : "NO",
      ]),
    ]),
  );
  console.log(`keys jobs/s ÷ plain jobs/s (same run): ${formatRatio(keys.jobsPerSecond, plain.jobsPerSecond)} over the whole run, ${formatRatio(keys.mixedJobsPerSecond, plain.mixedJobsPerSecond)} while the small keys drain`);
  if (config.smoke) console.log("(--smoke: sizes too small for the figures to mean anything)");
  console.log(`\nresults: ${writeReport(config.resultsDir, config.smoke ? "keys-smoke" : "keys", report, startedAt)}`);
  return report.passed;
}
