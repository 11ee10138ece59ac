import type { Redis } from "ioredis";
import { openDatabase, type Database } from "@hub/db";
import { createLogger, createRedis, redisKeys, type Logger, type RedisKeys } from "@hub/shared";
import { uniqueRedisPrefix } from "@hub/test-services";
import { testServiceUrls } from "@hub/test-services/vitest";
import { deleteRedisKeys } from "./redis-cleanup";
import { createTestDatabase, type TestDatabase } from "./test-database";

/** A test file's own migrated database and Redis key prefix, with connections to both. */
export interface TestEnvironment {
  testDatabase: TestDatabase;
  database: Database;
  /** A connection to the shared test Redis. */
  redis: Redis;
  redisUrl: string;
  /** HUB_REDIS_PREFIX of this environment: every key it writes starts with `${prefix}:`. */
  prefix: string;
  keys: RedisKeys;
  /** LOG_LEVEL of the test run ("silent" unless set). */
  logger: Logger;
  /** Deletes the prefix's keys, closes the connections and drops the database. */
  close(): Promise<void>;
}

/** Opens a {@link TestEnvironment} on the servers of the vitest global setup (`name` labels its connections). */
export async function openTestEnvironment(name: string, options: { poolSize?: number } = {}): Promise<TestEnvironment> {
  const services = testServiceUrls();
  const testDatabase = await createTestDatabase(services.databaseServerUrl);
  const database = openDatabase(testDatabase.url, { max: options.poolSize ?? 5, applicationName: name });
  const redis = createRedis(services.redisUrl, name);
  const prefix = uniqueRedisPrefix();
  return {
    testDatabase,
    database,
    redis,
    redisUrl: services.redisUrl,
    prefix,
    keys: redisKeys(prefix),
    logger: createLogger(name, process.env.LOG_LEVEL ?? "silent"),
    close: async () => {
      await deleteRedisKeys(redis, prefix);
      redis.disconnect();
      await database.close();
      await testDatabase.drop();
    },
  };
}
