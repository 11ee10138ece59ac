/** Rows and connections for dispatcher tests, written straight to the database. */
import { automations, jobs, openDatabase, sectors, workers, type Database } from "@hub/db";
import { createTestDatabase, uniqueRedisPrefix, type TestDatabase } from "@hub/db/testing";
import { testServiceUrls } from "@hub/db/testing/inject";
import { createLogger, createRedis, redisKeys, type RedisKeys } from "@hub/shared";
import type { Redis } from "ioredis";
import { randomBytes } from "node:crypto";

export interface DispatcherTestEnv {
  database: Database;
  testDatabase: TestDatabase;
  redis: Redis;
  redisUrl: string;
  prefix: string;
  keys: RedisKeys;
  logger: ReturnType<typeof createLogger>;
  close(): Promise<void>;
}

export async function openTestEnv(): Promise<DispatcherTestEnv> {
  const services = testServiceUrls();
  const testDatabase = await createTestDatabase(services.databaseServerUrl);
  const database = openDatabase(testDatabase.url, { max: 5 });
  const redis = createRedis(services.redisUrl, "dispatcher-test");
  const prefix = uniqueRedisPrefix();
  return {
    database,
    testDatabase,
    redis,
    redisUrl: services.redisUrl,
    prefix,
    keys: redisKeys(prefix),
    logger: createLogger("dispatcher-test", process.env.LOG_LEVEL ?? "silent"),
    close: async () => {
      const stale = await redis.keys(`${prefix}:*`);
      if (stale.length > 0) await redis.del(...stale);
      redis.disconnect();
      await database.close();
      await testDatabase.drop();
    },
  };
}

/** An active automation (with a registered worker) in a new sector. */
export async function insertAutomation(database: Database, maxConcurrentJobs = 1) {
  const suffix = randomBytes(4).toString("hex");
  const [sector] = await database.db.insert(sectors).values({ name: `sector-${suffix}`, color: "#112233" }).returning();
  const [automation] = await database.db
    .insert(automations)
    .values({ name: `automation ${suffix}`, slug: `automation-${suffix}`, sectorId: sector!.id, maxConcurrentJobs })
    .returning();
  const [worker] = await database.db
    .insert(workers)
    .values({ automationId: automation!.id, cloudInstanceId: "i-test", apiKeyHash: randomBytes(32).toString("hex") })
    .returning();
  return { automation: automation!, worker: worker! };
}

export async function insertQueuedJobs(database: Database, automationId: string, count: number) {
  return database.db
    .insert(jobs)
    .values(Array.from({ length: count }, (_, index) => ({ automationId, context: { index } })))
    .returning();
}
