/**
 * `pnpm bench api`: the API alone (no dispatcher, no relay) under autocannon, one route at a time,
 * reporting requests/s, latency percentiles and the API's CPU time per request. GET /healthz,
 * which touches neither PostgreSQL nor Redis, is the framework's floor the other routes compare to.
 */
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { createTestDatabase, deleteRedisKeys, HubProcesses } from "@hub/testing";
import { profileEnv } from "./hub";
import { seedHub, type HubSeed } from "./hub/hub-target";
import type { BenchConfig } from "./lib/config";
import { cpuSecondsBetween, snapshotCpu } from "./lib/cpu";
import { JsonClient } from "./lib/http";
import { CONTEXT_PARAMETER, planWorkload } from "./lib/plan";
import { busyWarning, describeMachine, writeReport, type MachineInfo } from "./lib/report";

interface RouteSpec {
  name: string;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Connections for this route instead of BENCH_API_CONNECTIONS (a route whose server-side concurrency is bounded). */
  connections?: number;
  /** One request per path, each sent once (a route that changes what it answers: each complete needs its own running job). */
  paths?: string[];
}

export interface RouteResult {
  route: string;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  /** CPU milliseconds the API process spent per request. */
  apiCpuMsPerRequest: number;
  /** CPU milliseconds all PostgreSQL processes spent per request. */
  postgresCpuMsPerRequest: number;
}

export interface ApiReport {
  mode: "api";
  startedAt: string;
  machine: MachineInfo;
  seconds: number;
  connections: number;
  routes: RouteResult[];
  peakRssMiB: Record<string, number>;
  auditPassed: boolean;
}

/** Jobs created before the run, so the GET routes read a table that is not empty. */
const seedJobs = (config: BenchConfig) => (config.smoke ? 50 : 500);

/**
 * Running jobs set up for the complete route, each completed once (so that is its request count,
 * whatever BENCH_API_SECONDS says): fewer than the seeded jobs, which are what gets claimed.
 */
const runningJobs = (config: BenchConfig) => (config.smoke ? 20 : 400);

function routesOf(seed: HubSeed, jobId: string, admin: { email: string; password: string }): RouteSpec[] {
  const bearer = { authorization: `Bearer ${seed.creatorToken}` };
  const json = { "content-type": "application/json" };
  const automationId = seed.automationIds[0]!;
  const createJob = JSON.stringify({ automation_id: automationId, context: { [CONTEXT_PARAMETER]: "inv-api-bench" } });
  return [
    { name: "GET /healthz", method: "GET", path: "/healthz", headers: {} },
    // A right password: the throttle's PostgreSQL statements (CONTRACT §6.15) and one bcrypt compare, which bounds it.
    // Four connections: the API hashes at most 3 passwords at once (2 cores) and answers 503 to a
    // login that waits over 2 s, which 32 connections of back-to-back logins would make most of them.
    { name: "POST /identity/token", method: "POST", path: "/identity/token", headers: json, body: JSON.stringify(admin), connections: 4 },
    { name: "POST /jobs", method: "POST", path: "/jobs", headers: { ...bearer, ...json }, body: createJob },
    // The same producer with its api key (CONTRACT §6.10): a digest lookup joined with the user instead of a JWT check.
    { name: "POST /jobs (api key)", method: "POST", path: "/jobs", headers: { authorization: `Bearer ${seed.creatorApiKey}`, ...json }, body: createJob },
    { name: "GET /jobs/{id}", method: "GET", path: `/jobs/${jobId}`, headers: bearer },
    { name: "GET /jobs?limit=100", method: "GET", path: "/jobs?limit=100", headers: bearer },
    { name: "GET /automations/{id}", method: "GET", path: `/automations/${automationId}`, headers: bearer },
    { name: "GET /events?aggregate_id=", method: "GET", path: `/events?aggregate_id=${jobId}`, headers: bearer },
    {
      // No dispatcher runs, so nothing is ready: the claim's whole path short of a transaction.
      name: "POST /jobs/claim (none ready)",
      method: "POST",
      path: "/jobs/claim",
      headers: { "x-worker-api-key": seed.workerKeys[0]!, ...json },
      body: JSON.stringify({ wait_seconds: 0 }),
    },
  ];
}

