import { openDatabase, prepareDatabase, events } from "@hub/db";
import { runHubProcess } from "@hub/process";
import { connectRedis, describeRedisTarget, redisSetup, startMetricsServer } from "@hub/shared";
import { WebhookSecretBox } from "@hub/shared/webhooks";
import { loadRelayEnv } from "./env";
import { createRelayMetrics } from "./metrics";
import { createEventRelay } from "./relay";
import { createWebhookDelivery } from "./webhooks/delivery-loop";

await runHubProcess({
  name: "event-relay",
  loadEnv: loadRelayEnv,
  async start(env, logger) {
    await prepareDatabase(env.DATABASE_URL, { migrate: env.HUB_MIGRATE_ON_START, logger });
    const database = openDatabase(env.DATABASE_URL, { max: 4, applicationName: "hub-event-relay", logger });
    // Redis being down at start-up is no reason to exit: the relay backs off and catches up later.
    const { target, keys } = redisSetup(env);
    const redis = connectRedis(target, "hub-event-relay");
    // The relay logs an outage once itself; without a listener ioredis prints every failed reconnect.
    redis.on("error", () => undefined);
    const metrics = createRelayMetrics({ readBacklog: () => events.measureOutboxBacklog(database.pool), defaultMetrics: true });
    // Without the key no secret can be opened: deliveries wait (pending) until a relay has it.
    const webhooks = env.HUB_WEBHOOK_ENCRYPTION_KEY
      ? createWebhookDelivery({
          pool: database.pool,
          secrets: new WebhookSecretBox(env.HUB_WEBHOOK_ENCRYPTION_KEY),
          logger,
          relayMetrics: metrics,
          config: {
            policy: { allowInsecure: env.HUB_WEBHOOKS_ALLOW_INSECURE, allowPrivate: env.HUB_WEBHOOKS_ALLOW_PRIVATE },
            maxInFlight: env.HUB_WEBHOOK_CONCURRENCY,
            maxInFlightPerWebhook: env.HUB_WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION,
            timeScale: env.HUB_WEBHOOK_TIME_SCALE,
          },
        })
      : undefined;
    if (!webhooks) logger.warn("HUB_WEBHOOK_ENCRYPTION_KEY is not set: this relay delivers no webhooks");
    const relay = createEventRelay({
      db: database.pool,
      databaseUrl: env.DATABASE_URL,
      redis,
      keys,
      logger,
      metrics,
      config: {
        streamMaxLen: env.HUB_EVENTS_STREAM_MAXLEN,
        batchSize: env.HUB_RELAY_BATCH_SIZE,
        idlePollMs: env.HUB_RELAY_IDLE_POLL_MS,
        quietPollMs: env.HUB_RELAY_QUIET_POLL_MS,
        rebalanceMs: env.HUB_RELAY_REBALANCE_MS,
        publishTimeoutMs: env.HUB_RELAY_PUBLISH_TIMEOUT_MS,
        maxBackoffMs: env.HUB_RELAY_MAX_BACKOFF_MS,
      },
      onWebhookDeliveriesQueued: () => webhooks?.wake(),
    });
    await relay.start();
    webhooks?.start();
    const metricsServer = await startMetricsServer(metrics.registry, env.HUB_RELAY_METRICS_PORT, {
      token: env.HUB_METRICS_TOKEN,
      host: env.HOST,
      health: () => ({
        owned_partitions: relay.ownedPartitions().length,
        redis: redis.status,
      }),
    });
    logger.info(
      {
        stream: keys.eventsStream,
        redis: describeRedisTarget(target),
        metricsPort: metricsServer?.port ?? null,
        webhooks: webhooks ? "delivering" : "off",
      },
      "event relay started",
    );
    return {
      async stop() {
        await metricsServer?.close();
        await Promise.all([relay.stop(), webhooks?.stop()]);
        redis.disconnect();
        await database.close();
      },
    };
  },
});
