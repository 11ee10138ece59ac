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
 * - stdout and stderr of each child go straight to a file in {@link HubProcesses.logDir} (appended
 *   across restarts); {@link ManagedProcess.output} reads its tail for failure messages.
 * - Peak RSS: VmHWM from /proc/<pid>/status, sampled while the child lives and once more right
 *   before each signal, because /proc forgets it once the process has exited.
 * - No child outlives the caller: a process 'exit' hook SIGKILLs whatever is still running, and
 *   every node child also watches its parent and SIGKILLs itself when the parent is gone (the
 *   caller was SIGKILLed, or a test runner killed its worker without running 'exit' hooks).
 */
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fstatSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** The repository root: children run from here so `--import tsx` and relative entry points resolve. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Defaults for the first admin and the JWT secret of a test hub (never for a real deployment). */
export const HUB_TEST_ADMIN = { email: "admin@hub.test", password: "admin-password-for-system-tests" } as const;
export const HUB_TEST_JWT_SECRET = "system-test-secret-that-is-at-least-32-characters";

const ENTRY_POINTS = {
  api: "apps/api/src/main.ts",
  dispatcher: "apps/dispatcher/src/main.ts",
  "event-relay": "apps/event-relay/src/main.ts",
} as const;

export type HubApp = keyof typeof ENTRY_POINTS;

/** Variables a child may inherit from the caller; everything else comes from the options. */
const INHERITED_ENV = ["PATH", "HOME", "TMPDIR", "TZ", "LANG", "LC_ALL", "NODE_EXTRA_CA_CERTS"];

// Preloaded into every node child: if its parent goes away, the child kills itself. The check is
// on an unref'd timer, so it never keeps a child alive and costs nothing measurable.
const ORPHAN_GUARD =
  "data:text/javascript,const parent=process.ppid;" +
  "setInterval(()=>{if(process.ppid!==parent)process.kill(process.pid,'SIGKILL')},500).unref();";

const DEFAULT_READY_TIMEOUT_MS = 60_000;
const DEFAULT_STOP_TIMEOUT_MS = 15_000;
const RSS_SAMPLE_INTERVAL_MS = 250;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How to tell that a started child is ready to serve. */
export type Readiness =
  | { kind: "http"; url: string }
  | { kind: "log"; pattern: RegExp }
  /** Ready as soon as it is spawned. */
  | { kind: "spawned" };

export interface ManagedProcessOptions {
  /** Unique within a {@link HubProcesses}: "api", "dispatcher-1", "redis"… */
  name: string;
  command: string;
  args: string[];
  /** The child's whole environment is {@link INHERITED_ENV} from the caller plus this. */
  env: Record<string, string>;
  /** stdout and stderr are appended here. */
  logFile: string;
  readiness: Readiness;
  /** Default 60 s. */
  readyTimeoutMs?: number;
  /** Default {@link REPO_ROOT}. */
  cwd?: string;
}

/** One start of a {@link ManagedProcess}: a restart begins a new incarnation. */
export interface Incarnation {
  pid: number;
  /** Highest VmHWM seen, in KiB; undefined when /proc could not be read (not Linux). */
  peakRssKb: number | undefined;
  /** Set once it exited. */
  exit: ExitInfo | undefined;
  /** True when it exited without {@link ManagedProcess} having signalled it. */
  exitedOnItsOwn: boolean;
}

