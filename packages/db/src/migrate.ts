import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { createRequire } from "node:module";
import path from "node:path";
import pg from "pg";
import { redactUrl, type Logger } from "@hub/shared";
import { applyFunctions, functionsFolder, listMissingFunctions, readFunctionFiles } from "./functions";
import { readMigrationCatalogue, type CatalogueMigration } from "./migration-catalogue";
import { listAppliedMigrations, recordMigrationKinds, type AppliedMigration } from "./sql/migrations/applied";

/** Folder of the committed SQL migrations, found through the package so bundled apps agree. */
export const migrationsFolder = path.join(path.dirname(createRequire(import.meta.url).resolve("@hub/db/package.json")), "drizzle");

// Any constant works; every hub process takes the same lock so only one migrates at a time.
const MIGRATION_LOCK_KEY = 727_001;

/** Thrown when PostgreSQL cannot be reached; the message says what to do. */
export class DatabaseUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`PostgreSQL at ${redactUrl(url)} is unreachable (${cause instanceof Error ? cause.message : String(cause)}): start PostgreSQL or set DATABASE_URL`);
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
 * The schema does not fit this build: `missing`, migrations of this build are not applied (or the
 * database does not exist), which the migrate command repairs; `newer`, the database has migrations
 * of a newer build that are not all additive, which only a newer build can run on. The message says
 * what to do.
 */
export class SchemaMismatchError extends Error {
  constructor(
    readonly reason: "missing" | "newer",
    message: string,
  ) {
    super(message);
    this.name = "SchemaMismatchError";
  }
}

/** How a database's schema stands against this build once {@link prepareDatabase} accepted it. */
export interface SchemaStatus {
  /** Tags of the migrations this call applied, oldest first (none when it only checked). */
  applied: string[];
  /** Migrations of a newer build, every one additive: this build runs beside them. */
  newerAdditive: { tag: string; createdAt: number }[];
  /**
   * Functions (`functions/<name>.sql`) whose definition this call changed, by name: none when it only
   * checked, when the database already had them as written, or when the schema is a newer build's.
   */
  functionsChanged: string[];
}

export interface PrepareDatabaseOptions {
  /**
   * Apply this build's pending migrations first (default true: `HUB_MIGRATE_ON_START`). False:
   * only check, for deployments that run the `migrate` command once per release.
   */
  migrate?: boolean;
  /** Default: this package's `drizzle/` folder; tests stand in for other builds with their own. */
  migrationsFolder?: string;
  /** Default: this package's `functions/` folder; tests stand in for a changed function with their own. */
  functionsFolder?: string;
  /** Warned when the schema has newer additive migrations. */
  logger?: Pick<Logger, "warn">;
}

const MIGRATE_HINT =
  "run the migrate command once against this DATABASE_URL (`node dist/migrate.js` in an app's image, `pnpm migrate` in a checkout), or start with HUB_MIGRATE_ON_START=true";

function describeApplied(migration: AppliedMigration): string {
  const name = migration.tag ?? `the migration of ${new Date(migration.createdAt).toISOString()}`;
  if (migration.additive === null) return `${name} (its kind was not recorded)`;
  return `${name} (${migration.additive ? "additive" : "breaking"})`;
}

/**
 * Compares the database's applied migrations with this build's. Throws when one of the build's
 * is missing, or when the database has a migration the build does not know that is not recorded as
 * additive; answers the newer additive ones otherwise.
 */
function checkSchema(databaseName: string, catalogue: CatalogueMigration[], applied: AppliedMigration[], migrated: boolean): SchemaStatus["newerAdditive"] {
  const appliedAt = new Set(applied.map((m) => m.createdAt));
  const knownAt = new Set(catalogue.map((m) => m.createdAt));
  const missing = catalogue.filter((m) => !appliedAt.has(m.createdAt));
  if (missing.length > 0 && migrated) {
    // drizzle applies only the migrations whose `when` is later than the newest one applied: one
    // merged from another branch with an earlier `when` is skipped, and migrating again cannot help.
    throw new SchemaMismatchError(
      "missing",
      `database "${databaseName}" still lacks ${missing.map((m) => m.tag).join(", ")} after migrating: drizzle applies only migrations whose journal "when" ` +
        `is later than the newest one applied (${new Date(Math.max(...applied.map((m) => m.createdAt))).toISOString()}); give them a later "when" in drizzle/meta/_journal.json`,
    );
  }
  if (missing.length > 0) {
    throw new SchemaMismatchError(
      "missing",
      `database "${databaseName}" lacks ${missing.length} of the ${catalogue.length} migrations this build needs (${missing.map((m) => m.tag).join(", ")}): ${MIGRATE_HINT}`,
    );
  }
  const newer = applied.filter((m) => !knownAt.has(m.createdAt));
  const refused = newer.filter((m) => m.additive !== true);
  if (refused.length > 0) {
    throw new SchemaMismatchError(
      "newer",
      `database "${databaseName}" has ${newer.length} migration(s) newer than this build, and this build cannot run beside ${refused.map(describeApplied).join(", ")}: ` +
        "deploy the build that applied them (or a newer one); a build may only run on a newer schema when every newer migration is additive",
    );
  }
  return newer.map((m) => ({ tag: m.tag ?? String(m.createdAt), createdAt: m.createdAt }));
}

