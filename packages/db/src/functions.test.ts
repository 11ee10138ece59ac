/**
 * The function files (`packages/db/functions/<name>.sql`) against real PostgreSQL: applied after the
 * migrations on every migrating start, a no-op when nothing changed, an edited file in effect at the
 * next start, a new signature refused, and a database migrated by the build before the files
 * existed (whose migrations held every body) upgraded to exactly the schema a fresh migrate makes.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "@hub/test-services";
import { testServiceUrls } from "@hub/test-services/vitest";
import { functionsFolder, FunctionFileError, readFunctionFiles } from "./functions";
import { migrationsFolder, prepareDatabase, SchemaMismatchError } from "./migrate";
import { dumpSchema, schemaSqlPath } from "./schema-dump";

const thisBuildsFunctions = readFunctionFiles().map((f) => f.name);

const scratchFolders: string[] = [];
const databases: ScratchDatabase[] = [];
afterAll(async () => {
  for (const folder of scratchFolders) rmSync(folder, { recursive: true, force: true });
  await Promise.all(databases.map((database) => database.drop()));
});

async function migratedDatabase(prepare: (url: string) => Promise<unknown> = prepareDatabase): Promise<ScratchDatabase> {
  const created = await createScratchDatabase(testServiceUrls().databaseServerUrl, { label: "hub_functions_test", prepare });
  databases.push(created);
  return created;
}

async function query<Row extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A copy of this build's function files with `name`'s file rewritten by `edit`: the next build's functions. */
function editedFunctions(name: string, edit: (sql: string) => string): string {
  const folder = mkdtempSync(path.join(tmpdir(), "hub-functions-"));
  scratchFolders.push(folder);
  cpSync(functionsFolder, folder, { recursive: true });
  const file = path.join(folder, `${name}.sql`);
  const edited = edit(readFileSync(file, "utf8"));
  expect(edited, "the edit must change the file").not.toBe(readFileSync(file, "utf8"));
  writeFileSync(file, edited);
  return folder;
}

const KEY_OF = `select hub_job_key_value_of('{"customer": "acme"}'::jsonb, 'customer') as key`;
const answersChanged = (sql: string) => sql.replace("coalesce(context -> concurrency_key, 'null'::jsonb)", `'"changed"'::jsonb`);

/** xmin of each hub function's catalogue row: it moves whenever a transaction that rewrote the row commits. */
async function catalogueVersions(url: string): Promise<Record<string, string>> {
  const rows = await query<{ proname: string; xmin: string }>(
    url,
    "select proname, xmin::text from pg_proc where pronamespace = 'public'::regnamespace order by proname",
  );
  return Object.fromEntries(rows.map((r) => [r.proname, r.xmin]));
}

