/**
 * The `migrate` command: creates the database named by DATABASE_URL if needed, applies every
 * pending migration (under the same advisory lock the apps take, so it may run beside them), checks
 * the schema fits this build, and exits: 0 when done, 1 with one line on stderr saying why not.
 *
 * - In a checkout: `pnpm migrate` (from the sources).
 * - In every app's production image: `node dist/migrate.js` (tooling/build-app.mjs bundles this
 *   file beside each app's main.js), which is what the Kubernetes Job runs once per release.
 */
import { createLogger, migrateEnvSchema, parseEnv, redactUrl } from "@hub/shared";
import { prepareDatabase } from "./migrate";

try {
  const env = parseEnv(migrateEnvSchema, process.env);
  const logger = createLogger("migrate", env.LOG_LEVEL);
  const status = await prepareDatabase(env.DATABASE_URL, { migrate: true, logger });
  logger.info(
    { database: redactUrl(env.DATABASE_URL), applied: status.applied },
    status.applied.length > 0 ? `applied ${status.applied.length} migration(s)` : "the database was up to date",
  );
} catch (error) {
  process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
