/**
 * The hub as separate processes for system tests (tooling/hub-processes): a fresh database, the
 * real API and dispatchers as child processes, an admin token, and helpers that set up
 * automations, workers and jobs through the public HTTP API only.
 *
 * `useSystemHub` registers the file's hooks: the hub starts in beforeAll and is stopped in
 * afterAll (its database dropped, its Redis keys deleted). When a test fails, the tail of every
 * process's log is written to stderr and the log directory is kept.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll } from "vitest";
import { openDatabase, type Database } from "@hub/db";
import { createTestDatabase, type TestDatabase } from "@hub/db/testing";
import { testServiceUrls } from "@hub/db/testing/inject";
import { HubWorkerClient, runWorker, type HubJob, type WorkerEvent } from "@hub/reference-worker";
import { createRedis, redisKeys, type JobStatus, type RedisKeys } from "@hub/shared";
import { HubClient } from "../../../api/test/harness";
import {
  HubProcesses,
  startPrivatePostgres,
  startPrivateRedis,
  type HubProcessesOptions,
  type PrivatePostgres,
  type PrivateRedis,
} from "../../../../tooling/hub-processes";
import type { CompletionLedger } from "./audit";

export interface SystemHubOptions {
  /** Default 1. */
  dispatchers?: number;
  /** Variables for every process (HUB_JOB_LEASE_SECONDS…). */
  env?: Record<string, string>;
  dispatcherEnv?: Record<string, string>;
  /** Runs the hub on a redis-server of its own, which the test may wreck (FLUSHDB); default the shared test server. */
  privateRedis?: boolean;
  /** Runs the hub on a PostgreSQL cluster of its own, which the test may stop and start; default the shared test server. */
  privatePostgres?: boolean;
  /** Event relays; default 0. */
  relays?: number;
}

export interface SystemAutomation {
  automationId: string;
  workerId: string;
  /** The worker's api key, for a worker run as a separate process. */
  workerKey: string;
  /** A client of the worker protocol holding the automation's worker key. */
  worker: HubWorkerClient;
}

export interface SystemHub {
  processes: HubProcesses;
  /** Talks to the API process. */
  client: HubClient;
  adminToken: string;
  /** A direct connection to the hub's database, for the audit and the concurrency sampler. */
  database: Database;
  keys: RedisKeys;
  /** The hub's own redis-server when started with `privateRedis`. */
  privateRedis: PrivateRedis | undefined;
  /** The hub's own PostgreSQL cluster when started with `privatePostgres`. */
  privatePostgres: PrivatePostgres | undefined;
  /** `settings`: more fields of the POST /automations body (retry settings of CONTRACT §6.4). */
  createAutomationWithWorker(options?: { maxConcurrentJobs?: number; settings?: Record<string, unknown> }): Promise<SystemAutomation>;
  /** POST /jobs `count` times, `parallel` at once (1 keeps creation order = array order). */
  createJobs(automationId: string, count: number, options?: { parallel?: number }): Promise<string[]>;
  /** GET /jobs/{id} as the admin. */
  readJob(jobId: string): Promise<HubJob>;
  /** How many jobs of these automations are in each status. */
  statusCounts(automationIds: string[]): Promise<Partial<Record<JobStatus, number>>>;
}

/**
 * Generous bounds, not expectations: on an idle 2-core machine each test takes 2–15 s, but other
 * suites may share the cores.
 */
export const SYSTEM_TEST_TIMEOUT_MS = 90_000;
/** How long a test waits for all its jobs to finish. */
export const DRAIN_TIMEOUT_MS = 60_000;

let slugSequence = 0;

