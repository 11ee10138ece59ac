/**
 * `packages/db/schema.sql`: the schema a fresh migrate produces, as `pg_dump --schema-only` prints
 * it (every table, index, constraint, trigger and function), so a reader sees the current schema
 * in one file instead of replaying the migrations in their head. It is generated: the numbered
 * migrations (drizzle/) and the function files (functions/) are what is edited;
 * `schema-sql.test.ts` fails when the file and a fresh migrate differ, and
 * `pnpm --filter @hub/db db:schema` rewrites it.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** Where the committed dump lives. */
export const schemaSqlPath = fileURLToPath(new URL("../schema.sql", import.meta.url));

const HEADER = `-- The schema a fresh migrate produces (pg_dump --schema-only, session settings left out).
-- Generated: do not edit. Tables, indexes and triggers come from the migrations in drizzle/, each
-- function from its file in functions/; after adding a migration or editing a function, run
--   pnpm --filter @hub/db db:schema
-- (src/schema-sql.test.ts fails while this file and a fresh migrate differ).
`;

/** The schema of the database at `databaseUrl`, without the lines that vary between pg_dump runs and versions. */
export async function dumpSchema(databaseUrl: string): Promise<string> {
  const { stdout } = await promisify(execFile)("pg_dump", ["--schema-only", "--no-owner", "--no-privileges", "--dbname", databaseUrl], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const kept = stdout
    .split("\n")
    .filter((line) => !/^(SET |SELECT pg_catalog\.set_config|-- Dumped (from|by) |\\(un)?restrict )/.test(line))
    .join("\n");
  return HEADER + `${kept.replace(/\n{3,}/g, "\n\n").trim()}\n`;
}
