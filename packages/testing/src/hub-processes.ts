/**
 * Runs the hub's real processes — the API, dispatchers and event relays — as child processes, the
 * way production runs them, for system tests and benchmarks. This is the one place that starts them.
 *
 * ```ts
 * const hub = await HubProcesses.start({ databaseUrl, redisUrl, dispatchers: 3 });
 * await fetch(`${hub.apiUrl}/readyz`);
 * await hub.dispatchers[0]!.kill("SIGKILL"); // a crash
 * await hub.dispatchers[0]!.restart();
 * hub.peakRss();                             // VmHWM of every process, in KiB
 * await hub.stopAll();                       // SIGTERM, then SIGKILL after a timeout
 * ```
 *
 * - Each child runs `node --import tsx apps/<app>/src/main.ts` from the repository root with only
 *   the environment given here (plus PATH/HOME…), so nothing leaks in from the caller's environment.
 * - Ports are picked free; the API keeps its port across restarts so its URL stays valid.
 * - A child is ready when its HTTP probe answers 200 (API: `/readyz`; dispatcher and relay:
 *   `/healthz` on their metrics port) or, for a child without a port, when a log line matches.
 * - stdout and stderr of each child go to a file in {@link HubProcesses.logDir}.
 */
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import {
  DEFAULT_STOP_TIMEOUT_MS,
  freePort,
  ManagedProcess,
  newLogDir,
  nodeBundleEntryPoint,
  nodeEntryPoint,
  REPO_ROOT,
  type ExitInfo,
} from "@hub/test-services";

/** Defaults for the first admin and the JWT secret of a test hub (never for a real deployment). */
export const HUB_TEST_ADMIN = { email: "admin@hub.test", password: "admin-password-for-system-tests" } as const;
export const HUB_TEST_JWT_SECRET = "system-test-secret-that-is-at-least-32-characters";

const ENTRY_POINTS = {
  api: "apps/api/src/main.ts",
  dispatcher: "apps/dispatcher/src/main.ts",
  "event-relay": "apps/event-relay/src/main.ts",
} as const;

export type HubApp = keyof typeof ENTRY_POINTS;

/** The variable naming the port an app serves on: the API's HTTP port, the others' metrics and /healthz. */
const PORT_VARIABLE = {
  api: "PORT",
  dispatcher: "HUB_DISPATCHER_METRICS_PORT",
  "event-relay": "HUB_RELAY_METRICS_PORT",
} as const satisfies Record<HubApp, string>;

export interface AppProcessOptions {
  /** Unique among the processes logging into `logDir`; default the app's name. */
  name?: string;
  /**
   * The child's variables (DATABASE_URL, REDIS_URL, HUB_REDIS_PREFIX…). Its port variable
   * (`PORT`, `HUB_DISPATCHER_METRICS_PORT`, `HUB_RELAY_METRICS_PORT`) defaults to a free port;
   * "0" turns a dispatcher's or relay's server off, and readiness becomes its "started" log
   * line, which needs LOG_LEVEL info or lower.
   */
  env: Record<string, string>;
  /** Where its output goes (`<name>.log`). */
  logDir: string;
  /** Default 60 s (cold `tsx` start-ups on a busy 2-core machine are slow). */
  readyTimeoutMs?: number | undefined;
  /** Node options before the entry point (`--cpu-prof`…). */
  nodeOptions?: string[];
  /** Run the production bundle (`apps/<app>/dist/main.js`) rather than the source: see {@link HubProcessesOptions.runBuilt}. */
  runBuilt?: boolean | undefined;
}

/** The line a dispatcher or relay logs once it serves ("dispatcher started", "event relay started"). */
const STARTED_LINE = /"msg":"[^"]*started"/;
/** The line the API logs once it listens. */
const LISTENING_LINE = /"msg":"api listening"/;

/**
 * One hub app as a {@link ManagedProcess}, not started yet, and the port it serves on. Ready when
 * the API's /readyz or a dispatcher's or relay's /healthz answers 200 and (at LOG_LEVEL info or
 * lower) its log says it serves.
 */
