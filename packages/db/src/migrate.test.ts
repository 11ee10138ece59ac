/**
 * Migrating and the schema check against real PostgreSQL. Other builds are stood in for by copies
 * of this build's `drizzle/` folder with one more migration ("the next build"): a database that
 * build migrated is newer than this build; one this build migrated lacks that build's migration.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "@hub/test-services";
import { testServiceUrls } from "@hub/test-services/vitest";
import { functionsFolder } from "./functions";
import { migrationsFolder, prepareDatabase, SchemaMismatchError } from "./migrate";
import { parseMigrationKind, readMigrationCatalogue, type MigrationKind } from "./migration-catalogue";

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const thisBuild = readMigrationCatalogue(migrationsFolder);

const scratchFolders: string[] = [];
const databases: ScratchDatabase[] = [];
afterAll(async () => {
  for (const folder of scratchFolders) rmSync(folder, { recursive: true, force: true });
  await Promise.all(databases.map((database) => database.drop()));
});

/** A copy of this build's migrations plus one more, of `kind`: the migrations of the next build. */
function nextBuild(kind: MigrationKind | "unmarked", tag = `9001_next_${kind}`, options: { whenBeforeTheLast?: boolean } = {}): string {
  const folder = mkdtempSync(path.join(tmpdir(), "hub-next-build-"));
  scratchFolders.push(folder);
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalFile = path.join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { idx: number; when: number; tag: string }[] };
  const last = journal.entries.at(-1)!;
  journal.entries.push({ ...last, idx: last.idx + 1, when: options.whenBeforeTheLast ? last.when - 1 : last.when + 1000, tag });
  writeFileSync(journalFile, JSON.stringify(journal, null, 2));
  const statements = {
    additive: `-- migration: additive. A new nullable column and a new table.\nALTER TABLE "jobs" ADD COLUMN "next_build_note" text;--> statement-breakpoint\nCREATE TABLE "next_build_things" ("id" integer PRIMARY KEY);`,
    breaking: `-- migration: breaking. Renames a column this build writes.\nALTER TABLE "sectors" RENAME COLUMN "color" TO "colour";`,
    unmarked: `ALTER TABLE "jobs" ADD COLUMN "next_build_note" text;`,
  }[kind];
  writeFileSync(path.join(folder, `${tag}.sql`), statements);
  return folder;
}

async function database(options: { migratedBy?: string } = {}): Promise<ScratchDatabase> {
  const created = await createScratchDatabase(testServiceUrls().databaseServerUrl, {
    label: "hub_migrate_test",
    ...(options.migratedBy ? { prepare: (url: string) => prepareDatabase(url, { migrationsFolder: options.migratedBy }) } : {}),
  });
  databases.push(created);
  return created;
}

/** What `prepareDatabase` threw, or undefined. */
async function refusal(promise: Promise<unknown>): Promise<Error | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error as Error;
  }
}

async function query<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

describe("the migration files", () => {
  it("when any migration lacks its 'additive' or 'breaking' first line with a reason, then this fails naming it", () => {
    const unmarked = thisBuild.filter((m) => m.kind === undefined || m.reason.trim().length < 10).map((m) => m.tag);

    expect(unmarked, "first line: `-- migration: additive. <why builds before it keep working>` or `-- migration: breaking. <why not>`").toEqual([]);
  });

  it("when a .sql file is in drizzle/, then the journal lists it (no migration is left out of the check)", () => {
    const files = readdirSync(migrationsFolder)
      .filter((name) => name.endsWith(".sql"))
      .map((name) => name.replace(/\.sql$/, ""));

    expect(files.sort()).toEqual(thisBuild.map((m) => m.tag).sort());
  });

  it("when a first line is read, then only the exact marking counts", () => {
    expect(parseMigrationKind("-- migration: additive. New table.\nCREATE TABLE x ();")).toEqual({ kind: "additive", reason: "New table." });
    expect(parseMigrationKind("-- migration: breaking — drops a column\n")).toEqual({ kind: "breaking", reason: "drops a column" });
    expect(parseMigrationKind("CREATE TABLE x ();\n-- migration: additive. later")).toBeUndefined();
    expect(parseMigrationKind("-- migration: additve. typo")).toBeUndefined();
  });
});

