/**
 * The hub as separate processes for system tests ({@link HubProcesses}): a fresh database, the
 * real API and dispatchers as child processes, an admin token, and helpers that set up
 * automations, workers and jobs through the public HTTP API only.
 *
 * `useSystemHub` registers the file's hooks: the hub starts in beforeAll and is stopped in
 * afterAll (its database dropped, its Redis keys deleted). When a test fails, the tail of every
 * process's log is written to stderr and the log directory is kept.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import { openDatabase, type Database } from "@hub/db";
import { connectRedis, parseEnv, redisEnvSchema, redisSetup, type JobStatus, type RedisKeys, type RedisTarget } from "@hub/shared";
import {
  startPrivatePostgres,
  startPrivateRedis,
  startPrivateRedisCluster,
  type PrivatePostgres,
  type PrivateRedis,
  type PrivateRedisCluster,
} from "@hub/test-services";
import { testServiceUrls } from "@hub/test-services/vitest";
import { HubClient } from "./hub-client";
import { HubProcesses, type HubProcessesOptions } from "./hub-processes";
import { eventually } from "./polling";
import { deleteRedisKeys } from "./redis-cleanup";
import { createTestDatabase, type TestDatabase } from "./test-database";

/** The processes to run (as {@link HubProcessesOptions} says), and on which servers. */
export interface SystemHubOptions extends Pick<HubProcessesOptions, "apis" | "dispatchers" | "relays" | "env" | "dispatcherEnv" | "runBuilt"> {
  /**
   * Runs the hub on a Redis Cluster of its own (3 masters, no replicas, `cluster-node-timeout`
   * `nodeTimeoutMs`, default 1000), which the test may wreck (kill a master): REDIS_CLUSTER_NODES.
   */
  redisCluster?: boolean | { masters?: number; nodeTimeoutMs?: number };
  /** Runs the hub on a redis-server of its own, which the test may wreck (FLUSHDB); default the shared test server. */
  privateRedis?: boolean;
  /** Runs the hub on a PostgreSQL cluster of its own, which the test may stop and start; default the shared test server. */
  privatePostgres?: boolean;
}

