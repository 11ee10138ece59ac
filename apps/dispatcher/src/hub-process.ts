import { openDatabase, prepareDatabase } from "@hub/db";
import { runHubProcess } from "@hub/process";
import { assertRedisReachable, connectRedis, redisSetup, startMetricsServer } from "@hub/shared";
import { createDispatcher } from "./dispatcher";
import { loadDispatcherEnv } from "./env";

await runHubProcess({
  name: "dispatcher",
  loadEnv: loadDispatcherEnv,
  async start(env, logger) {
    await prepareDatabase(env.DATABASE_URL, { migrate: env.HUB_MIGRATE_ON_START, logger });
    const database = openDatabase(env.DATABASE_URL, { max: 5, applicationName: "hub-dispatcher", logger });
    const { target, keys } = redisSetup(env);
    const redis = connectRedis(target, "hub-dispatcher", { logger });
    await assertRedisReachable(redis, target);
    const dispatcher = createDispatcher({
      database,
      redis,
      keys,
      logger,
      config: {
        maxAttempts: env.HUB_JOB_MAX_ATTEMPTS,
        workerTtlSeconds: env.HUB_WORKER_TTL_SECONDS,
        offerConcurrency: env.HUB_DISPATCHER_CONCURRENCY,
        leaseSweepIntervalMs: env.HUB_LEASE_SWEEP_INTERVAL_MS,
        reconcileIntervalMs: env.HUB_RECONCILE_INTERVAL_MS,
        retentionDays: env.HUB_RETENTION_DAYS,
        retentionIntervalMs: env.HUB_RETENTION_INTERVAL_MS,
        alertEvaluationIntervalMs: env.HUB_ALERTS_EVALUATION_INTERVAL_MS,
        retentionBatchSize: env.HUB_RETENTION_BATCH_SIZE,
      },
    });
    await dispatcher.start();
    const metricsServer = await startMetricsServer(dispatcher.metrics.registry, env.HUB_DISPATCHER_METRICS_PORT, {
      token: env.HUB_METRICS_TOKEN,
      host: env.HOST,
    });
    return {
      async stop() {
        await metricsServer?.close();
        await dispatcher.stop();
        redis.disconnect();
        await database.close();
      },
    };
  },
});
