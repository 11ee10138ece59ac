/**
 * One job as one run of the user's command: the context as JSON on stdin, the job's id in the
 * environment, its standard-error lines sent as the job's log lines (`::progress` lines as its
 * progress), the outcome read from the exit status, stdout and stderr.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RetryableError } from "../errors.js";
import { MAX_LOG_LINE_LENGTH, type LogLevel } from "../hub-client.js";
import type { JobResult } from "../outcome.js";
import type { JobHandler } from "../worker.js";

/** EX_TEMPFAIL (sysexits.h): "try again later" — the job is failed as retryable. */
export const EXIT_RETRYABLE = 75;
/** A result larger than the hub accepts in a request body is refused; stop reading beyond it. */
const MAX_STDOUT_BYTES = 1024 * 1024;
/** How much of the end of stderr a failure carries. */
const STDERR_TAIL_CHARS = 4000;
/** After SIGTERM, how long a command has to exit before it gets SIGKILL, unless `--kill-after` says. */
export const DEFAULT_KILL_AFTER_MS = 10_000;
/** A standard-error line that reports progress: `::progress <percent> [message]`. */
const PROGRESS_LINE = /^::progress[ \t]+(\S+)(?:[ \t]+(.*))?$/;
/** A standard-error line that names its log level: `::warn <message>` (debug, info, warn, error). */
const LEVELLED_LINE = /^::(debug|info|warn|error)[ \t](.*)$/;

export interface CommandSpec {
  command: string;
  args: string[];
  /** Kill the command after this long and fail the job as retryable; undefined: no limit. */
  timeoutMs: number | undefined;
  /** After SIGTERM (cancel, timeout, shutdown deadline), how long before SIGKILL. Default 10 s. */
  killAfterMs?: number;
  /** Where the command's stderr lines go, prefixed with the job's id (default: this process's stderr). */
  stderr?: NodeJS.WritableStream;
}

/**
 * The job's dependencies for the command (CONTRACT §6.16): for a job with any, a file of its own
 * (mode 0600, in a fresh directory of the temporary folder) holding them as JSON — `[{id,
 * automation_id, status, result, error}]` in `depends_on` order, every result whole — named by
 * `HUB_JOB_DEPENDENCIES_FILE`; removed once the command exited. A job without dependencies gets
 * neither file nor variable. Standard input stays the context alone, as before.
 */
