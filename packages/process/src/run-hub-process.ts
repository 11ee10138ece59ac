/**
 * The one start-up and shutdown sequence of every hub process (api, dispatcher, event-relay), so
 * the three `main.ts` files say only what differs: how to read their environment and what to start.
 *
 * - The environment is parsed first; a bad variable is one plain line on stderr and exit 1.
 * - Crash guards: a PostgreSQL or Redis outage that escaped its handler is logged and survived,
 *   anything else is fatal (see `installCrashGuards`).
 * - A start-up failure (database or Redis unreachable, port taken) is one plain line and exit 1.
 * - SIGTERM/SIGINT run the returned `stop` once, raced against a timeout.
 * - V8's heap grows by at most {@link HEAP_GROWING_PERCENT} % over what the last full collection
 *   kept (see there).
 */
import { setFlagsFromString } from "node:v8";
import { isDatabaseUnavailable } from "@hub/db";
import { createLogger, EnvError, isRedisUnavailable, type Logger } from "@hub/shared";
import { activeTracing } from "@hub/tracing";
import { installCrashGuards, onShutdownSignal } from "./shutdown";

/** True for errors that mean PostgreSQL or Redis is unreachable or cut the connection. */
export const isDependencyOutage = (error: unknown): boolean => isDatabaseUnavailable(error) || isRedisUnavailable(error);

export interface HubProcess<Env extends { LOG_LEVEL: string }> {
  /** The app's name: the `app` field of its log lines and the prefix of its start-up errors. */
  name: string;
  /** Parses `process.env`; throws `EnvError` naming the variable. */
  loadEnv(): Env;
  /** Connects and starts; resolves with what stops it cleanly. */
  start(env: Env, logger: Logger): Promise<{ stop(): Promise<void> }>;
}

/**
 * How far V8 lets the heap grow past what its last full collection kept before collecting again.
 * V8's default grows it by up to 4× on a machine with memory to spare, so a process whose live
 * heap is small holds several times that in RSS, most of it garbage. Capped at 1.5×, the API's
 * peak RSS under load is markedly lower for a few percent more API CPU (more frequent full
 * collections; bench/HISTORY.md has the figures). Unlike `--max-old-space-size` it sets no ceiling, so a burst of
 * large requests is collected more often rather than crashing the process; operators who want a
 * hard ceiling as well set `NODE_OPTIONS=--max-old-space-size=…` (deploy/kubernetes does). V8 reads
 * this flag each time it sizes the heap, so setting it at start-up takes effect.
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * How long a stopping process waits for its last spans to reach the collector: a collector that
 * hangs costs the shutdown this much, never the whole shutdown timeout.
 */
export const TRACE_FLUSH_TIMEOUT_MS = 3000;

async function flushTraces(logger: Logger): Promise<void> {
  const tracing = activeTracing();
  if (!tracing) return;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), TRACE_FLUSH_TIMEOUT_MS);
  });
  const outcome = await Promise.race([
    tracing.shutdown().then(
      () => "flushed" as const,
      () => "failed" as const,
    ),
    timedOut,
  ]);
  clearTimeout(timer);
  if (outcome !== "flushed") logger.warn({ outcome }, "last trace spans not exported");
}

export async function runHubProcess<Env extends { LOG_LEVEL: string }>(hubProcess: HubProcess<Env>): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  try {
    const env = hubProcess.loadEnv();
    const logger = createLogger(hubProcess.name, env.LOG_LEVEL);
    installCrashGuards(logger, isDependencyOutage);
    const running = await hubProcess.start(env, logger);
    onShutdownSignal(logger, async () => {
      await running.stop();
      await flushTraces(logger);
    });
  } catch (error) {
    const message = error instanceof EnvError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`${hubProcess.name}: ${message}\n`);
    process.exit(1);
  }
}
