/**
 * The benchmark's settings: command-line mode plus `BENCH_*` variables. The only module of the
 * benchmark that reads `process.env`; every default is sized for the 2-core reference machine.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { JOB_DEFAULTS } from "@hub/shared";
import type { PostgresServerInfo } from "./postgres-server";
import {
  BURST_PROTOCOLS,
  type AlertsConfig,
  type BurstConfig,
  type ConsoleConfig,
  type FlowsConfig,
  type KeysConfig,
  type LogsConfig,
  type ScaleConfig,
  type TimedConfig,
} from "./mode-configs";

export {
  BURST_PROTOCOLS,
  type AlertsConfig,
  type BurstConfig,
  type BurstProtocol,
  type ConsoleConfig,
  type FlowsConfig,
  type KeysConfig,
  type LogsConfig,
  type ScaleConfig,
  type TimedConfig,
} from "./mode-configs";

export type BenchMode = "e2e" | "api" | "timed" | "footprint" | "scale" | "burst" | "claim-plan" | "keys" | "logs" | "console" | "flows" | "alerts" | "tracing";
/** The modes named on the command line (`e2e` is the default; `--api` is the same as `api`). */
const NAMED_MODES = [
  "api",
  "timed",
  "footprint",
  "scale",
  "burst",
  "claim-plan",
  "keys",
  "logs",
  "console",
  "flows",
  "alerts",
  "tracing",
] as const satisfies readonly BenchMode[];
/**
 * Parts of the e2e mode: the hub one job per request and batched, the hub one job per request
 * with a `*` webhook subscription to a local sink (target: within 10 % of the plain hub), and the
 * peers measured in the same run (the PostgreSQL ceiling, raw BullMQ, graphile-worker plain and
 * batched, pg-boss).
 */
export const BENCH_PARTS = ["hub", "hub-batched", "hub-webhooks", "pg", "graphile", "graphile-batched", "pgboss", "bullmq"] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];
export type ProfiledApp = "api" | "dispatcher" | "relay";
/** Phases a profile can be limited to: the e2e mode's peak and paced phases, the flows mode's plain (the first) and flows. */
export const PROFILED_PHASES = ["peak", "paced", "plain", "flows"] as const;
export type ProfiledPhase = (typeof PROFILED_PHASES)[number];