export interface SystemAutomation {
  automationId: string;
  workerId: string;
  /** The worker's api key (X-Worker-Api-Key). */
  workerKey: string;
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
  /** The hub's own Redis Cluster when started with `redisCluster`. */
  redisCluster: PrivateRedisCluster | undefined;
  /** Where the hub's Redis is (connectRedis connects to it, a cluster or not). */
  redisTarget: RedisTarget;
  /** The hub's own PostgreSQL cluster when started with `privatePostgres`. */
  privatePostgres: PrivatePostgres | undefined;
  /** `settings`: more fields of the POST /automations body (retry settings of CONTRACT §6.4). */
  createAutomationWithWorker(options?: { maxConcurrentJobs?: number; settings?: Record<string, unknown> }): Promise<SystemAutomation>;
  /** POST /jobs once, as `token` (default the admin); returns the new job's id. */
  createJob(automationId: string, context?: Record<string, unknown>, token?: string): Promise<string>;
  /** POST /jobs `count` times (job `i` with the context `{index: i}`), `parallel` at once (1 keeps creation order = array order). */
  createJobs(automationId: string, count: number, options?: { parallel?: number }): Promise<string[]>;
  /** GET /jobs/{id} as the admin. */
  readJob<Job = any>(jobId: string): Promise<Job>;
  /** How many jobs of these automations are in each status. */
  statusCounts(automationIds: string[]): Promise<Partial<Record<JobStatus, number>>>;
  /**
   * Resolves once the dispatchers have offered `count` jobs of the automation (its ready set
   * holds them), so that a claim made next sees all of them.
   */
  waitUntilOffered(automationId: string, count: number): Promise<void>;
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
  redisCluster: PrivateRedisCluster | undefined,
): Promise<SystemHub> {
  const processOptions: HubProcessesOptions = {
    databaseUrl: testDatabase.url,
    redisUrl: privateRedis?.url ?? testServiceUrls().redisUrl,
    apis: options.apis ?? 1,
    dispatchers: options.dispatchers ?? 1,
    relays: options.relays ?? 0,
    env: { ...(redisCluster ? { REDIS_CLUSTER_NODES: redisCluster.seedNodes.join(",") } : {}), ...options.env },
    dispatcherEnv: options.dispatcherEnv ?? {},
    runBuilt: options.runBuilt ?? false,
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
  // Read from the processes' own environment, parsed as they parse it: the same Redis, the same key layout.
  const { target: redisTarget, keys } = redisSetup(parseEnv(redisEnvSchema, processes.env));
  const asAdmin = { token: adminToken };
  const createJob = async (automationId: string, context: Record<string, unknown> = {}, token = adminToken) => {
    const created = await expectStatus("POST /jobs", client.post<{ id: string }>("/jobs", { automation_id: automationId, context }, { token }), 201);
    return created.id;
  };

  return {
    processes,
    client,
    adminToken,
    database,
    keys,
    privateRedis,
    privatePostgres,
    redisCluster,
    redisTarget,
    async createAutomationWithWorker({ maxConcurrentJobs = 1, settings = {} } = {}) {
      slugSequence += 1;
      const slug = `system-${process.pid}-${slugSequence}`;
      const sector = await expectStatus("POST /sectors", client.post<{ id: string }>("/sectors", { name: slug, color: "#336699" }, asAdmin), 201);
      const automation = await expectStatus(
        "POST /automations",
        client.post<{ id: string }>("/automations", { name: slug, slug, sector_id: sector.id, max_concurrent_jobs: maxConcurrentJobs, ...settings }, asAdmin),
        201,
      );
      const credentials = await expectStatus(
        "POST /automations/{id}/worker",
        client.post<{ id: string; api_key: string }>(`/automations/${automation.id}/worker`, { cloud_instance_id: "i-system-test" }, asAdmin),
        201,
      );
      return { automationId: automation.id, workerId: credentials.id, workerKey: credentials.api_key };
    },
    createJob,
    async createJobs(automationId, count, { parallel = 8 } = {}) {
      const ids: string[] = new Array(count);
      let next = 0;
      const lane = async () => {
        while (next < count) {
          const index = next++;
          ids[index] = await createJob(automationId, { index });
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, count) }, lane));
      return ids;
    },
    readJob: (jobId) => expectStatus(`GET /jobs/${jobId}`, client.get(`/jobs/${jobId}`, asAdmin), 200),
    async statusCounts(automationIds) {
      const { rows } = await database.pool.query<{ status: JobStatus; count: number }>(
        "select status, count(*)::int as count from jobs where automation_id = any($1::uuid[]) group by 1",
        [automationIds],
      );
      return Object.fromEntries(rows.map((row) => [row.status, row.count]));
    },
    async waitUntilOffered(automationId, count) {
      const redis = connectRedis(redisTarget, "system-test-ready-set");
      try {
        await eventually(
          `${count} jobs of ${automationId} offered`,
          () => redis.zcard(keys.readyJobs(automationId)),
          (offered) => offered >= count,
        );
      } finally {
        redis.disconnect();
      }
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
  let redisCluster: PrivateRedisCluster | undefined;
  let failed = false;

  beforeAll(async () => {
    if (options.privatePostgres) privatePostgres = await startPrivatePostgres();
    testDatabase = await createTestDatabase(privatePostgres?.serverUrl ?? testServiceUrls().databaseServerUrl);
    if (options.privateRedis) privateRedis = await startPrivateRedis();
    if (options.redisCluster) redisCluster = await startPrivateRedisCluster(options.redisCluster === true ? {} : options.redisCluster);
    hub = await startSystemHub(options, testDatabase, privateRedis, privatePostgres, redisCluster);
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
      if (!privateRedis && !redisCluster) await deleteRedisKeys(testServiceUrls().redisUrl, hub.processes.env.HUB_REDIS_PREFIX!);
      if (failed) process.stderr.write(`kept the hub's logs in ${hub.processes.logDir}\n`);
      else hub.processes.removeLogs();
    }
    await privateRedis?.stop();
    await redisCluster?.stop();
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
