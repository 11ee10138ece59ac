/** The two baselines of the end-to-end mode, each on resources of its own that it removes afterwards. */
import { randomBytes } from "node:crypto";
import { createTestDatabase } from "@hub/db/testing";
import type { BenchConfig } from "../lib/config";
import { drivePullTarget, drivePushTarget, settleTransactions, type TargetResult } from "../lib/drive";
import { PhaseTracker, type PhaseSummary } from "../lib/load";
import type { WorkloadPlan } from "../lib/plan";
import { BullmqTarget } from "./bullmq-raw";
import { PgCeilingTarget } from "./pg-ceiling";

/** (a) The PostgreSQL ceiling, on a fresh database, with a pool of C connections. */
export async function runPgCeiling(
  config: BenchConfig,
  plan: WorkloadPlan,
  pacedRate: (peak: PhaseSummary) => number | null,
): Promise<TargetResult> {
  const database = await createTestDatabase(config.databaseServerUrl);
  try {
    const target = new PgCeilingTarget(database.url, { connections: config.creators, leaseSeconds: config.leaseSeconds });
    let result: TargetResult;
    try {
      const seed = await target.seedWorkload(plan.automations);
      await target.startRelay(database.url);
      result = await drivePullTarget(
        { name: "pg", target, databaseUrl: database.url, automationIds: seed.automationIds, relays: true, pids: {} },
        plan,
        config,
        pacedRate,
      );
    } finally {
      await target.close();
    }
    await settleTransactions(result, database.url);
    return result;
  } finally {
    if (!config.keepDatabases) await database.drop();
  }
}

/** (b) Raw BullMQ: the same jobs added and processed as no-ops, on a queue of its own. */
export async function runBullmqBaseline(config: BenchConfig, plan: WorkloadPlan, rate: number | null): Promise<TargetResult> {
  const runId = randomBytes(4).toString("hex");
  const target = new BullmqTarget(config.redisUrl, `bench-${runId}`, `bench-noop-${runId}`);
  try {
    const tracker = new PhaseTracker();
    target.startWorker(tracker, plan.totalSlots);
    return await drivePushTarget("bullmq", target, tracker, plan, config, rate);
  } finally {
    await target.close();
  }
}
