#!/usr/bin/env node
/**
 * hub-worker: makes any program a worker of Automation Hub.
 *
 *   hub-worker --url https://hub.example.com --api-key-file /etc/hub/invoice-export.key -- python3 export.py
 *
 * Exit codes: 0 after a graceful stop, 1 when the worker gave up (the api key stopped working),
 * 2 for a mistake on the command line or an unreadable key file.
 */
import { accessSync, constants, readFileSync } from "node:fs";
import path from "node:path";
import { parseCommandLine, USAGE, UsageError, type CliOptions } from "./cli/args.js";
import { commandRunner } from "./cli/run-command.js";
import { defaultLogger } from "./logging.js";
import { createWorker } from "./worker.js";

function fail(message: string, showUsage = false): never {
  process.stderr.write(`hub-worker: ${message}\n${showUsage ? `\n${USAGE}\n` : ""}`);
  process.exit(2);
}

function readApiKey(file: string): string {
  let key: string;
  try {
    key = readFileSync(file, "utf8").trim();
  } catch (error) {
    fail(`cannot read the api key file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (!key) fail(`the api key file ${file} is empty`);
  return key;
}

/** Whether `command` can be run: a path to an executable file, or a name found on PATH. */
function isRunnable(command: string): boolean {
  const candidates = command.includes("/")
    ? [command]
    : (process.env.PATH ?? "")
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  return candidates.some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

async function main(options: CliOptions): Promise<void> {
  const apiKey = readApiKey(options.apiKeyFile);
  if (!isRunnable(options.command)) fail(`cannot run ${options.command}: not an executable file, nor found on PATH`);
  const logger = defaultLogger(options.logLevel);
  const runner = commandRunner({ command: options.command, args: options.args, timeoutMs: options.timeoutMs, killAfterMs: options.killAfterMs });
  const worker = createWorker({
    url: options.url,
    apiKey,
    handler: runner.handler,
    concurrency: options.concurrency,
    waitSeconds: options.waitSeconds,
    shutdownTimeoutMs: options.shutdownTimeoutMs,
    logger,
  });
  let exitCode = 0;
  try {
    await worker.run();
  } catch {
    // Logged by the worker ("worker gave up").
    exitCode = 1;
  } finally {
    // Commands given up at the shutdown deadline got SIGTERM; none outlives hub-worker.
    runner.killAll();
  }
  process.exit(exitCode);
}

let parsed;
try {
  parsed = parseCommandLine(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) fail(error.message, true);
  throw error;
}
if (parsed.kind === "help") process.stdout.write(`${USAGE}\n`);
else if (parsed.kind === "version") process.stdout.write(`${version()}\n`);
else await main(parsed.options);