async function expectStatus<T>(what: string, call: Promise<{ status: number; body: T }>, expected: number): Promise<T> {
  const answer = await call;
  if (answer.status !== expected) throw new Error(`${what}: expected ${expected}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function startSystemHub(
  options: SystemHubOptions,
  testDatabase: TestDatabase,
  privateRedis: PrivateRedis | undefined,
  privatePostgres: PrivatePostgres | undefined,
): Promise<SystemHub> {
  const processOptions: HubProcessesOptions = {
    databaseUrl: testDatabase.url,
    redisUrl: privateRedis?.url ?? testServiceUrls().redisUrl,
    dispatchers: options.dispatchers ?? 1,
    relays: options.relays ?? 0,
    env: options.env ?? {},
    dispatcherEnv: options.dispatcherEnv ?? {},
  };
  const processes = await HubProcesses.start(processOptions);
  const client = new HubClient(processes.apiUrl);
  let adminToken: string;
  try {
    adminToken = await client.login(processes.admin.email, processes.admin.password);
  } catch (error) {
    await processes.stopAll();
    throw error;
  }
  const database = openDatabase(testDatabase.url, { max: 4, applicationName: "system-test-audit" });
  const asAdmin = { token: adminToken };

  return {
    processes,
    client,
    adminToken,
    database,
    keys: redisKeys(processes.env.HUB_REDIS_PREFIX!),
    privateRedis,
    privatePostgres,
    async createAutomationWithWorker({ maxConcurrentJobs = 1, settings = {} } = {}) {
      slugSequence += 1;
      const slug = `system-${process.pid}-${slugSequence}`;
      const sector = await expectStatus("POST /sectors", client.post<{ id: string }>("/sectors", { name: slug, color: "#336699" }, asAdmin), 201);
      const automation = await expectStatus(
        "POST /automations",
        client.post<{ id: string }>(
          "/automations",
          { name: slug, slug, sector_id: sector.id, max_concurrent_jobs: maxConcurrentJobs, ...settings },
          asAdmin,
        ),
        201,
      );
      const credentials = await expectStatus(
        "POST /automations/{id}/worker",
        client.post<{ id: string; api_key: string }>(`/automations/${automation.id}/worker`, { cloud_instance_id: "i-system-test" }, asAdmin),
        201,
      );
      return {
        automationId: automation.id,
        workerId: credentials.id,
        workerKey: credentials.api_key,
        worker: new HubWorkerClient({ baseUrl: processes.apiUrl, apiKey: credentials.api_key }),
      };
    },
    async createJobs(automationId, count, { parallel = 8 } = {}) {
      const ids: string[] = new Array(count);
      let next = 0;
      const lane = async () => {
        while (next < count) {
          const index = next++;
          const created = await expectStatus(
            "POST /jobs",
            client.post<{ id: string }>("/jobs", { automation_id: automationId, context: { index } }, asAdmin),
            201,
          );
          ids[index] = created.id;
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, count) }, lane));
      return ids;
    },
    readJob: (jobId) => expectStatus(`GET /jobs/${jobId}`, client.get<HubJob>(`/jobs/${jobId}`, asAdmin), 200),
    async statusCounts(automationIds) {
      const { rows } = await database.pool.query<{ status: JobStatus; count: number }>(
        "select status, count(*)::int as count from jobs where automation_id = any($1::uuid[]) group by 1",
        [automationIds],
      );
      return Object.fromEntries(rows.map((row) => [row.status, row.count]));
    },
  };
}

/**
 * One hub for the test file: started in beforeAll, stopped in afterAll. Returns a getter (the hub
 * exists only once beforeAll ran).
 */
export function useSystemHub(options: SystemHubOptions = {}): () => SystemHub {
  let hub: SystemHub | undefined;
  let testDatabase: TestDatabase | undefined;
  let privateRedis: PrivateRedis | undefined;
  let privatePostgres: PrivatePostgres | undefined;
  let failed = false;

  beforeAll(async () => {
    if (options.privatePostgres) privatePostgres = await startPrivatePostgres();
    testDatabase = await createTestDatabase(privatePostgres?.serverUrl ?? testServiceUrls().databaseServerUrl);
    if (options.privateRedis) privateRedis = await startPrivateRedis();
    hub = await startSystemHub(options, testDatabase, privateRedis, privatePostgres);
  }, 120_000);

  afterEach((context) => {
    if (context.task.result?.state !== "fail" || !hub) return;
    failed = true;
    process.stderr.write(`\n${context.task.name} failed; the hub's processes said:\n${hub.processes.diagnostics()}\n`);
  });

  afterAll(async () => {
    let unclean: string[] = [];
    if (hub) {
      const exits = await hub.processes.stopAll();
      // Every app must stop cleanly on SIGTERM (exit 0), whatever the tests did to the others.
      unclean = [...exits].filter(([, exit]) => exit?.code !== 0).map(([name, exit]) => `${name} exited ${JSON.stringify(exit)} on SIGTERM`);
      if (unclean.length > 0) {
        failed = true;
        process.stderr.write(`\n${unclean.join("; ")}; the hub's processes said:\n${hub.processes.diagnostics()}\n`);
      }
      await hub.database.close();
      if (!privateRedis) await deleteRedisKeys(testServiceUrls().redisUrl, hub.processes.env.HUB_REDIS_PREFIX!);
      if (failed) process.stderr.write(`kept the hub's logs in ${hub.processes.logDir}\n`);
      else hub.processes.removeLogs();
    }
    await privateRedis?.stop();
    // A private cluster goes as a whole; dropping its database first would only cost time.
    if (privatePostgres) await privatePostgres.stop();
    else await testDatabase?.drop();
    if (unclean.length > 0) throw new Error(unclean.join("; "));
  }, 60_000);

  return () => {
    if (!hub) throw new Error("the system hub is not running (did beforeAll fail?)");
    return hub;
  };
}

async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = createRedis(redisUrl, "system-test-cleanup");
  try {
    const owned = await redis.keys(`${prefix}:*`);
    if (owned.length > 0) await redis.del(...owned);
  } finally {
    redis.disconnect();
  }
}

export interface RunningWorker {
  /** Every event the worker loop reported, in order. */
  events: WorkerEvent[];
  /** Stops claiming, lets the jobs in hand finish and be reported, and resolves when done. */
  stop(): Promise<void>;
}

/**
 * Runs the reference worker loop in this process for one automation: `concurrency` claim loops,
 * each job "working" for `workMs` (a [min, max] range picks at random) and completing with a
 * result unique to that run, recorded in `ledger` when the hub accepts it.
 */
export function startWorker(
  automation: SystemAutomation,
  options: { concurrency: number; workMs: number | [number, number]; ledger: CompletionLedger; waitSeconds?: number },
): RunningWorker {
  const stop = new AbortController();
  const events: WorkerEvent[] = [];
  const [minMs, maxMs] = typeof options.workMs === "number" ? [options.workMs, options.workMs] : options.workMs;
  const running = runWorker({
    client: automation.worker,
    concurrency: options.concurrency,
    waitSeconds: options.waitSeconds ?? 2,
    signal: stop.signal,
    onEvent: (event) => {
      events.push(event);
      options.ledger.onWorkerEvent(event);
    },
    handler: async (job, { signal }) => {
      await sleep(minMs + Math.random() * (maxMs - minMs), signal);
      return { job_id: job.id, run: randomUUID() };
    },
  });
  return {
    events,
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Polls `probe` until `accept` holds; throws, naming what it waited for, after `timeoutMs`. */
export async function eventually<T>(description: string, probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${description}; last seen: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

/** The sum of a metric's samples whose labels include `labels`, from a Prometheus text exposition; 0 when none. */
export async function readMetric(metricsUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  let sum = 0;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? "").split(",");
    if (wanted.every((label) => present.includes(label))) sum += Number(match[3]);
  }
  return sum;
}