export interface BenchConfig {
  mode: BenchMode;
  /** `--smoke`: tiny sizes, for CI; the run fails when the audit fails. */
  smoke: boolean;
  /** BENCH_N: jobs of the peak phase (and of each baseline's peak phase). */
  jobs: number;
  /** BENCH_C: concurrent clients creating jobs. */
  creators: number;
  /** BENCH_A: automations, each with one simulated worker. */
  automations: number;
  /** BENCH_LIMITS: `max_concurrent_jobs` of the automations, cycled (e.g. "2,4,8,16"). */
  limits: number[];
  /** BENCH_SLOTS_OVER_LIMIT: a worker claims with `limit + this` parallel loops, so the hub must refuse. */
  slotsOverLimit: number;
  /** BENCH_LOAD_FRACTION: the latency phase creates jobs at this fraction of the hub's peak throughput. */
  loadFraction: number;
  /** BENCH_RATE: jobs/s of the latency phase, overriding the fraction. */
  rate: number | undefined;
  /** BENCH_LATENCY_N: jobs of the latency phase. */
  latencyJobs: number;
  /** BENCH_WORK_MS: time a worker spends on a job before completing it. */
  workMs: number;
  /** BENCH_LEASE_SECONDS: the hub's HUB_JOB_LEASE_SECONDS during the run. */
  leaseSeconds: number;
  /** BENCH_DISPATCH_SHARDS: HUB_DISPATCH_SHARDS of the hub's processes (unset: the hub's default, 1 on one Redis server). */
  dispatchShards: number | undefined;
  /** BENCH_SLOW_JOBS: jobs that take 1.5 leases, so their worker must heartbeat to keep them. */
  slowJobs: number;
  /** BENCH_CLAIM_WAIT_SECONDS: the long-poll `wait_seconds` of every claim. */
  claimWaitSeconds: number;
  /**
   * BENCH_NEXT_WAIT_SECONDS: `wait_seconds` of the one-job-per-request workers' complete-and-claim
   * (0, the worker SDK's: when no job is ready the loop long-polls a claim instead).
   */
  nextWaitSeconds: number;
  /** BENCH_BATCH: jobs per `POST /jobs/batch` (and per graphile-worker `add_jobs`) in the batched modes. */
  batchSize: number;
  /** BENCH_PEER_CONCURRENCY: graphile-worker's `concurrency` (its pool holds as many connections). */
  peerConcurrency: number;
  /** BENCH_PGBOSS_WORKERS / BENCH_PGBOSS_BATCH: pg-boss `work()` loops and the `batchSize` each fetches per poll. */
  pgBossWorkers: number;
  pgBossBatch: number;
  /** BENCH_ONLY: parts of the e2e mode to run (default all). */
  parts: BenchPart[];
  /** BENCH_API_SECONDS / BENCH_API_CONNECTIONS: the API-alone mode's run per route. */
  apiSeconds: number;
  apiConnections: number;
  /** BENCH_API_ROUTES: only the API-mode routes whose name contains one of these (comma-separated). */
  apiRoutes: string[];
  /** BENCH_CPU_PROF: hub apps started with `--cpu-prof` (profiles land in bench/results/profiles). */
  cpuProfile: ProfiledApp[];
  /** BENCH_CPU_PROF_PHASE: record the profiles over this phase only (e2e: "peak" or "paced"; flows: "plain" or "flows"; default the whole run). */
  cpuProfilePhase: ProfiledPhase | null;
  /** BENCH_HUB_LOG_LEVEL: LOG_LEVEL of the hub's processes (default info, as in production). */
  hubLogLevel: string;
  /** `timed` mode (delayed jobs and schedules): see {@link TimedConfig}. */
  timed: TimedConfig;
  /** BENCH_FOOTPRINT_JOBS: jobs the `footprint` mode creates, holds queued, then completes. */
  footprintJobs: number;
  /** BENCH_FOOTPRINT_LOG_LINES: log lines each job of the `footprint` mode sends before it completes. */
  footprintLogLines: number;
  /** `scale` mode (a large history, lists, gauges and retention): see {@link ScaleConfig}. */
  scale: ScaleConfig;
  /** `burst` mode (a small and a large burst, then half load): see {@link BurstConfig}. */
  burst: BurstConfig;
  /** `keys` mode (limits per key and fair sharing under one big backlog): see {@link KeysConfig}. */
  keys: KeysConfig;
  /** `logs` mode (job logs, cancel signals, log streams): see {@link LogsConfig}. */
  logs: LogsConfig;
  /** `console` mode (the console in headless Chromium), and the scale mode's console measurement: see {@link ConsoleConfig}. */
  console: ConsoleConfig;
  /** `flows` mode (fan-outs with a fan-in against plain jobs, and the release of many dependents): see {@link FlowsConfig}. */
  flows: FlowsConfig;
  /** `alerts` mode (idle CPU with and without alert rules): see {@link AlertsConfig}. */
  alerts: AlertsConfig;
  /**
   * BENCH_TRACING_N: jobs of each `tracing` mode run (default BENCH_N, so that its tracing-off run is
   * the e2e mode's plain hub peak; a smoke run 50, to stay short).
   */
  tracingJobs: number;
  /** BENCH_PLAN_ROWS: `claim-plan` mode, the rows `jobs` holds at each plan (ascending). */
  claimPlanRows: number[];
  /**
   * BENCH_POSTGRES: "private" (default) measures on a PostgreSQL the run starts itself with
   * production settings (lib/postgres-server.ts); "shared" on the DATABASE_URL server.
   */
  postgres: "private" | "shared";
  /**
   * BENCH_REDIS: "private" (default) runs on a redis-server the run starts itself (no persistence),
   * so the `redis` CPU figure and the command counts are the run's own; "shared" on REDIS_URL,
   * whose figures include other users' commands.
   */
  redis: "private" | "shared";
  /** The server the run measures on and its settings, once run.ts started it. */
  postgresServer?: PostgresServerInfo;
  /** BENCH_KEEP_DB=1 keeps the run's databases for inspection. */
  keepDatabases: boolean;
  /** BENCH_KEEP_LOGS=1 keeps the hub's logs even when the audit passed (they are kept when it failed). */
  keepLogs: boolean;
  /** DATABASE_URL: the server the run's fresh databases are created on (its database name is ignored). */
  databaseServerUrl: string;
  redisUrl: string;
  resultsDir: string;
}

export const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number ≥ ${min} (got "${raw}")`);
  return value;
}

function numberVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name} must be a number in [${min}, ${max}] (got "${raw}")`);
  return value;
}

function listVar<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T[]): T[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const items = raw.split(",").map((item) => item.trim());
  const unknown = items.filter((item) => !allowed.includes(item as T));
  if (unknown.length > 0) throw new Error(`${name}: unknown ${unknown.join(", ")} (allowed: ${allowed.join(", ")})`);
  return items as T[];
}

