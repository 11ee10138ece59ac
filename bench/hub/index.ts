/**
 * The hub end to end: the real API, one dispatcher and one event relay as child processes
 * (`HubProcesses` of @hub/testing) on a fresh database and a Redis prefix of their own, driven over HTTP.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { randomBytes } from "node:crypto";
import { createTestDatabase, deleteRedisKeys, HubProcesses, type HubProcessesOptions } from "@hub/testing";
import { BENCH_DIR, type BenchConfig, type ProfiledApp } from "../lib/config";
import { drivePullTarget, settleCosts, skippedTarget, type PullTargetRun, type TargetResult } from "../lib/drive";
import { BatchedWorkers, SimulatedWorkers, type PhaseSummary } from "../lib/load";
import type { WorkloadPlan } from "../lib/plan";
import { HubBatchTarget, HubHttpTarget, missingBatchEndpoints, seedHub, type HubSeed } from "./hub-target";
import { subscribeSink, webhookHubEnv, type BenchSubscription } from "./webhook-subscription";

/**
 * One job per request (`POST /jobs`, `/jobs/claim`…), the batch endpoints of CONTRACT §6.6, or one
 * job per request with a `*` webhook subscription to a local sink (CONTRACT §6.7).
 */
export type HubMode = "single" | "batched" | "webhooks";

const PART_OF_MODE = { single: "hub", batched: "hub-batched", webhooks: "hub-webhooks" } as const;

/** The target and its workers for a mode; `claimBatch` is the batched workers' `max_jobs` (default: the automation's limit). */
export function hubTarget(mode: HubMode, apiUrl: string, seed: HubSeed, plan: WorkloadPlan, config: BenchConfig, claimBatch?: number) {
  switch (mode) {
    case "single":
    case "webhooks": {
      const target = new HubHttpTarget(apiUrl, seed, config.creators, config.nextWaitSeconds);
      return { target, workers: (tracker: Parameters<PullTargetRun["workers"]>[0]) => new SimulatedWorkers(target, plan, tracker, config), batch: undefined };
    }
    case "batched": {
      // Every claim loop's long-poll, plus a complete or heartbeat in flight beside each.
      const loops = plan.automations.length * (1 + config.slotsOverLimit);
      const target = new HubBatchTarget(apiUrl, seed, config.creators, 2 * loops + config.slowJobs + 4);
      return {
        target,
        workers: (tracker: Parameters<PullTargetRun["workers"]>[0]) => new BatchedWorkers(target, plan, tracker, config, claimBatch),
        batch: config.batchSize,
      };
    }
  }
}

const PROFILER_PRELOAD = pathToFileURL(path.join(BENCH_DIR, "lib", "cpu-profile-preload.mjs")).href;

/** The variables that make a hub process record a CPU profile (see lib/cpu-profile-preload.mjs). */
export function profileEnv(config: BenchConfig, app: ProfiledApp): Record<string, string> {
  if (!config.cpuProfile.includes(app)) return process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {};
  return {
    NODE_OPTIONS: `--import=${PROFILER_PRELOAD}`,
    BENCH_CPU_PROFILE_DIR: path.join(config.resultsDir, "profiles"),
    BENCH_CPU_PROFILE_NAME: app,
  };
}

/**
 * The bench's own HUB_* variables, passed to the hub's processes (which otherwise get only the
 * environment the mode gives them): `HUB_RELAY_QUIET_POLL_MS=100 pnpm bench timed` tries a setting.
 */
export function hubEnvOverrides(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith("HUB_") && entry[1] !== undefined));
}

/** A hub started for one benchmark part, on a database and Redis prefix of its own. */
export interface BenchHub {
  processes: HubProcesses;
  databaseUrl: string;
}

/**
 * Starts the hub's processes on a fresh database and Redis prefix, runs `work` on them, and cleans
 * up whatever happens: processes stopped, Redis keys and (unless BENCH_KEEP_DB) the database
 * dropped, logs deleted when `work` says the run passed (kept, and their place printed, otherwise).
 */
