/** The command line of hub-worker: `hub-worker --url URL --api-key-file FILE [options] -- COMMAND [ARGS]`. */
import { parseArgs } from "node:util";

export const USAGE = `Usage: hub-worker --url URL --api-key-file FILE [options] -- COMMAND [ARGS...]

Runs COMMAND once for each job of the automation whose worker api key FILE holds:
the job's context arrives as JSON on stdin, HUB_JOB_ID (and HUB_JOB_ATTEMPT, HUB_AUTOMATION_ID)
in the environment. A job with dependencies also gets HUB_JOB_DEPENDENCIES_FILE: a JSON file of
[{id, automation_id, status, result, error}], in its depends_on order, removed after COMMAND exits. Exit 0 with a JSON object (or nothing) on stdout completes the job with it;
exit 75 (EX_TEMPFAIL) fails it as retryable; any other exit fails it with the end of stderr.
Each stderr line becomes a line of the job's log on the hub (level info; "::warn MESSAGE" and
likewise ::debug, ::info, ::error set the level); a line "::progress PERCENT [MESSAGE]" sets the
job's progress instead. When the hub cancels the job, COMMAND gets SIGTERM, then SIGKILL.

Options:
  --url URL                  the hub's base URL, e.g. https://hub.example.com
  --api-key-file FILE        a file holding the worker's api key (never pass the key itself)
  --concurrency N            commands run at once, 1-1000 (default 1)
  --timeout S                kill a command after S seconds and fail its job as retryable (default: none)
  --kill-after S             after SIGTERM (job cancelled, timed out, shutdown deadline), send
                             SIGKILL S seconds later if the command still runs (default 10)
  --shutdown-timeout S       on SIGTERM/SIGINT, let running commands finish for S seconds,
                             then kill them and fail their jobs as retryable (default 30)
  --wait S                   long-poll of each claim, 0-30 seconds (default 20)
  --log-level LEVEL          fatal, error, warn, info, debug, trace or silent (default info)
  -h, --help                 this text
  -v, --version              the version`;

export interface CliOptions {
  url: string;
  apiKeyFile: string;
  concurrency: number;
  /** Milliseconds a command may run; undefined: no limit. */
  timeoutMs: number | undefined;
  /** Milliseconds between SIGTERM and SIGKILL. */
  killAfterMs: number;
  shutdownTimeoutMs: number;
  waitSeconds: number;
  logLevel: string;
  command: string;
  args: string[];
}

export type ParsedCommandLine = { kind: "run"; options: CliOptions } | { kind: "help" } | { kind: "version" };

/** A mistake on the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function whole(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return value;
}

export function parseCommandLine(argv: string[]): ParsedCommandLine {
  const separator = argv.indexOf("--");
  const own = separator === -1 ? argv : argv.slice(0, separator);
  let values;
  try {
    ({ values } = parseArgs({
      args: own,
      strict: true,
      allowPositionals: false,
      options: {
        url: { type: "string" },
        "api-key-file": { type: "string" },
        concurrency: { type: "string" },
        timeout: { type: "string" },
        "kill-after": { type: "string" },
        "shutdown-timeout": { type: "string" },
        wait: { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  if (!values.url) throw new UsageError("--url is required");
  try {
    const url = new URL(values.url);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new UsageError(`--url must be an http(s) URL such as https://hub.example.com, not "${values.url}"`);
  }
  if (!values["api-key-file"]) throw new UsageError("--api-key-file is required");
  const [command, ...args] = separator === -1 ? [] : argv.slice(separator + 1);
  if (!command) throw new UsageError("give the command to run after --, e.g. hub-worker … -- python3 worker.py");
  const logLevel = values["log-level"] ?? "info";
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}`);
  const timeoutSeconds = values.timeout === undefined ? undefined : whole("timeout", values.timeout, 0, 1, 604_800);
  return {
    kind: "run",
    options: {
      url: values.url,
      apiKeyFile: values["api-key-file"],
      concurrency: whole("concurrency", values.concurrency, 1, 1, 1000),
      timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
      killAfterMs: whole("kill-after", values["kill-after"], 10, 0, 3600) * 1000,
      shutdownTimeoutMs: whole("shutdown-timeout", values["shutdown-timeout"], 30, 0, 86_400) * 1000,
      waitSeconds: whole("wait", values.wait, 20, 0, 30),
      logLevel,
      command,
      args,
    },
  };
}
