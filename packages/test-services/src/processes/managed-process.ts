/**
 * Child processes for tests and benchmarks: started with exactly the environment given, ready
 * when an HTTP probe answers or a log line appears, signalled, awaited and restarted.
 *
 * - stdout and stderr of each child go straight to a file (appended across restarts);
 *   {@link ManagedProcess.output} reads its tail for failure messages.
 * - Peak RSS: VmHWM from /proc/<pid>/status, sampled while the child lives and once more right
 *   before each signal, because /proc forgets it once the process has exited.
 * - No child outlives the caller: a process 'exit' hook SIGKILLs whatever is still running, and
 *   every node child started through {@link nodeEntryPoint} also watches its parent and SIGKILLs
 *   itself when the parent is gone (the caller was SIGKILLed, or a test runner killed its worker
 *   without running 'exit' hooks).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fileSize, readPeakRssKb, readTail } from "./process-files";

/** The repository root: children run from here so `--import tsx` and relative entry points resolve. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

/** Variables a child may inherit from the caller; everything else comes from the options. */
const INHERITED_ENV = ["PATH", "HOME", "TMPDIR", "TZ", "LANG", "LC_ALL", "NODE_EXTRA_CA_CERTS"];

// Preloaded into every node child: if its parent goes away, the child kills itself within 2 s. The
// check is on an unref'd timer, so it never keeps a child alive; every 2 s rather than 500 ms,
// because each check wakes the child, and `pnpm bench timed` counts an idle hub process's
// wake-ups in its CPU (two a second were ~0.3 ms/s per process, not the hub's own cost).
const ORPHAN_GUARD =
  "data:text/javascript,const parent=process.ppid;" + "setInterval(()=>{if(process.ppid!==parent)process.kill(process.pid,'SIGKILL')},2000).unref();";

const DEFAULT_READY_TIMEOUT_MS = 60_000;
/** How long {@link ManagedProcess.stop} waits after SIGTERM before it sends SIGKILL. */
export const DEFAULT_STOP_TIMEOUT_MS = 15_000;
const RSS_SAMPLE_INTERVAL_MS = 250;

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How to tell that a started child is ready to serve. */
export type Readiness =
  /**
   * `url` answers 200 and, with `log`, the child's own output since it started matches `log`: an
   * answer from another process that holds the port (it was taken before the child bound it) does
   * not count, and the child's failure to listen shows as its exit instead.
   */
  | { kind: "http"; url: string; log?: RegExp }
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
        if (readiness.log && !readiness.log.test(readTail(this.logFile, Number.MAX_SAFE_INTEGER, logOffset))) return false;
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

/**
 * How to run a TypeScript entry point (relative to {@link REPO_ROOT}) as a {@link ManagedProcess}:
 * `node --import tsx`, with the orphan guard preloaded. For hub apps and any other node program a
 * test drives (e.g. the reference worker).
 */
export function nodeEntryPoint(entryPoint: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", ORPHAN_GUARD, "--import", "tsx", entryPoint] };
}

/** How to run a built JavaScript bundle (e.g. `apps/api/dist/main.js`) with the orphan guard, as production runs it. */
export function nodeBundleEntryPoint(bundle: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", ORPHAN_GUARD, "--enable-source-maps", bundle] };
}