export async function createAppProcess(app: HubApp, options: AppProcessOptions): Promise<{ process: ManagedProcess; port: string }> {
  const name = options.name ?? app;
  const portVariable = PORT_VARIABLE[app];
  const port = options.env[portVariable] ?? String(await freePort());
  const entryPoint = options.runBuilt ? nodeBundleEntryPoint(builtBundleOf(app)) : nodeEntryPoint(ENTRY_POINTS[app]);
  // Where the child logs at info, readiness also waits for its own line saying it serves, so that
  // another process holding the port cannot pass for it.
  const logsInfo = ["trace", "debug", "info", undefined].includes(options.env.LOG_LEVEL);
  const readiness =
    app === "api"
      ? ({ kind: "http", url: `http://127.0.0.1:${port}/readyz`, log: logsInfo ? LISTENING_LINE : undefined } as const)
      : port === "0"
        ? ({ kind: "log", pattern: STARTED_LINE } as const)
        : ({ kind: "http", url: `http://127.0.0.1:${port}/healthz`, log: logsInfo ? STARTED_LINE : undefined } as const);
  const child = new ManagedProcess({
    name,
    command: entryPoint.command,
    args: [...(options.nodeOptions ?? []), ...entryPoint.args],
    env: { ...options.env, [portVariable]: port },
    logFile: path.join(options.logDir, `${name}.log`),
    readiness,
    readyTimeoutMs: options.readyTimeoutMs,
  });
  return { process: child, port };
}