/** The routes of running jobs, measured after a dispatcher made the jobs ready and they were claimed. */
function runningJobRoutes(seed: HubSeed, running: ClaimedJob[]): RouteSpec[] {
  const worker = { "x-worker-api-key": seed.workerKeys[0]!, "content-type": "application/json" };
  const [heartbeated, ...completed] = running;
  return [
    // The same job's lease extended again and again: one row update per request.
    {
      name: "POST /jobs/{id}/heartbeat",
      method: "POST",
      path: `/jobs/${heartbeated!.id}/heartbeat`,
      headers: worker,
      body: JSON.stringify({ attempt: heartbeated!.attempts }),
    },
    {
      name: "POST /jobs/{id}/complete",
      method: "POST",
      path: `/jobs/${completed[0]!.id}/complete`,
      headers: worker,
      body: JSON.stringify({ result: { rows: 1 } }),
      paths: completed.map((job) => `/jobs/${job.id}/complete`),
    },
  ];
}

interface ClaimedJob {
  id: string;
  attempts: number;
}

/** Starts a dispatcher (the API alone readies no job) and claims `count` jobs with POST /jobs/claim-batch. */
async function claimRunningJobs(hub: HubProcesses, seed: HubSeed, count: number): Promise<ClaimedJob[]> {
  await hub.addDispatcher();
  const http = new JsonClient(hub.apiUrl, 4);
  const claimed: ClaimedJob[] = [];
  try {
    const deadline = Date.now() + 120_000;
    while (claimed.length < count) {
      if (Date.now() > deadline) throw new Error(`bench: only ${claimed.length} of ${count} jobs could be claimed`);
      const answer = await http.exchange("POST", "/jobs/claim-batch", {
        headers: { "x-worker-api-key": seed.workerKeys[0]! },
        body: { max_jobs: Math.min(100, count - claimed.length), wait_seconds: 1 },
      });
      if (answer.status === 200) claimed.push(...(JSON.parse(answer.text) as { jobs: ClaimedJob[] }).jobs);
      else if (answer.status !== 204) throw new Error(`bench: POST /jobs/claim-batch answered ${answer.status}: ${answer.text}`);
    }
  } finally {
    await http.close();
  }
  return claimed;
}

async function measureRoute(apiUrl: string, route: RouteSpec, config: BenchConfig, apiPid: number | undefined): Promise<RouteResult> {
  const before = snapshotCpu({ api: apiPid });
  const paths = route.paths ? [...route.paths] : undefined;
  const result = await autocannon({
    url: `${apiUrl}${route.path}`,
    method: route.method,
    headers: route.headers,
    body: route.body,
    connections: route.connections ?? config.apiConnections,
    duration: config.apiSeconds,
    ...(paths && {
      amount: paths.length,
      requests: [{ setupRequest: (request: { path?: string }) => ({ ...request, path: paths.shift() ?? route.path }) }],
    }),
  });
  const cpu = cpuSecondsBetween(before, snapshotCpu({ api: apiPid }));
  const requests = result.requests.total;
  return {
    route: route.name,
    requests,
    requestsPerSecond: requests / result.duration,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    apiCpuMsPerRequest: ((cpu.api ?? Number.NaN) * 1000) / requests,
    postgresCpuMsPerRequest: ((cpu.postgres ?? Number.NaN) * 1000) / requests,
  };
}

