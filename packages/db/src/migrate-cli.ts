/**
 * The `migrate` command: creates the database named by DATABASE_URL if needed, applies every
 * pending migration and then the function files of packages/db/functions (under the same advisory
 * lock the apps take, so it may run beside them), checks the schema fits this build, and exits: 0
 * when done, 1 with one line on stderr saying why not.
 *
 * `--wait` applies nothing: it waits until the database has every migration of this build (someone
 * else runs the migrations: the Kubernetes Job), checking every 2 s and saying what it waits for
 * every 30 s, then exits 0; it exits 1 at once when the schema is of a newer build this one cannot
 * run beside, which no waiting repairs. The Deployments run it as an init container, so their pods
 * wait for the Job instead of restarting until it is done.
 *
 * - In a checkout: `pnpm migrate` (from the sources).
 * - In every app's production image: `node dist/migrate.js [--wait]` (tooling/build-app.mjs
 *   bundles this file beside each app's main.js).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createLogger, migrateEnvSchema, parseEnv, redactUrl, type Logger } from "@hub/shared";
import { DatabaseUnreachableError, prepareDatabase, SchemaMismatchError } from "./migrate";

const WAIT_POLL_MS = 2_000;
const WAIT_REPORT_MS = 30_000;

async function waitForSchema(url: string, logger: Logger): Promise<void> {
  let lastReport = 0;
  for (;;) {
    try {
      await prepareDatabase(url, { migrate: false, logger });
      logger.info({ database: redactUrl(url) }, "the database has every migration of this build");
      return;
    } catch (error) {
      const waitable = (error instanceof SchemaMismatchError && error.reason === "missing") || error instanceof DatabaseUnreachableError;
      if (!waitable) throw error;
      if (Date.now() - lastReport >= WAIT_REPORT_MS) {
        logger.info({ waitingFor: error.message }, "waiting for the migrations (the migrate Job applies them)");
        lastReport = Date.now();
      }
    }
    await sleep(WAIT_POLL_MS);
  }
}

try {
  const env = parseEnv(migrateEnvSchema, process.env);
  const logger = createLogger("migrate", env.LOG_LEVEL);
  if (process.argv.includes("--wait")) {
    await waitForSchema(env.DATABASE_URL, logger);
  } else {
    const status = await prepareDatabase(env.DATABASE_URL, { migrate: true, logger });
    logger.info(
      { database: redactUrl(env.DATABASE_URL), applied: status.applied, functionsChanged: status.functionsChanged },
      status.applied.length > 0 || status.functionsChanged.length > 0
        ? `applied ${status.applied.length} migration(s) and ${status.functionsChanged.length} changed function(s)`
        : "the database was up to date",
    );
  }
} catch (error) {
  process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
