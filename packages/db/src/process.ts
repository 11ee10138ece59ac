/**
 * The one start-up and shutdown sequence of every hub process (api, dispatcher, event-relay), so
 * the three `main.ts` files say only what differs: how to read their environment and what to start.
 *
 * - The environment is parsed first; a bad variable is one plain line on stderr and exit 1.
 * - Crash guards: a PostgreSQL or Redis outage that escaped its handler is logged and survived,
 *   anything else is fatal (see `installCrashGuards`).
 * - A start-up failure (database or Redis unreachable, port taken) is one plain line and exit 1.
 * - SIGTERM/SIGINT run the returned `stop` once, raced against a timeout.
 */
import { createLogger, EnvError, installCrashGuards, isRedisUnavailable, onShutdownSignal, type Logger } from "@hub/shared";
import { isDatabaseUnavailable } from "./errors";

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

export async function runHubProcess<Env extends { LOG_LEVEL: string }>(hubProcess: HubProcess<Env>): Promise<void> {
  try {
    const env = hubProcess.loadEnv();
    const logger = createLogger(hubProcess.name, env.LOG_LEVEL);
    installCrashGuards(logger, isDependencyOutage);
    const running = await hubProcess.start(env, logger);
    onShutdownSignal(logger, running.stop);
  } catch (error) {
    const message = error instanceof EnvError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`${hubProcess.name}: ${message}\n`);
    process.exit(1);
  }
}
