/** The peers of the end-to-end mode, each on resources of its own that it removes afterwards. */
import { randomBytes } from "node:crypto";
import type { BenchConfig } from "../lib/config";
import { drivePullTarget, drivePushTarget, settleCosts, type TargetResult } from "../lib/drive";
import { PhaseTracker, SimulatedWorkers, type PhaseSummary } from "../lib/load";
import type { WorkloadPlan } from "../lib/plan";
import { createScratchDatabase, createTestDatabase } from "@hub/testing";
import { BullmqTarget } from "./bullmq-raw";
import { GraphileWorkerTarget } from "./graphile-worker";
import { PgBossTarget } from "./pg-boss";
import { PgCeilingTarget } from "./pg-ceiling";

/** (a) The PostgreSQL ceiling, on a fresh database, with a pool of C connections. */
export async function runPgCeiling(config: BenchConfig, plan: WorkloadPlan, pacedRate: (peak: PhaseSummary) => number | null): Promise<TargetResult> {
  const database = await createTestDatabase(config.databaseServerUrl);
  try {
    const target = new PgCeilingTarget(database.url, { connections: config.creators, leaseSeconds: config.leaseSeconds });
    let result: TargetResult;
    try {
      const seed = await target.seedWorkload(plan.automations);
      await target.startRelay(database.url);
      result = await drivePullTarget(
        {
          name: "pg",
          target,
          workers: (tracker) => new SimulatedWorkers(target, plan, tracker, config),
          databaseUrl: database.url,
          automationIds: seed.automationIds,
          relays: true,
          pids: {},
        },
        plan,
        config,
        pacedRate,
      );
    } finally {
      await target.close();
    }
    await settleCosts(result);
    return result;
  } finally {
    if (!config.keepDatabases) await database.drop();
  }
}

/** (b) Raw BullMQ: the same jobs added and processed as no-ops, on a queue of its own. */
export async function runBullmqBaseline(config: BenchConfig, plan: WorkloadPlan, rate: number | null): Promise<TargetResult> {
  const runId = randomBytes(4).toString("hex");
  const target = new BullmqTarget(config.redisUrl, `bench-${runId}`, `bench-noop-${runId}`);
  let result: TargetResult;
  try {
    const tracker = new PhaseTracker();
    target.startWorker(tracker, plan.totalSlots);
    result = await drivePushTarget({ name: "bullmq", target, tracker, redisUrl: config.redisUrl }, plan, config, rate);
  } finally {
    await target.close();
  }
  await settleCosts(result);
  return result;
}

/**
 * graphile-worker on a database of its own, with its runner started, for `work`; then the runner
 * stopped (if `work` did not), the producers closed, `afterClose` run on the result (the database
 * still there), and the database dropped (unless BENCH_KEEP_DB).
 */
export async function onGraphileWorker<T>(
  config: BenchConfig,
  batched: boolean,
  work: (target: GraphileWorkerTarget, tracker: PhaseTracker, databaseUrl: string) => Promise<T>,
  afterClose?: (result: T) => Promise<void>,
): Promise<T> {
  const database = await createScratchDatabase(config.databaseServerUrl, { label: "bench_graphile" });
  try {
    const tracker = new PhaseTracker();
    const target = await GraphileWorkerTarget.start(database.url, tracker, {
      creators: config.creators,
      concurrency: config.peerConcurrency,
      batched,
      batchSize: config.batchSize,
    });
    let result: T;
    try {
      result = await work(target, tracker, database.url);
    } finally {
      await target.stopRunner().catch(() => undefined);
      await target.close();
    }
    await afterClose?.(result);
    return result;
  } finally {
    if (!config.keepDatabases) await database.drop();
  }
}

/** (c) graphile-worker, plain (`add_job` per job) or batched (`addJobs`, local queue, batched completions). */
export async function runGraphileWorker(config: BenchConfig, plan: WorkloadPlan, rate: number | null, batched: boolean): Promise<TargetResult> {
  return onGraphileWorker(
    config,
    batched,
    (target, tracker, databaseUrl) =>
      drivePushTarget(
        {
          name: batched ? "graphile-batched" : "graphile",
          target,
          tracker,
          databaseUrl,
          batch: batched ? config.batchSize : undefined,
          audit: async () => {
            await target.stopRunner();
            return target.audit();
          },
        },
        plan,
        config,
        batched ? null : rate,
      ),
    settleCosts,
  );
}

/** (d) pg-boss: `send()` per job, batch-fetching workers. */
export async function runPgBoss(config: BenchConfig, plan: WorkloadPlan, rate: number | null): Promise<TargetResult> {
  const database = await createScratchDatabase(config.databaseServerUrl, { label: "bench_pgboss" });
  try {
    const tracker = new PhaseTracker();
    const target = await PgBossTarget.start(database.url, tracker, { creators: config.creators, workers: config.pgBossWorkers, batchSize: config.pgBossBatch });
    let result: TargetResult;
    try {
      result = await drivePushTarget(
        {
          name: "pgboss",
          target,
          tracker,
          databaseUrl: database.url,
          audit: () => target.audit(config.jobs + (rate === null ? 0 : config.latencyJobs)),
        },
        plan,
        config,
        rate,
      );
    } finally {
      await target.close();
    }
    await settleCosts(result);
    return result;
  } finally {
    if (!config.keepDatabases) await database.drop();
  }
}
