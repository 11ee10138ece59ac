/**
 * HUB_MIGRATE_ON_START: on by default (the quick start migrates by itself); off, every app only
 * checks that the database has its build's migrations, and exits non-zero saying how to apply them.
 * (The check itself — missing, newer additive, newer breaking — is tested in packages/db.)
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { readMigrationCatalogue, migrationsFolder, SchemaMismatchError } from "@hub/db";
import { createLogger } from "@hub/shared";
import { createScratchDatabase, REPO_ROOT, uniqueRedisPrefix, type ScratchDatabase } from "@hub/testing";
import { testServiceUrls } from "@hub/testing/vitest";
import { startApi } from "../src/app";
import { loadApiEnv } from "../src/env";

const migrationCount = readMigrationCatalogue(migrationsFolder).length;
const databases: ScratchDatabase[] = [];
afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
});

/** A database that exists but was never migrated. */
async function emptyDatabase(): Promise<ScratchDatabase> {
  const database = await createScratchDatabase(testServiceUrls().databaseServerUrl, { label: "hub_test_unmigrated" });
  databases.push(database);
  return database;
}

function apiEnv(databaseUrl: string, overrides: Record<string, string> = {}) {
  return loadApiEnv({
    DATABASE_URL: databaseUrl,
    REDIS_URL: testServiceUrls().redisUrl,
    HUB_REDIS_PREFIX: uniqueRedisPrefix(),
    PORT: "0",
    HUB_JWT_SECRET: "test-secret-that-is-at-least-32-characters-long",
    LOG_LEVEL: "silent",
    ...overrides,
  });
}

describe("migrations at start-up", () => {
  it("when HUB_MIGRATE_ON_START is unset and the database is empty, then the API migrates it and is ready", async () => {
    const { url } = await emptyDatabase();

    const api = await startApi(apiEnv(url), createLogger("api-test", "silent"));
    try {
      const ready = await fetch(`${api.url}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      await api.stop();
    }
  });

  it("when HUB_MIGRATE_ON_START=false and the database is empty, then the API does not start and names what is missing", async () => {
    const { url } = await emptyDatabase();

    const started = startApi(apiEnv(url, { HUB_MIGRATE_ON_START: "false" }), createLogger("api-test", "silent"));

    await expect(started).rejects.toBeInstanceOf(SchemaMismatchError);
    await expect(started).rejects.toThrow(`lacks ${migrationCount} of the ${migrationCount} migrations this build needs`);
  });

  it("when HUB_MIGRATE_ON_START is not true or false, then the API refuses the setting by name", () => {
    expect(() => apiEnv("postgres://postgres@127.0.0.1:5432/x", { HUB_MIGRATE_ON_START: "no" })).toThrow(
      "Configuration error: HUB_MIGRATE_ON_START is invalid: expected true or false",
    );
  });

  it("when each app starts as a process with HUB_MIGRATE_ON_START=false on an unmigrated database, then it exits 1 with one line saying how to migrate", async () => {
    const { url, name } = await emptyDatabase();
    const run = promisify(execFile);
    const env = {
      PATH: process.env.PATH,
      DATABASE_URL: url,
      REDIS_URL: testServiceUrls().redisUrl,
      HUB_REDIS_PREFIX: uniqueRedisPrefix(),
      HUB_MIGRATE_ON_START: "false",
      HUB_JWT_SECRET: "test-secret-that-is-at-least-32-characters-long",
      PORT: "0",
      HUB_DISPATCHER_METRICS_PORT: "0",
      HUB_RELAY_METRICS_PORT: "0",
      LOG_LEVEL: "silent",
    };

    const outcomes = await Promise.all(
      (["api", "dispatcher", "event-relay"] as const).map((app) =>
        run(process.execPath, ["--import", "tsx", `apps/${app}/src/main.ts`], { cwd: REPO_ROOT, env, timeout: 90_000 }).then(
          () => ({ app, code: 0, stderr: "" }),
          (error: { code: number; stderr: string }) => ({ app, code: error.code, stderr: error.stderr }),
        ),
      ),
    );

    for (const { app, code, stderr } of outcomes) {
      expect(code, app).toBe(1);
      expect(stderr.trim(), app).toBe(
        `${app}: database "${name}" lacks ${migrationCount} of the ${migrationCount} migrations this build needs ` +
          `(${readMigrationCatalogue(migrationsFolder)
            .map((m) => m.tag)
            .join(", ")}): run the migrate command once against this DATABASE_URL (\`node dist/migrate.js\` in an app's image, ` +
          "`pnpm migrate` in a checkout), or start with HUB_MIGRATE_ON_START=true",
      );
    }
  });
});