describe("migrating", () => {
  it("when four processes migrate a database that does not exist yet at once, then it is created and each migration applied exactly once", async () => {
    const name = `hub_migrate_test_${randomBytes(6).toString("hex")}`;
    const url = new URL(testServiceUrls().databaseServerUrl);
    url.pathname = `/${name}`;
    databases.push({
      name,
      url: url.toString(),
      drop: () => query(testServiceUrls().databaseServerUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => undefined),
    });

    const results = await Promise.all([1, 2, 3, 4].map(() => prepareDatabase(url.toString())));

    const applied = await query<{ created_at: string }>(url.toString(), "select created_at from drizzle.__drizzle_migrations");
    expect(applied.map((row) => Number(row.created_at)).sort()).toEqual(thisBuild.map((m) => m.createdAt).sort());
    expect(results.map((r) => r.applied.length).sort((a, b) => a - b)).toEqual([0, 0, 0, thisBuild.length]);
  });

  it("when the database is migrated, then each migration's tag and kind are recorded for older builds to read", async () => {
    const { url } = await database({ migratedBy: migrationsFolder });

    const kinds = await query<{ tag: string; additive: boolean }>(url, "select tag, additive from drizzle.hub_migration_kinds order by created_at");

    expect(kinds).toEqual(thisBuild.map((m) => ({ tag: m.tag, additive: m.kind === "additive" })));
  });

  it("when a migration merged from another branch is dated before the newest applied one, then migrating refuses, saying drizzle skipped it and how to fix it", async () => {
    const { url } = await database({ migratedBy: migrationsFolder });
    const merged = nextBuild("additive", "9001_merged_late", { whenBeforeTheLast: true });

    const error = await refusal(prepareDatabase(url, { migrationsFolder: merged }));

    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error?.message).toContain(
      'still lacks 9001_merged_late after migrating: drizzle applies only migrations whose journal "when" is later than the newest one applied',
    );
  });
});

describe("an app with migrate-on-start off (only the check)", () => {
  let stopAfter: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stopAfter?.();
    stopAfter = undefined;
  });

  it("when the database is at this build's schema, then it starts", async () => {
    const { url } = await database({ migratedBy: migrationsFolder });

    await expect(prepareDatabase(url, { migrate: false })).resolves.toEqual({ applied: [], newerAdditive: [], functionsChanged: [] });
  });

  it("when the database lacks a migration of this build, then it refuses, naming the migration and how to apply it", async () => {
    const next = nextBuild("additive");
    const { url, name } = await database({ migratedBy: migrationsFolder });

    const error = await refusal(prepareDatabase(url, { migrate: false, migrationsFolder: next }));

    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error?.message).toContain(`database "${name}" lacks 1 of the ${thisBuild.length + 1} migrations this build needs (9001_next_additive)`);
    expect(error?.message).toContain("node dist/migrate.js");
    expect(error?.message).toContain("HUB_MIGRATE_ON_START=true");
  });

  it("when the database was never migrated, then it refuses, counting every migration as missing", async () => {
    const { url } = await database();

    const error = await refusal(prepareDatabase(url, { migrate: false }));

    expect(error?.message).toContain(`lacks ${thisBuild.length} of the ${thisBuild.length} migrations`);
  });

  it("when the database does not exist, then it refuses and creates nothing", async () => {
    const url = new URL(testServiceUrls().databaseServerUrl);
    const name = `hub_migrate_test_missing_${randomBytes(6).toString("hex")}`;
    url.pathname = `/${name}`;

    const error = await refusal(prepareDatabase(url.toString(), { migrate: false }));

    expect(error?.message).toMatch(new RegExp(`^database "${name}" does not exist: run the migrate command`));
    const found = await query(testServiceUrls().databaseServerUrl, `select 1 from pg_database where datname = '${name}'`);
    expect(found).toEqual([]);
  });

  it("when a newer build's additive migration is applied, then this build starts beside it and warns once", async () => {
    const { url } = await database({ migratedBy: nextBuild("additive") });
    const warnings: unknown[] = [];

    const status = await prepareDatabase(url, { migrate: false, logger: { warn: (fields: unknown) => warnings.push(fields) } });

    expect(status.newerAdditive.map((m) => m.tag)).toEqual(["9001_next_additive"]);
    expect(warnings).toEqual([{ newerMigrations: ["9001_next_additive"] }]);
    // And this build's statements still run on that schema.
    await expect(query(url, `insert into sectors (name, color) values ('after the next build', '#000000') returning id`)).resolves.toHaveLength(1);
  });

  it("when a newer build's breaking migration is applied, then this build refuses, naming it", async () => {
    const { url, name } = await database({ migratedBy: nextBuild("breaking") });

    const error = await refusal(prepareDatabase(url, { migrate: false }));

    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect(error?.message).toContain(
      `database "${name}" has 1 migration(s) newer than this build, and this build cannot run beside 9001_next_breaking (breaking)`,
    );
    expect(error?.message).toContain("deploy the build that applied them");
  });

  it("when a newer migration has no marking in its file, then it counts as breaking", async () => {
    const { url } = await database({ migratedBy: nextBuild("unmarked") });

    const error = await refusal(prepareDatabase(url, { migrate: false }));

    expect(error?.message).toContain("cannot run beside 9001_next_unmarked (breaking)");
  });

  it("when a newer migration's kind was never recorded (applied by a build that did not record kinds), then it counts as breaking", async () => {
    const { url } = await database({ migratedBy: nextBuild("additive") });
    await query(url, "delete from drizzle.hub_migration_kinds where tag = '9001_next_additive'");

    const error = await refusal(prepareDatabase(url, { migrate: false }));

    expect(error?.message).toMatch(/cannot run beside the migration of \S+ \(its kind was not recorded\)/);
  });
});

