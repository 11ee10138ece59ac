/**
 * The hub end to end: the real API, one dispatcher and one event relay as child processes
 * (tooling/hub-processes.ts) on a fresh database and a Redis prefix of their own, driven over HTTP.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { randomBytes } from "node:crypto";
import { createTestDatabase } from "@hub/db/testing";
import { HubProcesses } from "../../tooling/hub-processes";
import { BENCH_DIR, type BenchConfig, type ProfiledApp } from "../lib/config";
import { drivePullTarget, settleCosts, skippedTarget, type PullTargetRun, type TargetResult } from "../lib/drive";
import { BatchedWorkers, SimulatedWorkers, type PhaseSummary } from "../lib/load";
import type { WorkloadPlan } from "../lib/plan";
import { deleteRedisKeys } from "../lib/redis-cleanup";
import { HubBatchTarget, HubHttpTarget, missingBatchEndpoints, seedHub, type HubSeed } from "./hub-target";

/** One job per request (`POST /jobs`, `/jobs/claim`…), or the batch endpoints of CONTRACT §6.6. */
export type HubMode = "single" | "batched";

/** The target and its workers for a mode. */
function hubTarget(mode: HubMode, apiUrl: string, seed: HubSeed, plan: WorkloadPlan, config: BenchConfig) {
  switch (mode) {
    case "single": {
      const target = new HubHttpTarget(apiUrl, seed, config.creators);
      return { target, workers: (tracker: Parameters<PullTargetRun["workers"]>[0]) => new SimulatedWorkers(target, plan, tracker, config), batch: undefined };
    }
    case "batched": {
      // Every claim loop's long-poll, plus a complete or heartbeat in flight beside each.
      const loops = plan.automations.length * (1 + config.slotsOverLimit);
      const target = new HubBatchTarget(apiUrl, seed, config.creators, 2 * loops + config.slowJobs + 4);
      return { target, workers: (tracker: Parameters<PullTargetRun["workers"]>[0]) => new BatchedWorkers(target, plan, tracker, config), batch: config.batchSize };
    }
  }
}

const PROFILER_PRELOAD = pathToFileURL(path.join(BENCH_DIR, "lib", "cpu-profile-preload.mjs")).href;

/** The variables that make a hub process record a CPU profile (see lib/cpu-profile-preload.mjs). */
export function profileEnv(config: BenchConfig, app: ProfiledApp): Record<string, string> {
  if (!config.cpuProfile.includes(app)) return {};
  return {
    NODE_OPTIONS: `--import=${PROFILER_PRELOAD}`,
    BENCH_CPU_PROFILE_DIR: path.join(config.resultsDir, "profiles"),
    BENCH_CPU_PROFILE_NAME: app,
  };
}

/**
 * The hub in one mode, on a database and Redis prefix of its own. The batched mode first checks
 * that the API has the batch endpoints, and is reported as skipped when it has not.
 */
export async function runHub(
  config: BenchConfig,
  plan: WorkloadPlan,
  pacedRate: (peak: PhaseSummary) => number | null,
  mode: HubMode = "single",
): Promise<TargetResult> {
  const name = mode === "single" ? "hub" : "hub-batched";
  const database = await createTestDatabase(config.databaseServerUrl);
  const redisPrefix = `bench-${randomBytes(4).toString("hex")}`;
  let hub: HubProcesses | undefined;
  let passed = false;
  try {
    hub = await HubProcesses.start({
      databaseUrl: database.url,
      redisUrl: config.redisUrl,
      redisPrefix,
      dispatchers: 1,
      relays: 1,
      logLevel: config.hubLogLevel,
      env: { HUB_JOB_LEASE_SECONDS: String(config.leaseSeconds) },
      apiEnv: profileEnv(config, "api"),
      dispatcherEnv: profileEnv(config, "dispatcher"),
      relayEnv: profileEnv(config, "relay"),
    });
    const seed = await seedHub(hub.apiUrl, hub.admin, plan);
    if (mode === "batched") {
      const missing = await missingBatchEndpoints(hub.apiUrl, seed);
      if (missing.length > 0) {
        console.error(`bench: batched mode: endpoints not available (${missing.join(", ")})`);
        passed = true;
        return skippedTarget(name, `batched mode: endpoints not available (${missing.join(", ")})`);
      }
    }
    const { target, workers, batch } = hubTarget(mode, hub.apiUrl, seed, plan, config);
    let result: TargetResult;
    try {
      result = await drivePullTarget(
        {
          name,
          target,
          workers,
          batch,
          databaseUrl: database.url,
          redisUrl: config.redisUrl,
          automationIds: seed.automationIds,
          relays: true,
          pids: { api: hub.api.pid, dispatcher: hub.dispatchers[0]?.pid, relay: hub.relays[0]?.pid },
        },
        plan,
        config,
        pacedRate,
      );
    } finally {
      await target.close();
    }
    const crashes = hub.unexpectedExits();
    await hub.stopAll();
    await settleCosts(result);
    result.audit.push({
      name: "no hub process crashed",
      ok: crashes.length === 0,
      detail: crashes.length === 0 ? "none" : crashes.map((crash) => `${crash.name} exited ${crash.exit.code ?? crash.exit.signal}`).join(", "),
    });
    result.peakRssMiB = Object.fromEntries(hub.peakRss().map((child) => [child.name, (child.peakRssKb ?? Number.NaN) / 1024]));
    passed = result.audit.every((check) => check.ok);
    return result;
  } catch (error) {
    if (hub) console.error(hub.diagnostics(4096));
    throw error;
  } finally {
    await hub?.stopAll();
    if (passed && !config.keepLogs) hub?.removeLogs();
    else if (hub) console.error(`bench: the hub's logs are in ${hub.logDir}`);
    await deleteRedisKeys(config.redisUrl, redisPrefix);
    if (!config.keepDatabases) await database.drop();
  }
}
