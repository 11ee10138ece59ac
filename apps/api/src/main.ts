import { isDatabaseUnavailable } from "@hub/db";
import { createLogger, EnvError, installCrashGuards, isRedisUnavailable, onShutdownSignal } from "@hub/shared";
import { startApi } from "./app";
import { loadApiEnv } from "./env";

try {
  const env = loadApiEnv();
  const logger = createLogger("api", env.LOG_LEVEL);
  installCrashGuards(logger, (error) => isDatabaseUnavailable(error) || isRedisUnavailable(error));
  const api = await startApi(env, logger);
  onShutdownSignal(logger, api.stop);
} catch (error) {
  // A configuration or connectivity problem: one plain line, exit non-zero.
  process.stderr.write(`api: ${error instanceof EnvError ? error.message : error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
