import { isDatabaseUnavailable, openDatabase, prepareDatabase } from "@hub/db";
import {
  assertRedisReachable,
  createLogger,
  createRedis,
  installCrashGuards,
  isRedisUnavailable,
  onShutdownSignal,
  redisKeys,
  startMetricsServer,
} from "@hub/shared";
import { createDispatcher } from "./dispatcher";
import { loadDispatcherEnv } from "./env";

try {
  const env = loadDispatcherEnv();
  const logger = createLogger("dispatcher", env.LOG_LEVEL);
  installCrashGuards(logger, (error) => isDatabaseUnavailable(error) || isRedisUnavailable(error));
  await prepareDatabase(env.DATABASE_URL);
  const database = openDatabase(env.DATABASE_URL, { max: 5, applicationName: "hub-dispatcher", logger });
  const redis = createRedis(env.REDIS_URL, "hub-dispatcher", { logger });
  await assertRedisReachable(redis, env.REDIS_URL);
  const dispatcher = createDispatcher({
    database,
    redis,
    keys: redisKeys(env.HUB_REDIS_PREFIX),
    logger,
    config: {
      maxAttempts: env.HUB_JOB_MAX_ATTEMPTS,
      workerTtlSeconds: env.HUB_WORKER_TTL_SECONDS,
      offerConcurrency: env.HUB_DISPATCHER_CONCURRENCY,
      leaseSweepIntervalMs: env.HUB_LEASE_SWEEP_INTERVAL_MS,
      reconcileIntervalMs: env.HUB_RECONCILE_INTERVAL_MS,
    },
  });
  await dispatcher.start();
  const metricsServer = await startMetricsServer(dispatcher.metrics.registry, env.HUB_DISPATCHER_METRICS_PORT);
  onShutdownSignal(logger, async () => {
    await metricsServer?.close();
    await dispatcher.stop();
    redis.disconnect();
    await database.close();
  });
} catch (error) {
  process.stderr.write(`dispatcher: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