/** An app's production bundle, which must have been built ({@link buildHubApps}). */
function builtBundleOf(app: HubApp): string {
  const bundle = path.join(REPO_ROOT, "apps", app, "dist", "main.js");
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run buildHubApps() (pnpm build) first`);
  return bundle;
}

/**
 * Builds the three apps' production bundles, and what they depend on: the console the API serves
 * at /console among them (turbo skips what is up to date).
 */
export function buildHubApps(): void {
  const filters = Object.keys(ENTRY_POINTS).flatMap((app) => ["--filter", `@hub/${app}`]);
  const result = spawnSync("pnpm", ["turbo", "run", "build", ...filters, "--output-logs=errors-only"], { cwd: REPO_ROOT, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`building the apps failed (exit ${result.status ?? result.signal})`);
}

export interface HubProcessesOptions {
  /** A migrated (or at least creatable) database, e.g. from `createTestDatabase`. */
  databaseUrl: string;
  redisUrl: string;
  /** HUB_REDIS_PREFIX; default a fresh unique one. */
  redisPrefix?: string;
  /** API processes, each on its own port (default 1; the first is {@link HubProcesses.api}). */
  apis?: number;
  /** Default 1. */
  dispatchers?: number;
  /** Default 0. */
  relays?: number;
  /** Extra variables for every process (HUB_JOB_LEASE_SECONDS…); they win over the defaults. */
  env?: Record<string, string>;
  apiEnv?: Record<string, string>;
  /**
   * Variables of the dispatchers only. HUB_DISPATCHER_METRICS_PORT defaults to a free port per
   * dispatcher (readiness: its /healthz); "0" turns the server off, and readiness becomes its
   * "dispatcher started" log line, which needs LOG_LEVEL info or lower.
   */
  dispatcherEnv?: Record<string, string>;
  /** Variables of the relays only; HUB_RELAY_METRICS_PORT as for dispatchers. */
  relayEnv?: Record<string, string>;
  /** LOG_LEVEL of every process. Default "info": the logs are only read when something failed. */
  logLevel?: string;
  /** Where the children's output goes. Default a new directory under the OS temp directory. */
  logDir?: string;
  /** Default 60 s per process (cold `tsx` start-ups on a busy 2-core machine are slow). */
  readyTimeoutMs?: number;
  /**
   * Run each app's production bundle (`apps/<app>/dist/main.js`, as `pnpm start` does) instead of
   * its TypeScript source through tsx: what operators run, and ~50 MiB less resident memory per
   * process (tsx's compiler stays loaded). Build first ({@link buildHubApps}); benchmarks do.
   */
  runBuilt?: boolean;
}

/** Peak memory of one process, for reports. */
export interface PeakRss {
  name: string;
  app: HubApp;
  /** Highest VmHWM over its incarnations, in KiB. */
  peakRssKb: number | undefined;
  pids: number[];
}

/** The API, dispatchers and relays of one hub, sharing one database, Redis and key prefix. */
export class HubProcesses {
  /** Every API process, the first being {@link api}. */
  readonly apis: ManagedProcess[] = [];
  /** http://127.0.0.1:<port> of each of {@link apis}, in the same order. */
  readonly apiUrls: string[] = [];
  readonly dispatchers: ManagedProcess[] = [];
  readonly relays: ManagedProcess[] = [];
  private readonly apps = new Map<ManagedProcess, HubApp>();
  private readonly started = new Map<HubApp, number>();

  private constructor(
    readonly api: ManagedProcess,
    /** http://127.0.0.1:<port> of the API; stable across API restarts. */
    readonly apiUrl: string,
    /** The variables every process got (secrets included: keep this out of logs). */
    readonly env: Readonly<Record<string, string>>,
    readonly logDir: string,
    private readonly options: HubProcessesOptions,
  ) {
    this.apps.set(api, "api");
    this.apis.push(api);
    this.apiUrls.push(apiUrl);
  }

  /** The first admin every API process bootstraps (HUB_ADMIN_EMAIL / HUB_ADMIN_PASSWORD). */
  get admin(): { email: string; password: string } {
    return { email: this.env.HUB_ADMIN_EMAIL!, password: this.env.HUB_ADMIN_PASSWORD! };
  }

  /** Starts the API, the dispatchers and the relays in parallel and waits until all are ready. */
  static async start(options: HubProcessesOptions): Promise<HubProcesses> {
    const logDir = options.logDir ?? newLogDir("hub");
    mkdirSync(logDir, { recursive: true });
    const env: Record<string, string> = {
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      HUB_REDIS_PREFIX: options.redisPrefix ?? `sys-${randomBytes(5).toString("hex")}`,
      HUB_JWT_SECRET: HUB_TEST_JWT_SECRET,
      HUB_ADMIN_EMAIL: HUB_TEST_ADMIN.email,
      HUB_ADMIN_PASSWORD: HUB_TEST_ADMIN.password,
      LOG_LEVEL: options.logLevel ?? "info",
      // Tests and benchmarks log in from one address far more than 30 times a minute.
      HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE: "0",
      ...options.env,
    };
    const { process: api, port: apiPort } = await createAppProcess("api", {
      env: { ...env, ...options.apiEnv },
      logDir,
      readyTimeoutMs: options.readyTimeoutMs,
      runBuilt: options.runBuilt,
    });
    const hub = new HubProcesses(api, `http://127.0.0.1:${apiPort}`, env, logDir, options);
    try {
      await Promise.all([
        api.start(),
        ...Array.from({ length: (options.apis ?? 1) - 1 }, () => hub.addApi()),
        ...Array.from({ length: options.dispatchers ?? 1 }, () => hub.addDispatcher()),
        ...Array.from({ length: options.relays ?? 0 }, () => hub.addRelay()),
      ]);
    } catch (error) {
      await hub.stopAll(2_000);
      throw error;
    }
    return hub;
  }

  /** Starts one more API process on a free port and waits until it is ready; returns it and its URL. */
  async addApi(): Promise<{ process: ManagedProcess; url: string }> {
    // Numbered before the first await, so APIs created in parallel get distinct names.
    const number = (this.started.get("api") ?? 1) + 1;
    this.started.set("api", number);
    const { process: api, port } = await createAppProcess("api", {
      name: `api-${number}`,
      env: { ...this.env, ...this.options.apiEnv },
      logDir: this.logDir,
      readyTimeoutMs: this.options.readyTimeoutMs,
      runBuilt: this.options.runBuilt,
    });
    const url = `http://127.0.0.1:${port}`;
    this.apis.push(api);
    this.apiUrls.push(url);
    this.apps.set(api, "api");
    await api.start();
    return { process: api, url };
  }

  /** Starts one more dispatcher (its /healthz on a free metrics port) and waits until it is ready. */
  async addDispatcher(): Promise<ManagedProcess> {
    const dispatcher = await this.createSidecar("dispatcher", this.dispatchers, this.options.dispatcherEnv);
    await dispatcher.start();
    return dispatcher;
  }

  /** Starts one more event relay (its /healthz on a free metrics port) and waits until it is ready. */
  async addRelay(): Promise<ManagedProcess> {
    const relay = await this.createSidecar("event-relay", this.relays, this.options.relayEnv);
    await relay.start();
    return relay;
  }

  private async createSidecar(app: HubApp, list: ManagedProcess[], appEnv: Record<string, string> = {}): Promise<ManagedProcess> {
    // Numbered before the first await, so sidecars created in parallel get distinct names.
    const number = (this.started.get(app) ?? 0) + 1;
    this.started.set(app, number);
    const { process: child } = await createAppProcess(app, {
      name: `${app}-${number}`,
      env: { ...this.env, ...appEnv },
      logDir: this.logDir,
      readyTimeoutMs: this.options.readyTimeoutMs,
      runBuilt: this.options.runBuilt,
    });
    list.push(child);
    this.apps.set(child, app);
    return child;
  }

  /** Where a process serves Prometheus metrics: the API's /metrics, or a dispatcher's or relay's metrics port. */
  metricsUrl(child: ManagedProcess): string | undefined {
    const apiIndex = this.apis.indexOf(child);
    if (apiIndex >= 0) return `${this.apiUrls[apiIndex]}/metrics`;
    const port = child.options.env.HUB_DISPATCHER_METRICS_PORT ?? child.options.env.HUB_RELAY_METRICS_PORT;
    return port && port !== "0" ? `http://127.0.0.1:${port}/metrics` : undefined;
  }

  /** Every process ever started here: the APIs, then dispatchers, then relays. */
  processes(): ManagedProcess[] {
    return [...this.apis, ...this.dispatchers, ...this.relays];
  }

  /** Peak RSS (VmHWM) of every process, sampled while it ran and right before each signal. */
  peakRss(): PeakRss[] {
    return this.processes().map((child) => ({
      name: child.name,
      app: this.apps.get(child)!,
      peakRssKb: child.peakRssKb,
      pids: child.incarnations.map((incarnation) => incarnation.pid),
    }));
  }

  /** Processes that exited without being signalled (a crash the caller did not cause). */
  unexpectedExits(): { name: string; pid: number; exit: ExitInfo }[] {
    return this.processes().flatMap((child) =>
      child.incarnations
        .filter((incarnation) => incarnation.exitedOnItsOwn && incarnation.exit)
        .map((incarnation) => ({
          name: child.name,
          pid: incarnation.pid,
          exit: incarnation.exit!,
        })),
    );
  }

  /** A failure report: where the logs are, what exited unexpectedly, and the tail of each log. */
  diagnostics(tailBytes = 8 * 1024): string {
    const parts = [`hub process logs: ${this.logDir}`];
    for (const crash of this.unexpectedExits()) {
      parts.push(`${crash.name} (pid ${crash.pid}) exited on its own: code ${crash.exit.code}, signal ${crash.exit.signal}`);
    }
    for (const child of this.processes()) parts.push(`── ${child.name} (${child.logFile}) ──\n${child.output(tailBytes)}`);
    return parts.join("\n");
  }

  /**
   * Stops every running process at once (SIGTERM, SIGKILL after `timeoutMs`); resolves with how
   * each of them exited (processes that were not running are left out).
   */
  async stopAll(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<Map<string, ExitInfo | undefined>> {
    const children = this.processes().filter((child) => child.running);
    const exits = await Promise.all(children.map((child) => child.stop(timeoutMs)));
    return new Map(children.map((child, index) => [child.name, exits[index]]));
  }

  /** Deletes the log directory (call once the run passed; keep it to debug a failure). */
  removeLogs(): void {
    rmSync(this.logDir, { recursive: true, force: true });
  }
}
