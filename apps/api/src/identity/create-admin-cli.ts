// `pnpm --filter @hub/api create-admin`: creates the admin named by HUB_ADMIN_EMAIL /
// HUB_ADMIN_PASSWORD in DATABASE_URL (migrating it first), unless a user has that e-mail already.
import { openDatabase, prepareDatabase } from "@hub/db";
import { createLogger } from "@hub/shared";
import { loadCreateAdminEnv } from "../env";
import { ensureFirstAdmin } from "./bootstrap";

try {
  const env = loadCreateAdminEnv();
  await prepareDatabase(env.DATABASE_URL);
  const database = openDatabase(env.DATABASE_URL, { max: 1, applicationName: "hub-create-admin" });
  try {
    const outcome = await ensureFirstAdmin(
      database.pool,
      env.HUB_ADMIN_EMAIL,
      env.HUB_ADMIN_PASSWORD,
      createLogger("create-admin", env.LOG_LEVEL),
      env.HUB_PASSWORD_MIN_LENGTH,
    );
    const email = env.HUB_ADMIN_EMAIL.toLowerCase();
    process.stdout.write(outcome === "created" ? `admin ${email} created\n` : `a user with e-mail ${email} already exists; nothing changed\n`);
  } finally {
    await database.close();
  }
} catch (error) {
  process.stderr.write(`create-admin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