function render(report: ApiReport): string {
  const floor = report.routes.find((route) => route.route === "GET /healthz");
  const header = ["route", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "api CPU ms/req", "pg CPU ms/req", "÷ healthz", "non-2xx", "errors"];
  const rows = [
    header,
    ...report.routes.map((route) => [
      route.route,
      route.requestsPerSecond.toFixed(0),
      String(route.latencyMs.p50),
      String(route.latencyMs.p90),
      String(route.latencyMs.p99),
      String(route.latencyMs.max),
      route.apiCpuMsPerRequest.toFixed(2),
      route.postgresCpuMsPerRequest.toFixed(2),
      floor ? `${(route.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}×` : "–",
      String(route.non2xx),
      String(route.errors + route.timeouts),
    ]),
  ];
  const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = [
    `Automation Hub benchmark (API alone) — ${report.connections} connections × ${report.seconds} s per route · ${report.machine.cpus} cores, ${(100 * report.machine.busyBeforeStart).toFixed(0)}% busy before the start`,
    ...(busyWarning(report.machine) ? [busyWarning(report.machine)!] : []),
    "",
    ...rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ")),
    "",
    `API peak RSS: ${Object.entries(report.peakRssMiB)
      .map(([name, mib]) => `${name} ${mib.toFixed(0)} MiB`)
      .join(", ")}`,
    `audit: ${report.auditPassed ? "every response 2xx, no connection error" : "FAILED: some responses were not 2xx or connections failed"}`,
  ];
  return lines.join("\n");
}

export async function runApiMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const machine = await describeMachine();
  const database = await createTestDatabase(config.databaseServerUrl);
  const redisPrefix = `bench-${randomBytes(4).toString("hex")}`;
  let hub: HubProcesses | undefined;
  try {
    console.error("bench: starting the API alone");
    hub = await HubProcesses.start({
      databaseUrl: database.url,
      redisUrl: config.redisUrl,
      redisPrefix,
      dispatchers: 0,
      relays: 0,
      logLevel: config.hubLogLevel,
      runBuilt: true,
      apiEnv: profileEnv(config, "api"),
    });
    // Room for every job the complete route completes to run at once.
    const plan = planWorkload({ ...config, automations: 1, limits: [runningJobs(config) + 1] }, randomBytes(3).toString("hex"));
    const seed = await seedHub(hub.apiUrl, hub.admin, plan);
    const http = new JsonClient(hub.apiUrl, 8);
    let jobId = "";
    try {
      for (let i = 0; i < seedJobs(config); i++) {
        const created = await http.send<{ id: string }>("POST", "/jobs", {
          token: seed.creatorToken,
          body: { automation_id: seed.automationIds[0], context: { [CONTEXT_PARAMETER]: `inv-seed-${i}` } },
          expected: 201,
        });
        jobId = created.id;
      }
    } finally {
      await http.close();
    }
    const routes: RouteResult[] = [];
    const chosen = (route: RouteSpec) => config.apiRoutes.length === 0 || config.apiRoutes.some((wanted) => route.name.includes(wanted));
    const measure = async (route: RouteSpec) => {
      console.error(`bench: ${route.name}`);
      routes.push(await measureRoute(hub!.apiUrl, route, config, hub!.api.pid));
    };
    for (const route of routesOf(seed, jobId, hub.admin).filter(chosen)) await measure(route);
    // Last: the dispatcher they need would make the "none ready" claim find jobs.
    const placeholder = [
      { id: jobId, attempts: 1 },
      { id: jobId, attempts: 1 },
    ];
    if (runningJobRoutes(seed, placeholder).some(chosen)) {
      console.error("bench: claiming the running jobs of heartbeat and complete");
      const running = await claimRunningJobs(hub, seed, runningJobs(config) + 1);
      for (const route of runningJobRoutes(seed, running).filter(chosen)) await measure(route);
    }
    await hub.stopAll();
    const report: ApiReport = {
      mode: "api",
      startedAt: startedAt.toISOString(),
      machine,
      seconds: config.apiSeconds,
      connections: config.apiConnections,
      routes,
      peakRssMiB: Object.fromEntries(hub.peakRss().map((child) => [child.name, (child.peakRssKb ?? Number.NaN) / 1024])),
      auditPassed: routes.every((route) => route.non2xx === 0 && route.errors === 0 && route.timeouts === 0 && route.requests > 0),
    };
    console.log(render(report));
    console.log(`\nresults: ${writeReport(config.resultsDir, config.smoke ? "api-smoke" : "api", report, startedAt)}`);
    if (report.auditPassed && !config.keepLogs) hub.removeLogs();
    else console.error(`bench: the API's logs are in ${hub.logDir}`);
    return report.auditPassed;
  } finally {
    await hub?.stopAll();
    await deleteRedisKeys(config.redisUrl, redisPrefix);
    if (!config.keepDatabases) await database.drop();
  }
}
