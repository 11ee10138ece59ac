/**
 * Where tests find PostgreSQL and Redis: `DATABASE_URL` / `REDIS_URL` when set; otherwise, when a
 * Docker engine answers, throw-away testcontainers; otherwise the local servers on 127.0.0.1.
 * Every test file then takes a database and a Redis key prefix of its own
 * ({@link createScratchDatabase}, {@link uniqueRedisPrefix}), so files run in parallel without
 * seeing each other's rows or keys.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";

export interface TestServices {
  /** URL of a server-level database (`.../postgres`); test databases are created beside it. */
  databaseServerUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

function dockerAvailable(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync("/var/run/docker.sock");
}

/** Called once per test run (vitest globalSetup). */
export async function startTestServices(): Promise<TestServices> {
  const envDb = process.env.DATABASE_URL;
  const envRedis = process.env.REDIS_URL;
  if (!envDb && !envRedis && dockerAvailable()) {
    try {
      // Imported lazily: without Docker the package is never loaded.
      const { GenericContainer } = await import("testcontainers");
      const postgres = await new GenericContainer("postgres:15-alpine").withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" }).withExposedPorts(5432).start();
      const redis = await new GenericContainer("redis:7-alpine").withExposedPorts(6379).start();
      return {
        databaseServerUrl: `postgres://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`,
        redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
        stop: async () => {
          await Promise.all([postgres.stop(), redis.stop()]);
        },
      };
    } catch {
      // Docker socket present but unusable: fall back to the local servers.
    }
  }
  return {
    databaseServerUrl: envDb ?? "postgres://postgres@127.0.0.1:5432/postgres",
    redisUrl: envRedis ?? "redis://127.0.0.1:6379",
    stop: async () => undefined,
  };
}

/** A Redis key prefix no other test file uses. */
export function uniqueRedisPrefix(): string {
  return `test-${randomBytes(5).toString("hex")}`;
}