export async function onFreshHub<T>(
  config: BenchConfig,
  options: Omit<HubProcessesOptions, "databaseUrl" | "redisUrl" | "redisPrefix" | "logLevel">,
  work: (hub: BenchHub) => Promise<{ value: T; passed: boolean }>,
): Promise<T> {
  const database = await createTestDatabase(config.databaseServerUrl);
  const redisPrefix = `bench-${randomBytes(4).toString("hex")}`;
  let processes: HubProcesses | undefined;
  let passed = false;
  try {
    processes = await HubProcesses.start({
      ...options,
      databaseUrl: database.url,
      redisUrl: config.redisUrl,
      redisPrefix,
      logLevel: config.hubLogLevel,
      runBuilt: true,
    });
    const outcome = await work({ processes, databaseUrl: database.url });
    passed = outcome.passed;
    return outcome.value;
  } catch (error) {
    if (processes) console.error(processes.diagnostics(4096));
    throw error;
  } finally {
    await processes?.stopAll();
    if (passed && !config.keepLogs) processes?.removeLogs();
    else if (processes) console.error(`bench: the hub's logs are in ${processes.logDir}`);
    await deleteRedisKeys(config.redisUrl, redisPrefix);
    if (!config.keepDatabases) await database.drop();
  }
}

/**
 * The hub's processes for a mode: one API, one dispatcher, one relay, with the run's lease, shards
 * and profiling; `env`: more variables for every process (the tracing mode's `OTEL_*`).
 */
export function hubProcessOptions(config: BenchConfig, mode: HubMode, env: Record<string, string> = {}) {
  return {
    dispatchers: 1,
    relays: 1,
    env: {
      HUB_JOB_LEASE_SECONDS: String(config.leaseSeconds),
      ...(config.dispatchShards === undefined ? {} : { HUB_DISPATCH_SHARDS: String(config.dispatchShards) }),
      ...(mode === "webhooks" ? webhookHubEnv() : {}),
      ...env,
    },
    apiEnv: profileEnv(config, "api"),
    dispatcherEnv: profileEnv(config, "dispatcher"),
    relayEnv: profileEnv(config, "relay"),
  };
}

/**
 * The hub in one mode, on a database and Redis prefix of its own (`options.env`: more variables for
 * its processes, as {@link hubProcessOptions}; `options.analyzeAfterCreated`: as
 * PullTargetRun's). The batched mode first checks that the API has the batch endpoints, and is
 * reported as skipped when it has not.
 */
export async function runHub(
  config: BenchConfig,
  plan: WorkloadPlan,
  pacedRate: (peak: PhaseSummary) => number | null,
  mode: HubMode = "single",
  options: { env?: Record<string, string>; analyzeAfterCreated?: number } = {},
): Promise<TargetResult> {
  const name = PART_OF_MODE[mode];
  let subscription: BenchSubscription | undefined;
  const processOptions = hubProcessOptions(config, mode, options.env);
  try {
    return await onFreshHub(config, processOptions, async ({ processes: hub, databaseUrl }) => {
      const seed = await seedHub(hub.apiUrl, hub.admin, plan);
      if (mode === "webhooks") subscription = await subscribeSink(hub.apiUrl, hub.admin);
      if (mode === "batched") {
        const missing = await missingBatchEndpoints(hub.apiUrl, seed);
        if (missing.length > 0) {
          console.error(`bench: batched mode: endpoints not available (${missing.join(", ")})`);
          return { value: skippedTarget(name, `batched mode: endpoints not available (${missing.join(", ")})`), passed: true };
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
            databaseUrl,
            redisUrl: config.redisUrl,
            automationIds: seed.automationIds,
            relays: true,
            ...(options.analyzeAfterCreated === undefined ? {} : { analyzeAfterCreated: options.analyzeAfterCreated }),
            pids: { api: hub.api.pid, dispatcher: hub.dispatchers[0]?.pid, relay: hub.relays[0]?.pid },
          },
          plan,
          config,
          pacedRate,
        );
      } finally {
        await target.close();
      }
      if (subscription) result.audit.push(...(await subscription.audit(databaseUrl)));
      const crashes = hub.unexpectedExits();
      await hub.stopAll();
      await settleCosts(result);
      result.audit.push({
        name: "no hub process crashed",
        ok: crashes.length === 0,
        detail: crashes.length === 0 ? "none" : crashes.map((crash) => `${crash.name} exited ${crash.exit.code ?? crash.exit.signal}`).join(", "),
      });
      result.peakRssMiB = Object.fromEntries(hub.peakRss().map((child) => [child.name, (child.peakRssKb ?? Number.NaN) / 1024]));
      return { value: result, passed: result.audit.every((check) => check.ok) };
    });
  } finally {
    await subscription?.close();
  }
}