describe("applying the function files", () => {
  it("when a database is migrated from nothing, then it has exactly the functions of the files, and migrating again writes nothing", async () => {
    const { url } = await migratedDatabase();
    const before = await catalogueVersions(url);

    const again = await prepareDatabase(url);

    expect(Object.keys(before).sort()).toEqual([...thisBuildsFunctions].sort());
    expect(again).toMatchObject({ applied: [], functionsChanged: [] });
    expect(await catalogueVersions(url)).toEqual(before);
  });

  it("when a function's file is edited, then the next start applies it and reports it, and the database answers with the new body", async () => {
    const { url } = await migratedDatabase();
    expect(await query(url, KEY_OF)).toEqual([{ key: "acme" }]);

    const status = await prepareDatabase(url, { functionsFolder: editedFunctions("hub_job_key_value_of", answersChanged) });

    expect(status.functionsChanged).toEqual(["hub_job_key_value_of"]);
    expect(await query(url, KEY_OF)).toEqual([{ key: "changed" }]);
  });

  it("when four processes start at once with an edited file, then each succeeds and the edit is applied once", async () => {
    const { url } = await migratedDatabase();
    const edited = editedFunctions("hub_job_key_value_of", answersChanged);

    const results = await Promise.all([1, 2, 3, 4].map(() => prepareDatabase(url, { functionsFolder: edited })));

    expect(results.map((r) => r.functionsChanged.length).sort()).toEqual([0, 0, 0, 1]);
    expect(await query(url, KEY_OF)).toEqual([{ key: "changed" }]);
  });

  it("when a file changes its function's return type, then migrating refuses, naming the file and saying to use a new name, and changes no function", async () => {
    const { url } = await migratedDatabase();
    const edited = editedFunctions("hub_job_key_value_of", (sql) =>
      answersChanged(sql).replace("RETURNS jsonb", "RETURNS text").replace(`'"changed"'::jsonb`, "'changed'"),
    );
    const before = await catalogueVersions(url);

    const error = await prepareDatabase(url, { functionsFolder: edited }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(FunctionFileError);
    expect((error as Error).message).toMatch(/hub_job_key_value_of\.sql: cannot change return type .*give it a new name/);
    expect(await catalogueVersions(url)).toEqual(before);
    expect(await query(url, KEY_OF)).toEqual([{ key: "acme" }]);
  });

  it("when a file changes its function's arguments, then migrating refuses rather than leave two functions of that name", async () => {
    const { url } = await migratedDatabase();
    const edited = editedFunctions("hub_job_key_value_of", (sql) => sql.replace("concurrency_key text)", "concurrency_key text, extra integer DEFAULT 0)"));

    const error = await prepareDatabase(url, { functionsFolder: edited }).catch((e: unknown) => e);

    expect((error as Error).message).toMatch(/hub_job_key_value_of\.sql: applying it left .* beside .*give it a new name/);
    expect(await query(url, "select count(*)::int as n from pg_proc where proname = 'hub_job_key_value_of'")).toEqual([{ n: 1 }]);
  });

  it("when a file's body does not parse, then migrating refuses naming the file, and the other files' changes are not applied either", async () => {
    const { url } = await migratedDatabase();
    const folder = editedFunctions("hub_job_key_value_of", answersChanged);
    writeFileSync(
      path.join(folder, "hub_start_ring_push.sql"),
      readFileSync(path.join(folder, "hub_start_ring_push.sql"), "utf8").replace("END IF;", "END IFF;"),
    );

    const error = await prepareDatabase(url, { functionsFolder: folder }).catch((e: unknown) => e);

    expect((error as Error).message).toMatch(/hub_start_ring_push\.sql: syntax error/);
    expect(await query(url, KEY_OF)).toEqual([{ key: "acme" }]);
  });

  it("when a build that only checks meets a database lacking one of its functions, then it refuses, naming the function and the migrate command", async () => {
    const { url } = await migratedDatabase();
    await query(url, "drop function hub_claim_order_precedes");

    const error = await prepareDatabase(url, { migrate: false }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SchemaMismatchError);
    expect((error as Error).message).toMatch(/lacks 1 of the \d+ functions this build calls \(hub_claim_order_precedes\): run the migrate command/);
  });
});

/**
 * The migrations as they were before the function files: every body still inside them. Read from
 * git at the last commit of that layout, so the test needs the repository's history.
 */
const LAST_COMMIT_WITH_BODIES_IN_MIGRATIONS = "a8eb8a2";

function migrationsOfTheBuildBefore(upTo: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), "hub-old-build-"));
  scratchFolders.push(folder);
  mkdirSync(path.join(folder, "meta"));
  const git = (spec: string) =>
    execFileSync("git", ["show", `${LAST_COMMIT_WITH_BODIES_IN_MIGRATIONS}:packages/db/drizzle/${spec}`], { cwd: migrationsFolder, encoding: "utf8" });
  const journal = JSON.parse(git("meta/_journal.json")) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((e) => e.tag === upTo);
  expect(last, `${upTo} is a migration of ${LAST_COMMIT_WITH_BODIES_IN_MIGRATIONS}`).toBeGreaterThanOrEqual(0);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify(journal));
  for (const { tag } of journal.entries) writeFileSync(path.join(folder, `${tag}.sql`), git(`${tag}.sql`));
  return folder;
}

describe("upgrading a database migrated by the build before the function files", () => {
  it.each(["0016_job_logs", "0020_key_value_statistics", "0024_claim_candidates_by_primary_key"])(
    "when it was migrated up to %s, then this build migrates it to exactly the schema a fresh migrate makes",
    async (upTo) => {
      const oldBuild = migrationsOfTheBuildBefore(upTo);
      const { url } = await migratedDatabase((target) => prepareDatabase(target, { migrationsFolder: oldBuild, functionsFolder: emptyFunctions() }));

      await prepareDatabase(url);

      expect(await dumpSchema(url)).toBe(readFileSync(schemaSqlPath, "utf8"));
    },
  );
});

/** The old build had no function files: it stands in with an empty folder. */
function emptyFunctions(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "hub-no-functions-"));
  scratchFolders.push(folder);
  return folder;
}
