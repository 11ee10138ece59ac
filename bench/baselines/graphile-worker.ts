/**
 * Peer: graphile-worker 0.17 on its own database (its schema migrated by the runner on start).
 *
 * - plain: each creator calls `graphile_worker.add_job(...)` (one statement, named and prepared,
 *   over a pool of C connections); one runner with `BENCH_PEER_CONCURRENCY` workers, each fetching
 *   and completing one job per transaction, woken by LISTEN/NOTIFY.
 * - batched: creators call `addJobs` with `BENCH_BATCH` jobs at a time; the runner fetches into a
 *   local queue of `BENCH_BATCH` jobs and batches its completions (`completeJobBatchDelay: 0`).
 *
 * "Claimed" is when the task starts, "completed" is the runner's `job:complete` event (graphile
 * writes the completion right after, without waiting, so this is when the job is done for its
 * worker). Jobs are no-ops; graphile-worker has no per-queue concurrency limit like the hub's, so
 * every job goes to one task and the limits of the plan do not apply.
 */
import { performance } from "node:perf_hooks";
import pg from "pg";
import { Logger, makeWorkerUtils, run, type Runner, type WorkerUtils } from "graphile-worker";
import type { AuditCheck } from "../lib/audit";
import type { JobSpec, JobTarget, PhaseTracker } from "../lib/load";

const TASK = "bench_noop";

/** Drops graphile-worker's per-job log lines (its default logs every job at info). */
const silentLogger = new Logger(() => () => undefined);

export class GraphileWorkerTarget implements JobTarget {
  private constructor(
    private readonly producers: pg.Pool,
    private readonly runner: Runner,
    private readonly utils: WorkerUtils | undefined,
  ) {}

  static async start(
    databaseUrl: string,
    tracker: PhaseTracker,
    options: { creators: number; concurrency: number; batched: boolean; batchSize: number },
  ): Promise<GraphileWorkerTarget> {
    const runner = await run({
      connectionString: databaseUrl,
      concurrency: options.concurrency,
      noHandleSignals: true,
      logger: silentLogger,
      taskList: {
        [TASK]: async (_payload, helpers) => {
          tracker.current?.claimed(helpers.job.id, performance.now());
        },
      },
      ...(options.batched ? { preset: { worker: { localQueue: { size: options.batchSize }, completeJobBatchDelay: 0 } } } : {}),
    });
    runner.events.on("job:complete", ({ job, error }) => {
      if (error) tracker.current?.error("job", error);
      else tracker.current?.completed(job.id, performance.now());
    });
    const producers = new pg.Pool({ connectionString: databaseUrl, max: options.creators, application_name: "bench-graphile-producer" });
    // An idle connection that breaks (e.g. the database dropped at the end) must not crash the run.
    producers.on("error", (error) => tracker.current?.error("graphile producer pool", error));
    producers.on("connect", (client) => client.on("error", (error) => tracker.current?.error("graphile producer connection", error)));
    const utils = options.batched ? await makeWorkerUtils({ pgPool: producers, logger: silentLogger }) : undefined;
    return new GraphileWorkerTarget(producers, runner, utils);
  }

  async createJob(automation: number, context: Record<string, unknown>): Promise<string> {
    const { rows } = await this.producers.query<{ id: string }>({
      name: "bench-graphile-add-job",
      text: "select id from graphile_worker.add_job($1, $2::json)",
      values: [TASK, { automation, context }],
    });
    return rows[0]!.id;
  }

  async createJobs(jobs: readonly JobSpec[]): Promise<string[]> {
    if (!this.utils) throw new Error("createJobs is the batched mode's");
    const added = await this.utils.addJobs(jobs.map((job) => ({ identifier: TASK, payload: { automation: job.automation, context: job.context } })));
    return added.map((job) => job.id);
  }

  /** Jobs still in graphile-worker's table once the runner stopped: a completed job is deleted. */
  async audit(): Promise<AuditCheck[]> {
    const { rows } = await this.producers.query<{ left: number }>("select count(*)::int as left from graphile_worker._private_jobs");
    const left = rows[0]?.left ?? Number.NaN;
    return [{ name: "no job left in graphile_worker.jobs", ok: left === 0, detail: `${left} left` }];
  }

  /** Stops the runner (it writes its pending completions first). */
  async stopRunner(): Promise<void> {
    await this.runner.stop();
  }

  async close(): Promise<void> {
    await this.utils?.release();
    await this.producers.end();
  }
}