function dependenciesFile(job: { dependencies: readonly unknown[] }): { env: Record<string, string | undefined>; remove(): void } {
  if (job.dependencies.length === 0) return { env: { HUB_JOB_DEPENDENCIES_FILE: undefined }, remove: () => undefined };
  const folder = mkdtempSync(path.join(tmpdir(), "hub-job-"));
  const file = path.join(folder, "dependencies.json");
  writeFileSync(file, `${JSON.stringify(job.dependencies)}\n`, { mode: 0o600 });
  return { env: { HUB_JOB_DEPENDENCIES_FILE: file }, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/**
 * Splits a stream's text into lines (without their "\n" or "\r\n") and hands each to `onLine`; a
 * line that grows past {@link MAX_LOG_LINE_LENGTH} characters without an end is handed on in
 * pieces of that length.
 */
/**
 * The job's trace context for the command (CONTRACT §6.20): `TRACEPARENT` and `TRACESTATE`, the
 * names OpenTelemetry's environment-variable propagation reads, so a traced command continues the
 * job's trace. Unset (not empty) when the hub does not trace, so an inherited value is not mistaken for the job's.
 */
export function traceEnvironment(job: { traceparent?: string | null; tracestate?: string | null }): Record<string, string | undefined> {
  return { TRACEPARENT: job.traceparent ?? undefined, TRACESTATE: job.traceparent ? (job.tracestate ?? undefined) : undefined };
}

function lineSplitter(onLine: (line: string) => void) {
  let partial = "";
  return {
    write(text: string) {
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
      while (partial.length > MAX_LOG_LINE_LENGTH) {
        onLine(partial.slice(0, MAX_LOG_LINE_LENGTH));
        partial = partial.slice(MAX_LOG_LINE_LENGTH);
      }
    },
    flush() {
      if (partial) onLine(partial);
      partial = "";
    },
  };
}

/** A standard-error line as a log line: `info`, unless it starts with `::<level> `. */
export function logLineOf(line: string): { level: LogLevel; message: string } {
  const match = LEVELLED_LINE.exec(line);
  return match ? { level: match[1] as LogLevel, message: match[2]! } : { level: "info", message: line };
}

/** The progress a `::progress <percent> [message]` line reports; undefined for any other line (or an unreadable percent). */
export function progressLine(line: string): { percent: number; message: string | undefined } | undefined {
  const match = PROGRESS_LINE.exec(line);
  if (!match) return undefined;
  const percent = Number(match[1]!.replace(/%$/, ""));
  if (!Number.isFinite(percent)) return undefined;
  return { percent, message: match[2]?.trim() || undefined };
}

/** The last {@link STDERR_TAIL_CHARS} characters of `text`, from a line start when one is near. */
function tail(text: string): string {
  const trimmed = text.trimEnd();
  if (trimmed.length <= STDERR_TAIL_CHARS) return trimmed.trim();
  const end = trimmed.slice(-STDERR_TAIL_CHARS);
  const lineStart = end.indexOf("\n");
  return `…${lineStart >= 0 && lineStart < 200 ? end.slice(lineStart) : end}`.trim();
}

function withStderr(message: string, stderr: string): string {
  const end = tail(stderr);
  return end ? `${message}: ${end}` : message;
}

/** What the command printed on stdout as the job's result: nothing is `{}`, else a JSON object. */
function resultOf(stdout: string): JobResult {
  if (stdout.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`the command exited 0 but its stdout is not JSON: ${JSON.stringify(stdout.slice(0, 200))}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`the command exited 0 but its stdout is ${Array.isArray(parsed) ? "an array" : String(parsed)}, not a JSON object`);
  }
  return parsed as JobResult;
}

export interface CommandRunner {
  /** Runs the command for one job. */
  handler: JobHandler;
  /** SIGKILLs every command still running (their process groups), for when hub-worker exits. */
  killAll(): void;
}

/** Runs `spec.command` for each job. */
export function commandRunner(spec: CommandSpec): CommandRunner {
  const running = new Set<number>();
  const handler: JobHandler = (job, { signal }) =>
    new Promise<JobResult>((resolve, reject) => {
      // Its own process group: a Ctrl-C meant for hub-worker does not reach it (the worker decides
      // when it stops), and a kill reaches whatever the command started too.
      const dependencies = dependenciesFile(job);
      const child = spawn(spec.command, spec.args, {
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        env: {
          ...process.env,
          HUB_JOB_ID: job.id,
          HUB_JOB_ATTEMPT: String(job.attempts),
          HUB_AUTOMATION_ID: job.automation_id,
          ...traceEnvironment(job),
          ...dependencies.env,
        },
      });
      const pid = child.pid;
      if (pid !== undefined) running.add(pid);
      const localStderr = spec.stderr ?? process.stderr;
      const killAfterMs = spec.killAfterMs ?? DEFAULT_KILL_AFTER_MS;
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stdoutOverflow = false;
      /** The end of stderr without its ::progress lines, for a failure's error. */
      let stderr = "";
      const stderrLines = lineSplitter((line) => {
        const progress = progressLine(line);
        if (progress) return job.progress(progress.percent, progress.message);
        stderr = (stderr + line + "\n").slice(-2 * STDERR_TAIL_CHARS);
        localStderr.write(`[job ${job.id}] ${line}\n`);
        const { level, message } = logLineOf(line);
        if (message !== "") job.log(level, message);
      });
      let killedFor: "timeout" | "abort" | undefined;
      let graceTimer: NodeJS.Timeout | undefined;

      const killGroup = (signalName: NodeJS.Signals) => {
        if (pid !== undefined) killProcessGroup(pid, signalName);
      };
      const stop = (why: "timeout" | "abort") => {
        if (killedFor || child.exitCode !== null) return;
        killedFor = why;
        killGroup("SIGTERM");
        graceTimer = setTimeout(() => killGroup("SIGKILL"), killAfterMs);
      };
      const timeoutTimer = spec.timeoutMs === undefined ? undefined : setTimeout(() => stop("timeout"), spec.timeoutMs);
      const onAbort = () => stop("abort");
      signal.addEventListener("abort", onAbort, { once: true });

      child.stdout.on("data", (chunk: Buffer) => {
        if (stdoutBytes + chunk.length > MAX_STDOUT_BYTES) stdoutOverflow = true;
        else stdout.push(chunk);
        stdoutBytes += chunk.length;
      });
      child.stderr.setEncoding("utf8").on("data", (text: string) => stderrLines.write(text));
      // A command that does not read its stdin closes it early: nothing to report.
      child.stdin.on("error", () => undefined);
      child.stdin.end(`${JSON.stringify(job.context)}\n`);

      child.on("error", (error) => {
        cleanUp();
        // The worker cannot run its command (missing, not executable): not the job's fault.
        reject(new RetryableError(`cannot run ${spec.command}: ${error.message}`));
      });
      child.on("close", (code, signalName) => {
        cleanUp();
        stderrLines.flush();
        try {
          resolve(outcomeOfExit(code, signalName));
        } catch (error) {
          reject(error);
        }
      });

      function cleanUp() {
        dependencies.remove();
        if (pid !== undefined) running.delete(pid);
        clearTimeout(timeoutTimer);
        clearTimeout(graceTimer);
        signal.removeEventListener("abort", onAbort);
      }

      function outcomeOfExit(code: number | null, signalName: NodeJS.Signals | null): JobResult {
        if (killedFor === "timeout") throw new RetryableError(withStderr(`the command timed out after ${spec.timeoutMs! / 1000} s and was killed`, stderr));
        // The result is no longer wanted (job taken back, or shutdown): what is thrown is not reported.
        if (killedFor === "abort") throw new Error("the command was stopped");
        if (signalName) throw new Error(withStderr(`the command was killed by ${signalName}`, stderr));
        if (code === EXIT_RETRYABLE) throw new RetryableError(withStderr(`the command exited with ${EXIT_RETRYABLE} (temporary failure)`, stderr));
        if (code !== 0) throw new Error(withStderr(`the command exited with ${code}`, stderr));
        if (stdoutOverflow) throw new Error(`the command's stdout is over ${MAX_STDOUT_BYTES} bytes, more than the hub accepts as a result`);
        return resultOf(Buffer.concat(stdout).toString("utf8"));
      }
    });
  return {
    handler,
    killAll: () => {
      for (const pid of running) killProcessGroup(pid, "SIGKILL");
    },
  };
}

function killProcessGroup(pid: number, signalName: NodeJS.Signals): void {
  try {
    process.kill(-pid, signalName);
  } catch {
    // Already gone.
  }
}