describe("an app with migrate-on-start on, older than the database", () => {
  it("when the newer migrations are additive, then migrating changes nothing and it starts", async () => {
    const { url } = await database({ migratedBy: nextBuild("additive") });

    const status = await prepareDatabase(url);

    expect(status).toEqual({ applied: [], newerAdditive: [{ tag: "9001_next_additive", createdAt: expect.any(Number) }], functionsChanged: [] });
  });

  it("when its function files differ from the newer build's, then it leaves the newer build's functions in place", async () => {
    const { url } = await database({ migratedBy: nextBuild("additive") });
    const olderFunctions = mkdtempSync(path.join(tmpdir(), "hub-older-functions-"));
    scratchFolders.push(olderFunctions);
    cpSync(functionsFolder, olderFunctions, { recursive: true });
    const file = path.join(olderFunctions, "hub_job_key_value_of.sql");
    writeFileSync(file, readFileSync(file, "utf8").replace("coalesce(context -> concurrency_key, 'null'::jsonb)", `'"older"'::jsonb`));

    const status = await prepareDatabase(url, { functionsFolder: olderFunctions });

    expect(status.functionsChanged).toEqual([]);
    expect(await query(url, `select hub_job_key_value_of('{"k": 1}'::jsonb, 'k') as key`)).toEqual([{ key: 1 }]);
  });

  it("when a newer migration is breaking, then it refuses like a check alone", async () => {
    const { url } = await database({ migratedBy: nextBuild("breaking") });

    await expect(prepareDatabase(url)).rejects.toThrow(/cannot run beside 9001_next_breaking \(breaking\)/);
  });
});

describe("the migrate command", () => {
  const run = promisify(execFile);
  const migrateCommand = (databaseUrl: string, ...args: string[]) =>
    run(process.execPath, ["--import", "tsx", "src/migrate-cli.ts", ...args], {
      cwd: PACKAGE_ROOT,
      env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, LOG_LEVEL: "info" },
      timeout: 60_000,
    });

  it("when run on an empty database and again, then it applies every migration once and then reports it up to date", async () => {
    const { url } = await database();

    const first = await migrateCommand(url);
    const second = await migrateCommand(url);

    expect(JSON.parse(first.stdout.trim().split("\n").at(-1)!)).toMatchObject({ app: "migrate", applied: thisBuild.map((m) => m.tag) });
    expect(JSON.parse(second.stdout.trim().split("\n").at(-1)!)).toMatchObject({ applied: [], msg: "the database was up to date" });
  });

  it("when the database is newer and not additive, then it exits 1 with one line saying so", async () => {
    const { url } = await database({ migratedBy: nextBuild("breaking") });

    const failure = await migrateCommand(url).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );

    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/^migrate: database "\w+" has 1 migration\(s\) newer than this build/);
  });

  it("when --wait runs on a database that lacks migrations, then it applies none itself and exits 0 once another process has applied them", async () => {
    const { url } = await database();

    const waiting = migrateCommand(url, "--wait");
    // It must still be waiting after a check or two: nothing applies the migrations but the test.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const appliedMeanwhile = await query(url, "select to_regclass('drizzle.__drizzle_migrations') as journal");
    await prepareDatabase(url);
    const waited = await waiting;

    expect(appliedMeanwhile).toEqual([{ journal: null }]);
    expect(waited.stdout).toContain("the database has every migration of this build");
  });

  it("when --wait meets a newer schema it cannot run beside, then it exits 1 at once rather than wait forever", async () => {
    const { url } = await database({ migratedBy: nextBuild("breaking") });

    const failure = await migrateCommand(url, "--wait").then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );

    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain("cannot run beside 9001_next_breaking (breaking)");
  });
});
