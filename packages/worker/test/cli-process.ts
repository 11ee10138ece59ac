/** Runs hub-worker as a child process, as a user would, and reads what it prints. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_ROOT = path.resolve(PACKAGE_DIR, "../..");
/** The workspace's hub-worker (the source, through tsx); the pack test runs the built one. */
const CLI_FROM_SOURCE = [process.execPath, path.join(PACKAGE_DIR, "bin/hub-worker.mjs")];

export interface CliProcess {
  child: ChildProcess;
  /** Log lines (JSON) printed on stdout so far. */
  logs(): Array<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once a log line with this `msg` (and the given fields) was printed `count` times. */
  waitForLog(msg: string, count?: number, timeoutMs?: number): Promise<void>;
  /** SIGKILLs it if it still runs. */
  kill(): void;
}

/** A private directory with the worker's key in a file only its owner may read. */
export function keyFile(apiKey: string): { path: string; dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "hub-worker-test-"));
  const file = path.join(dir, "worker.key");
  writeFileSync(file, `${apiKey}\n`, { mode: 0o600 });
  return { path: file, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function startCli(args: string[], command: string[] = CLI_FROM_SOURCE, cwd = REPO_ROOT): CliProcess {
  const [executable, ...prefix] = command;
  const child = spawn(executable!, [...prefix, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "info" } });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const logs = () =>
    stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    child,
    logs,
    stderr: () => stderr,
    exited,
    async waitForLog(msg, count = 1, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (logs().filter((line) => line.msg === msg).length < count) {
        if (child.exitCode !== null) throw new Error(`hub-worker exited (${child.exitCode}) before logging "${msg}": ${stderr}${stdout}`);
        if (Date.now() > deadline) throw new Error(`hub-worker did not log "${msg}" ${count} time(s) within ${timeoutMs} ms: ${stderr}${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}