export function loadBenchConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const smoke = argv.includes("--smoke");
  const mode: BenchMode = argv.includes("--api") ? "api" : (NAMED_MODES.find((name) => argv.includes(name)) ?? "e2e");
  const unknown = argv.filter((arg) => !(["--smoke", "--api", "e2e", ...NAMED_MODES] as readonly string[]).includes(arg));
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown.join(" ")} (usage: bench/run.ts [e2e|${NAMED_MODES.join("|")}] [--smoke])`);

  // Sized for about a minute of hub phases on the 2-core reference machine (~100 jobs/s at peak).
  const jobs = intVar(env, "BENCH_N", smoke ? 200 : 2500, 1);
  const limitsRaw = env.BENCH_LIMITS?.trim() || (smoke ? "2,4" : "2,4,8,16");
  const limits = limitsRaw.split(",").map((item) => {
    const value = Number(item);
    if (!Number.isInteger(value) || value < 1 || value > 1000) throw new Error(`BENCH_LIMITS: "${item}" is not an integer in [1, 1000]`);
    return value;
  });
  const rateRaw = env.BENCH_RATE;
  // POST /jobs/batch takes 1–500 jobs (CONTRACT §6.6).
  const batchSize = intVar(env, "BENCH_BATCH", smoke ? 20 : 100, 1);
  if (batchSize > 500) throw new Error(`BENCH_BATCH must be at most 500, the largest POST /jobs/batch (got ${batchSize})`);
  return {
    mode,
    smoke,
    jobs,
    creators: intVar(env, "BENCH_C", smoke ? 4 : 16, 1),
    automations: intVar(env, "BENCH_A", smoke ? 2 : 8, 1),
    limits,
    slotsOverLimit: intVar(env, "BENCH_SLOTS_OVER_LIMIT", 1, 0),
    loadFraction: numberVar(env, "BENCH_LOAD_FRACTION", 0.5, 0.01, 1),
    // A smoke run's figures mean nothing, so its latency phase is short and at a fixed rate.
    rate: rateRaw === undefined || rateRaw === "" ? (smoke ? 50 : undefined) : numberVar(env, "BENCH_RATE", 1, 0.1, 1_000_000),
    latencyJobs: intVar(env, "BENCH_LATENCY_N", smoke ? 50 : Math.max(1, Math.floor(jobs / 4)), 1),
    workMs: intVar(env, "BENCH_WORK_MS", 0, 0),
    leaseSeconds: intVar(env, "BENCH_LEASE_SECONDS", smoke ? 3 : 5, 1),
    dispatchShards: env.BENCH_DISPATCH_SHARDS ? intVar(env, "BENCH_DISPATCH_SHARDS", 1, 1) : undefined,
    slowJobs: intVar(env, "BENCH_SLOW_JOBS", smoke ? 1 : 5, 0),
    claimWaitSeconds: intVar(env, "BENCH_CLAIM_WAIT_SECONDS", 20, 0),
    nextWaitSeconds: Math.min(30, intVar(env, "BENCH_NEXT_WAIT_SECONDS", 0, 0)),
    batchSize,
    peerConcurrency: intVar(env, "BENCH_PEER_CONCURRENCY", 16, 1),
    pgBossWorkers: intVar(env, "BENCH_PGBOSS_WORKERS", 8, 1),
    pgBossBatch: intVar(env, "BENCH_PGBOSS_BATCH", 200, 1),
    parts: listVar(env, "BENCH_ONLY", BENCH_PARTS, [...BENCH_PARTS]),
    apiSeconds: intVar(env, "BENCH_API_SECONDS", smoke ? 1 : 10, 1),
    apiConnections: intVar(env, "BENCH_API_CONNECTIONS", smoke ? 4 : 32, 1),
    apiRoutes: (env.BENCH_API_ROUTES ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
    cpuProfile: listVar(env, "BENCH_CPU_PROF", ["api", "dispatcher", "relay"] as const, []),
    cpuProfilePhase: PROFILED_PHASES.find((phase) => phase === env.BENCH_CPU_PROF_PHASE) ?? null,
    hubLogLevel: env.BENCH_HUB_LOG_LEVEL || "info",
    timed: loadTimedConfig(env, smoke),
    footprintJobs: intVar(env, "BENCH_FOOTPRINT_JOBS", smoke ? 500 : 20_000, 1),
    footprintLogLines: intVar(env, "BENCH_FOOTPRINT_LOG_LINES", 20, 0),
    scale: {
      scale: numberVar(env, "BENCH_SCALE", 0.1, 0.0001, 10),
      rate: numberVar(env, "BENCH_SCALE_RATE", 50, 1, 10_000),
      phaseSeconds: intVar(env, "BENCH_SCALE_PHASE_SECONDS", 30, 5),
      requests: intVar(env, "BENCH_SCALE_REQUESTS", 300, 10),
      scrapes: intVar(env, "BENCH_SCALE_SCRAPES", 20, 2),
    },
    burst: loadBurstConfig(env, smoke),
    keys: {
      values: intVar(env, "BENCH_KEYS_VALUES", smoke ? 50 : 1000, 2),
      perKeyLimit: intVar(env, "BENCH_KEYS_PER_KEY", 2, 1),
      limit: intVar(env, "BENCH_KEYS_LIMIT", 32, 1),
      bigBacklog: intVar(env, "BENCH_KEYS_BIG", smoke ? 500 : 20_000, 1),
      smallJobs: intVar(env, "BENCH_KEYS_SMALL", smoke ? 4 : 20, 1),
      workers: intVar(env, "BENCH_KEYS_WORKERS", 8, 1),
      claimBatch: intVar(env, "BENCH_KEYS_CLAIM_BATCH", 8, 1),
      roundMs: (env.BENCH_KEYS_ROUND_MS ?? "") !== "" || smoke ? intVar(env, "BENCH_KEYS_ROUND_MS", 200, 0) : null,
      loadFraction: numberVar(env, "BENCH_KEYS_LOAD_FRACTION", 0.5, 0.01, 1),
    },
    logs: loadLogsConfig(env, smoke),
    console: {
      automations: intVar(env, "BENCH_CONSOLE_AUTOMATIONS", smoke ? 50 : 1000, 1),
      jobs: intVar(env, "BENCH_CONSOLE_JOBS", smoke ? 2000 : 200_000, 1),
      loads: intVar(env, "BENCH_CONSOLE_LOADS", smoke ? 2 : 7, 1),
    },
    flows: loadFlowsConfig(env, smoke),
    tracingJobs: intVar(env, "BENCH_TRACING_N", smoke ? 50 : jobs, 1),
    alerts: {
      rules: intVar(env, "BENCH_ALERTS_RULES", smoke ? 20 : 100, 0),
      automations: intVar(env, "BENCH_ALERTS_AUTOMATIONS", smoke ? 5 : 20, 1),
      firing: intVar(env, "BENCH_ALERTS_FIRING", smoke ? 2 : 3, 0),
      seconds: intVar(env, "BENCH_ALERTS_SECONDS", smoke ? 3 : 60, 1),
    },
    claimPlanRows: (env.BENCH_PLAN_ROWS?.trim() || (smoke ? "1000,20000" : "1000,80000,500000")).split(",").map((item) => {
      const value = Number(item);
      if (!Number.isInteger(value) || value < 0) throw new Error(`BENCH_PLAN_ROWS: "${item}" is not a whole number`);
      return value;
    }),
    postgres: listVar(env, "BENCH_POSTGRES", ["private", "shared"] as const, ["private"])[0]!,
    redis: listVar(env, "BENCH_REDIS", ["private", "shared"] as const, ["private"])[0]!,
    keepDatabases: env.BENCH_KEEP_DB === "1",
    keepLogs: env.BENCH_KEEP_LOGS === "1",
    databaseServerUrl: env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
    redisUrl: env.REDIS_URL || "redis://127.0.0.1:6379",
    resultsDir: path.join(BENCH_DIR, "results"),
  };
}

/**
 * Sized so that the whole `timed` run stays under 8 minutes on the 2-core machine: 100,000 jobs
 * and 1,000 schedules due within 5 minutes, the first 2 of which are the idle window.
 */
function loadTimedConfig(env: NodeJS.ProcessEnv, smoke: boolean): TimedConfig {
  const waitSeconds = intVar(env, "BENCH_TIMED_WAIT_SECONDS", smoke ? 5 : 120, 1);
  const spanSeconds = intVar(env, "BENCH_TIMED_SPAN_SECONDS", smoke ? 20 : 300, 1);
  if (spanSeconds <= waitSeconds) throw new Error(`BENCH_TIMED_SPAN_SECONDS (${spanSeconds}) must exceed BENCH_TIMED_WAIT_SECONDS (${waitSeconds})`);
  const setupRaw = env.BENCH_TIMED_SETUP_SECONDS;
  return {
    jobs: intVar(env, "BENCH_TIMED_JOBS", smoke ? 300 : 100_000, 1),
    schedules: intVar(env, "BENCH_TIMED_SCHEDULES", smoke ? 10 : 1000, 0),
    setupSeconds: setupRaw === undefined || setupRaw === "" ? undefined : intVar(env, "BENCH_TIMED_SETUP_SECONDS", 0, 1),
    waitSeconds,
    spanSeconds,
    automations: intVar(env, "BENCH_TIMED_AUTOMATIONS", smoke ? 2 : 8, 1),
    limit: intVar(env, "BENCH_TIMED_LIMIT", smoke ? 10 : 100, 1),
    workers: intVar(env, "BENCH_TIMED_WORKERS", smoke ? 4 : 64, 1),
  };
}

/**
 * Full size: the 2,500- and 40,000-job bursts (on the shared 2-core machine about 6 minutes batched
 * with graphile-worker, 10–20 one job per request); smoke: a few hundred jobs, to prove the mode runs.
 */
function loadBurstConfig(env: NodeJS.ProcessEnv, smoke: boolean): BurstConfig {
  return {
    scale: numberVar(env, "BENCH_BURST_SCALE", 1, 0.001, 10),
    smallJobs: intVar(env, "BENCH_BURST_SMALL", smoke ? 100 : 2500, 1),
    largeJobs: intVar(env, "BENCH_BURST_LARGE", smoke ? 400 : 40_000, 1),
    halfLoadJobs: intVar(env, "BENCH_BURST_HALF_N", smoke ? 50 : 6000, 1),
    warmupJobs: intVar(env, "BENCH_BURST_WARMUP", smoke ? 20 : 300, 1),
    limit: intVar(env, "BENCH_BURST_LIMIT", 8, 1),
    claimBatch: intVar(env, "BENCH_BURST_CLAIM_BATCH", 20, 1),
    leaseSeconds: intVar(env, "BENCH_BURST_LEASE_SECONDS", JOB_DEFAULTS.leaseSeconds, 1),
    protocols: listVar(env, "BENCH_BURST_PROTOCOLS", BURST_PROTOCOLS, [...BURST_PROTOCOLS]),
  };
}

/** Full size: the 1,000 running jobs over 50 workers, 50 and 500 streams; smoke: enough to prove each part runs. */
function loadLogsConfig(env: NodeJS.ProcessEnv, smoke: boolean): LogsConfig {
  const streamCounts = (env.BENCH_LOGS_STREAMS?.trim() || (smoke ? "4" : "50,500")).split(",").map((item) => {
    const value = Number(item);
    if (!Number.isInteger(value) || value < 1) throw new Error(`BENCH_LOGS_STREAMS: "${item}" is not a whole number ≥ 1`);
    return value;
  });
  return {
    peakJobs: intVar(env, "BENCH_LOGS_N", smoke ? 40 : 2000, 1),
    linesPerJob: intVar(env, "BENCH_LOGS_LINES", 20, 1),
    pacedJobs: intVar(env, "BENCH_LOGS_PACED_N", smoke ? 20 : 600, 1),
    followedJobs: intVar(env, "BENCH_LOGS_FOLLOWED", smoke ? 2 : 30, 1),
    followedLines: intVar(env, "BENCH_LOGS_FOLLOWED_LINES", smoke ? 3 : 10, 1),
    cancelJobs: intVar(env, "BENCH_LOGS_CANCEL_JOBS", smoke ? 16 : 1000, 2),
    cancelWorkers: intVar(env, "BENCH_LOGS_CANCEL_WORKERS", smoke ? 4 : 50, 1),
    streamCounts: streamCounts.sort((a, b) => a - b),
  };
}

/** Full size: the 100 fan-outs of 100 with a fan-in each, and 1,000 dependents of one job; smoke: enough to prove each part runs. */
function loadFlowsConfig(env: NodeJS.ProcessEnv, smoke: boolean): FlowsConfig {
  const width = intVar(env, "BENCH_FLOW_WIDTH", smoke ? 10 : 100, 1);
  if (width > 100)
    throw new Error(`BENCH_FLOW_WIDTH must be at most 100: the fan-in depends on every job of the fan-out, and depends_on takes 0–100 items (got ${width})`);
  return {
    fanouts: intVar(env, "BENCH_FLOW_FANOUTS", smoke ? 5 : 100, 1),
    width,
    releaseDependents: intVar(env, "BENCH_FLOW_RELEASE", smoke ? 100 : 1000, 0),
    limit: intVar(env, "BENCH_FLOW_LIMIT", 16, 1),
    claimBatch: intVar(env, "BENCH_FLOW_CLAIM_BATCH", 20, 1),
    creators: intVar(env, "BENCH_FLOW_CREATORS", 4, 1),
  };
}