const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of liveChildren) child.kill("SIGKILL");
  });
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function readPeakRssKb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The last `maxBytes` of a file from `fromOffset` on, read without loading the rest ("" when it does not exist). */
function readTail(file: string, maxBytes: number, fromOffset = 0): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    const start = Math.max(fromOffset, size - maxBytes);
    const buffer = Buffer.alloc(Math.max(size - start, 0));
    readSync(fd, buffer, 0, buffer.length, start);
    return buffer.toString("utf8");
  } catch {
    return "";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A TCP port that was free a moment ago (the usual listen-on-0 probe). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A child process that can be started, signalled, awaited and restarted with the same options. */
export class ManagedProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<ExitInfo> | undefined;
  private rssTimer: NodeJS.Timeout | undefined;
  private signalled = false;
  private readonly history: Incarnation[] = [];

  constructor(readonly options: ManagedProcessOptions) {}

  get name(): string {
    return this.options.name;
  }

  get logFile(): string {
    return this.options.logFile;
  }

  /** The pid of the current (or last) incarnation. */
  get pid(): number | undefined {
    return this.current?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.current?.exit === undefined;
  }

  /** Every start so far, oldest first. */
  get incarnations(): readonly Incarnation[] {
    return this.history;
  }

  private get current(): Incarnation | undefined {
    return this.history[this.history.length - 1];
  }

  /** Highest VmHWM (KiB) over every incarnation. */
  get peakRssKb(): number | undefined {
    const peaks = this.history.map((incarnation) => incarnation.peakRssKb).filter((kb): kb is number => kb !== undefined);
    return peaks.length > 0 ? Math.max(...peaks) : undefined;
  }

  /** Spawns the child and resolves once it is ready; rejects (and kills it) if it exits or times out first. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    installExitHook();
    const logOffset = fileSize(this.logFile);
    const fd = openSync(this.logFile, "a");
    let child: ChildProcess;
    try {
      child = spawn(this.options.command, this.options.args, {
        cwd: this.options.cwd ?? REPO_ROOT,
        env: { ...inheritedEnv(), ...this.options.env },
        stdio: ["ignore", fd, fd],
      });
    } finally {
      // The child holds its own copy of the descriptor.
      closeSync(fd);
    }
    const spawned = new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    await spawned;
    const incarnation: Incarnation = { pid: child.pid!, peakRssKb: undefined, exit: undefined, exitedOnItsOwn: false };
    this.history.push(incarnation);
    this.child = child;
    this.signalled = false;
    liveChildren.add(child);
    this.exited = new Promise<ExitInfo>((resolve) => {
      child.once("exit", (code, signal) => {
        liveChildren.delete(child);
        clearInterval(this.rssTimer);
        incarnation.exit = { code, signal };
        incarnation.exitedOnItsOwn = !this.signalled;
        resolve(incarnation.exit);
      });
    });
    const sampleRss = async () => {
      const kb = await readPeakRssKb(incarnation.pid);
      if (kb !== undefined && incarnation.exit === undefined) incarnation.peakRssKb = Math.max(incarnation.peakRssKb ?? 0, kb);
    };
    this.rssTimer = setInterval(() => void sampleRss(), RSS_SAMPLE_INTERVAL_MS);
    this.rssTimer.unref();
    try {
      await this.waitUntilReady(logOffset);
      await sampleRss();
    } catch (error) {
      await this.stop(2_000);
      throw error;
    }
  }

  private async waitUntilReady(logOffset: number): Promise<void> {
    const { readiness } = this.options;
    const timeoutMs = this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const exit = this.current?.exit;
      if (exit) {
        throw new Error(
          `${this.name} exited before it was ready (code ${exit.code}, signal ${exit.signal}); its output:\n${readTail(this.logFile, 4000, logOffset)}`,
        );
      }
      if (await this.isReady(readiness, logOffset)) return;
      if (Date.now() > deadline) {
        throw new Error(`${this.name} was not ready within ${timeoutMs} ms; its output:\n${readTail(this.logFile, 4000, logOffset)}`);
      }
      await sleep(100);
    }
  }

  private async isReady(readiness: Readiness, logOffset: number): Promise<boolean> {
    switch (readiness.kind) {
      case "spawned":
        return true;
      case "log":
        return readiness.pattern.test(readTail(this.logFile, Number.MAX_SAFE_INTEGER, logOffset));
      case "http":
        try {
          const response = await fetch(readiness.url, { signal: AbortSignal.timeout(1000) });
          await response.arrayBuffer();
          return response.status === 200;
        } catch {
          return false;
        }
      default: {
        const unexpected: never = readiness;
        throw new Error(`unknown readiness ${JSON.stringify(unexpected)}`);
      }
    }
  }

  /** Sends `signal` without waiting (no-op when not running). Peak RSS is sampled first. */
  async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    const incarnation = this.current;
    if (!child || !incarnation || incarnation.exit) return;
    const kb = await readPeakRssKb(incarnation.pid);
    if (kb !== undefined) incarnation.peakRssKb = Math.max(incarnation.peakRssKb ?? 0, kb);
    this.signalled = true;
    child.kill(signal);
  }

  /**
   * Resolves with how the current incarnation exited, or rejects after `timeoutMs` (the child is
   * left running then).
   */
  async waitForExit(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<ExitInfo> {
    if (!this.exited) throw new Error(`${this.name} was never started`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.name} did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends `signal` (SIGKILL for a crash, SIGTERM for a clean shutdown) and waits for the exit. */
  async kill(signal: NodeJS.Signals, timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<ExitInfo> {
    if (!this.exited) throw new Error(`${this.name} was never started`);
    await this.signal(signal);
    return this.waitForExit(timeoutMs);
  }

  /** SIGTERM, then SIGKILL if it has not exited within `timeoutMs`. Resolves with how it exited. */
  async stop(timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<ExitInfo | undefined> {
    if (!this.exited) return undefined;
    if (!this.running) return this.exited;
    await this.signal("SIGTERM");
    try {
      return await this.waitForExit(timeoutMs);
    } catch {
      await this.signal("SIGKILL");
      return this.exited;
    }
  }

  /** Starts a new incarnation with the same options (stops the current one first if it runs). */
  async restart(): Promise<void> {
    if (this.running) await this.stop();
    await this.start();
  }

  /** The tail of what this child wrote to stdout and stderr, over all incarnations. */
  output(maxBytes = 64 * 1024): string {
    return readTail(this.logFile, maxBytes);
  }
}

export interface HubProcessesOptions {
  /** A migrated (or at least creatable) database, e.g. from `createTestDatabase`. */
  databaseUrl: string;
  redisUrl: string;
  /** HUB_REDIS_PREFIX; default a fresh unique one. */
  redisPrefix?: string;
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
  }

  /** The first admin every API process bootstraps (HUB_ADMIN_EMAIL / HUB_ADMIN_PASSWORD). */
  get admin(): { email: string; password: string } {
    return { email: this.env.HUB_ADMIN_EMAIL!, password: this.env.HUB_ADMIN_PASSWORD! };
  }

  /** Starts the API, the dispatchers and the relays in parallel and waits until all are ready. */
  static async start(options: HubProcessesOptions): Promise<HubProcesses> {
    const logDir = options.logDir ?? path.join(tmpdir(), "hub-processes", `${Date.now()}-${randomBytes(3).toString("hex")}`);
    mkdirSync(logDir, { recursive: true });
    const env: Record<string, string> = {
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      HUB_REDIS_PREFIX: options.redisPrefix ?? `sys-${randomBytes(5).toString("hex")}`,
      HUB_JWT_SECRET: HUB_TEST_JWT_SECRET,
      HUB_ADMIN_EMAIL: HUB_TEST_ADMIN.email,
      HUB_ADMIN_PASSWORD: HUB_TEST_ADMIN.password,
      LOG_LEVEL: options.logLevel ?? "info",
      ...options.env,
    };
    const apiPort = await freePort();
    const api = new ManagedProcess({
      name: "api",
      ...nodeCommand("api"),
      env: { ...env, PORT: String(apiPort), ...options.apiEnv },
      logFile: path.join(logDir, "api.log"),
      readiness: { kind: "http", url: `http://127.0.0.1:${apiPort}/readyz` },
      readyTimeoutMs: options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
    });
    const hub = new HubProcesses(api, `http://127.0.0.1:${apiPort}`, env, logDir, options);
    try {
      await Promise.all([
        api.start(),
        ...Array.from({ length: options.dispatchers ?? 1 }, () => hub.addDispatcher()),
        ...Array.from({ length: options.relays ?? 0 }, () => hub.addRelay()),
      ]);
    } catch (error) {
      await hub.stopAll(2_000);
      throw error;
    }
    return hub;
  }

  /** Starts one more dispatcher (its /healthz on a free metrics port) and waits until it is ready. */
  async addDispatcher(): Promise<ManagedProcess> {
    const dispatcher = await this.createSidecar("dispatcher", this.dispatchers, "HUB_DISPATCHER_METRICS_PORT", this.options.dispatcherEnv);
    await dispatcher.start();
    return dispatcher;
  }

  /** Starts one more event relay (its /healthz on a free metrics port) and waits until it is ready. */
  async addRelay(): Promise<ManagedProcess> {
    const relay = await this.createSidecar("event-relay", this.relays, "HUB_RELAY_METRICS_PORT", this.options.relayEnv);
    await relay.start();
    return relay;
  }

  private async createSidecar(app: HubApp, list: ManagedProcess[], portVariable: string, appEnv: Record<string, string> = {}): Promise<ManagedProcess> {
    // Numbered before the first await, so sidecars created in parallel get distinct names.
    const number = (this.started.get(app) ?? 0) + 1;
    this.started.set(app, number);
    const name = `${app}-${number}`;
    const port = appEnv[portVariable] ?? String(await freePort());
    const child = new ManagedProcess({
      name,
      ...nodeCommand(app),
      env: { ...this.env, [portVariable]: port, ...appEnv },
      logFile: path.join(this.logDir, `${name}.log`),
      // Without a metrics server (port 0) the start-up log line is the only sign of readiness.
      readiness: port === "0" ? { kind: "log", pattern: /"msg":"[^"]*started"/ } : { kind: "http", url: `http://127.0.0.1:${port}/healthz` },
      readyTimeoutMs: this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
    });
    list.push(child);
    this.apps.set(child, app);
    return child;
  }

  /** Where a process serves Prometheus metrics: the API's /metrics, or a dispatcher's or relay's metrics port. */
  metricsUrl(child: ManagedProcess): string | undefined {
    if (child === this.api) return `${this.apiUrl}/metrics`;
    const port = child.options.env.HUB_DISPATCHER_METRICS_PORT ?? child.options.env.HUB_RELAY_METRICS_PORT;
    return port && port !== "0" ? `http://127.0.0.1:${port}/metrics` : undefined;
  }

  /** Every process ever started here: the API, then dispatchers, then relays. */
  processes(): ManagedProcess[] {
    return [this.api, ...this.dispatchers, ...this.relays];
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
      child.incarnations.filter((incarnation) => incarnation.exitedOnItsOwn && incarnation.exit).map((incarnation) => ({
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

/**
 * How to run a TypeScript entry point (relative to {@link REPO_ROOT}) as a {@link ManagedProcess}:
 * `node --import tsx`, with the orphan guard preloaded. For hub apps and any other node program a
 * test drives (e.g. the reference worker).
 */
export function nodeEntryPoint(entryPoint: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", ORPHAN_GUARD, "--import", "tsx", entryPoint] };
}

function nodeCommand(app: HubApp): { command: string; args: string[] } {
  return nodeEntryPoint(ENTRY_POINTS[app]);
}

/** A throw-away redis-server owned by the caller (safe to FLUSHDB, restart or kill). */
export interface PrivateRedis {
  url: string;
  port: number;
  process: ManagedProcess;
  /** Stops the server (and deletes its directory unless the caller chose it). */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on a free port without persistence, for tests that must wreck Redis
 * (FLUSHDB, kill) without touching a shared server. Not covered by the orphan guard (it is not a
 * node process): the process 'exit' hook and `stop` end it.
 */
export async function startPrivateRedis(options: { logDir?: string; readyTimeoutMs?: number } = {}): Promise<PrivateRedis> {
  const logDir = options.logDir ?? path.join(tmpdir(), "hub-processes", `redis-${Date.now()}-${randomBytes(3).toString("hex")}`);
  mkdirSync(logDir, { recursive: true });
  const port = await freePort();
  const redis = new ManagedProcess({
    name: "redis",
    command: "redis-server",
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", logDir],
    env: {},
    logFile: path.join(logDir, "redis.log"),
    readiness: { kind: "log", pattern: /Ready to accept connections/ },
    readyTimeoutMs: options.readyTimeoutMs ?? 10_000,
  });
  await redis.start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: redis,
    stop: async () => {
      await redis.stop(5_000);
      if (!options.logDir) rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/** A throw-away PostgreSQL cluster owned by the caller (safe to stop, restart or crash). */
export interface PrivatePostgres {
  /** The server-level URL (`…/postgres`); create databases beside it (`createTestDatabase`). */
  serverUrl: string;
  port: number;
  /** The cluster's directory (data and server log). */
  dir: string;
  /** True while the server runs (as far as this fixture started and stopped it). */
  readonly running: boolean;
  /**
   * Stops the server. "fast" (a clean restart's first half): sessions are terminated (57P01) and
   * new connections refused. "immediate": the server dies without cleanup, as in a crash.
   */
  stopServer(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts the stopped server again on the same port and waits until it accepts connections. */
  startServer(): Promise<void>;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

const POSTGRES_BIN_DIRS = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"];

/**
 * Where `initdb` and `pg_ctl` are, or undefined when this machine has none (a test then skips and
 * says so). Looks in Debian's versioned directories, then on PATH.
 */
export function findPostgresBinDir(): string | undefined {
  const candidates = [...POSTGRES_BIN_DIRS, ...(process.env.PATH ?? "").split(path.delimiter)];
  return candidates.find((dir) => dir && existsSync(path.join(dir, "pg_ctl")) && existsSync(path.join(dir, "initdb")));
}

const livePostgresClusters = new Map<string, () => void>();
let postgresExitHookInstalled = false;

/**
 * Starts a PostgreSQL cluster of its own, made with `initdb` in a new temporary directory and run
 * with `pg_ctl` on a free port (TCP on 127.0.0.1 only, no Unix socket, trust authentication, user
 * `postgres`, no fsync: it holds test data only). PostgreSQL refuses to run as root, so
 * when the caller is root every command runs as the `postgres` user through `runuser`.
 *
 * `pg_ctl` detaches the server, so it is not a child of the caller: the process 'exit' hook stops
 * every cluster still running (immediate mode), and {@link PrivatePostgres.stop} deletes it.
 */
export async function startPrivatePostgres(options: { readyTimeoutSeconds?: number } = {}): Promise<PrivatePostgres> {
  const binDir = findPostgresBinDir();
  if (!binDir) throw new Error("PostgreSQL server binaries (initdb, pg_ctl) not found");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), "hub-postgres-"));
  const dataDir = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  const invocation = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", path.join(binDir, tool), ...args]] : [path.join(binDir, tool), args];
  // Asynchronous, so the caller's load keeps running while the server starts or stops.
  const run = async (tool: string, args: string[]) => {
    const [command, fullArgs] = invocation(tool, args);
    try {
      await execFileAsync(command, fullArgs, { cwd: dir });
    } catch (error) {
      const { stderr = "", stdout = "" } = error as { stderr?: string; stdout?: string };
      throw new Error(`${tool} ${args.join(" ")} failed: ${(error as Error).message} ${stderr}${stdout}`);
    }
  };
  if (asRoot) {
    const chown = spawnSync("chown", ["postgres:postgres", dir], { encoding: "utf8" });
    if (chown.status !== 0) throw new Error(`chown postgres ${dir} failed: ${chown.stderr}`);
  }
  await run("initdb", ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    "-c unix_socket_directories=''",
    // No fsync: safe against the server process dying ("immediate" stop), which is what tests do,
    // though not against the machine losing power. synchronous_commit stays on: with it off, an
    // immediate stop loses commits already acknowledged, and a test would see the server, not the
    // hub, lose jobs.
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const timeout = String(options.readyTimeoutSeconds ?? 60);
  let running = false;
  const stopArgs = (mode: "fast" | "immediate") => ["-D", dataDir, "-m", mode, "-w", "-t", timeout, "stop"];
  const cluster: PrivatePostgres = {
    serverUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    get running() {
      return running;
    },
    async stopServer(mode = "fast") {
      await run("pg_ctl", stopArgs(mode));
      running = false;
      livePostgresClusters.delete(dir);
    },
    async startServer() {
      await run("pg_ctl", ["-D", dataDir, "-l", logFile, "-o", serverOptions, "-w", "-t", timeout, "start"]);
      running = true;
      // At exit only synchronous work runs.
      livePostgresClusters.set(dir, () => spawnSync(...invocation("pg_ctl", stopArgs("immediate"))));
    },
    async stop() {
      if (running) await cluster.stopServer("fast");
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (!postgresExitHookInstalled) {
    postgresExitHookInstalled = true;
    process.on("exit", () => {
      for (const stop of livePostgresClusters.values()) {
        try {
          stop();
        } catch {
          // Exiting anyway: nothing more to do.
        }
      }
    });
  }
  try {
    await cluster.startServer();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}
