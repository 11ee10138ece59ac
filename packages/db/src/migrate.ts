import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { createRequire } from "node:module";
import path from "node:path";
import pg from "pg";
import { redactUrl } from "@hub/shared";

/** Folder of the committed SQL migrations, found through the package so bundled apps agree. */
export const migrationsFolder = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@hub/db/package.json")),
  "drizzle",
);

// Any constant works; every hub process takes the same lock so only one migrates at a time.
const MIGRATION_LOCK_KEY = 727_001;

/** Thrown when PostgreSQL cannot be reached; the message says what to do. */
export class DatabaseUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    super(
      `PostgreSQL at ${redactUrl(url)} is unreachable (${cause instanceof Error ? cause.message : String(cause)}): start PostgreSQL or set DATABASE_URL`,
    );
    this.name = "DatabaseUnreachableError";
  }
}

/** Creates the database named in `url` when it does not exist yet. Safe to race. */
export async function ensureDatabaseExists(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, "")) || "postgres";
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await probe.connect();
    return;
  } catch (error) {
    // 3D000 = invalid_catalog_name: the server is up, the database is not there yet.
    if ((error as { code?: string }).code !== "3D000") throw new DatabaseUnreachableError(url, error);
  } finally {
    await probe.end().catch(() => undefined);
  }
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } catch (error) {
    // Another process created it first: 42P04 (duplicate_database) when it had committed, 23505
    // (unique_violation on pg_database) when both CREATE DATABASE statements ran at the same time.
    const code = (error as { code?: string }).code;
    if (code !== "42P04" && code !== "23505") throw new DatabaseUnreachableError(url, error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Creates the database if needed and applies every pending migration, under an advisory lock so
 * that the API, dispatchers and relays starting together do not race.
 */
export async function prepareDatabase(url: string): Promise<void> {
  await ensureDatabaseExists(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query("SET client_min_messages TO warning");
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle(client), { migrationsFolder });
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}