/**
 * Makes the database fit this build, or says why it cannot. With `migrate` (the default): creates
 * the database if needed and applies every pending migration, under an advisory lock so that the
 * API, dispatchers, relays and a `migrate` job starting together do not race (drizzle applies the
 * pending ones in one transaction, so the others then find nothing to do), records each
 * migration's kind, then applies the function files (`functions/`, see ./functions.ts) in one
 * transaction of their own under the same lock. Then, migrated or not, checks the schema against
 * the build: a missing migration or function, or a newer migration that is not additive, throws a
 * {@link SchemaMismatchError}.
 */
export async function prepareDatabase(url: string, options: PrepareDatabaseOptions = {}): Promise<SchemaStatus> {
  const migrationsFolderOfBuild = options.migrationsFolder ?? migrationsFolder;
  const catalogue = readMigrationCatalogue(migrationsFolderOfBuild);
  const functionFiles = readFunctionFiles(options.functionsFolder ?? functionsFolder);
  const databaseName = decodeURIComponent(new URL(url).pathname.replace(/^\//, "")) || "postgres";
  const shouldMigrate = options.migrate ?? true;
  if (shouldMigrate) await ensureDatabaseExists(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, application_name: "hub-migrate" });
  try {
    await client.connect();
  } catch (error) {
    // 3D000 = invalid_catalog_name: only reachable without migrate, which would have created it.
    if ((error as { code?: string }).code === "3D000") throw new SchemaMismatchError("missing", `database "${databaseName}" does not exist: ${MIGRATE_HINT}`);
    throw new DatabaseUnreachableError(url, error);
  }
  try {
    let appliedByThisCall: string[] = [];
    let functionsChanged: string[] = [];
    if (shouldMigrate) {
      await client.query("SET client_min_messages TO warning");
      await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
      try {
        const before = new Set((await listAppliedMigrations(client)).map((m) => m.createdAt));
        await migrate(drizzle(client), { migrationsFolder: migrationsFolderOfBuild });
        await recordMigrationKinds(client, catalogue);
        const after = new Set((await listAppliedMigrations(client)).map((m) => m.createdAt));
        appliedByThisCall = catalogue.filter((m) => after.has(m.createdAt) && !before.has(m.createdAt)).map((m) => m.tag);
        // A build older than the schema leaves the functions to the newer build that applied them:
        // rewriting them would hand that build's processes this build's rules.
        const knownAt = new Set(catalogue.map((m) => m.createdAt));
        const schemaIsNewer = [...after].some((createdAt) => !knownAt.has(createdAt));
        if (!schemaIsNewer) functionsChanged = await applyFunctions(client, functionFiles);
      } finally {
        await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
      }
    }
    const newerAdditive = checkSchema(databaseName, catalogue, await listAppliedMigrations(client), shouldMigrate);
    const missingFunctions = await listMissingFunctions(client, functionFiles);
    if (missingFunctions.length > 0) {
      throw new SchemaMismatchError(
        "missing",
        `database "${databaseName}" lacks ${missingFunctions.length} of the ${functionFiles.length} functions this build calls (${missingFunctions.join(", ")}): ${MIGRATE_HINT}`,
      );
    }
    if (newerAdditive.length > 0) {
      options.logger?.warn({ newerMigrations: newerAdditive.map((m) => m.tag) }, "the database has additive migrations of a newer build: running beside them");
    }
    return { applied: appliedByThisCall, newerAdditive, functionsChanged };
  } finally {
    await client.end().catch(() => undefined);
  }
}
