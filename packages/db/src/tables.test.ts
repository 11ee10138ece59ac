/**
 * The table declarations (src/tables, exported as `schema`) say what a freshly migrated database
 * holds: every table, every column with its type, nullability and whether it has a default, every
 * index that backs no constraint, and every check constraint. The migrations and function files are
 * what is edited; this fails when a migration changes the schema and the declarations do not follow.
 */
import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { schema } from "./index";
import { useTestDatabase } from "./test-kit";

const hub = useTestDatabase();

const declared = (Object.values(schema) as unknown[]).filter((value): value is PgTable => is(value, PgTable)).map((table) => getTableConfig(table));

/**
 * Columns the database has and the declarations leave out on purpose, each with its reason beside
 * its declaration: `jobs.key_value` (see src/tables/jobs.ts).
 */
const NOT_DECLARED: Record<string, string[]> = { jobs: ["key_value"] };

interface Column {
  name: string;
  type: string;
  notNull: boolean;
  hasDefault: boolean;
}

async function rows<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
  return (await hub().pool.query(text, values)).rows as Row[];
}

describe("the table declarations", () => {
  it("when the database is migrated from nothing, then every table it holds is declared", async () => {
    const tables = await rows<{ name: string }>("select tablename as name from pg_tables where schemaname = 'public' order by 1");

    expect(declared.map((t) => t.name).sort()).toEqual(tables.map((t) => t.name));
  });

  it.each(declared.map((t) => [t.name, t] as const))("when %s is declared, then its columns are the database's", async (name, table) => {
    const inDatabase = await rows<Column>(
      `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as "notNull",
              (a.atthasdef or a.attidentity <> '') as "hasDefault"
         from pg_attribute a
        where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped
        order by a.attname`,
      [name],
    );
    const columns = table.columns
      .map((c) => ({ name: c.name, type: c.getSQLType().replace("timestamp (", "timestamp("), notNull: c.notNull, hasDefault: c.hasDefault }))
      .sort((a, b) => a.name.localeCompare(b.name));

    expect(columns).toEqual(inDatabase.filter((c) => !(NOT_DECLARED[name] ?? []).includes(c.name)));
  });

  it.each(declared.map((t) => [t.name, t] as const))("when %s is declared, then its indexes and check constraints are the database's", async (name, table) => {
    const indexes = await rows<{ name: string }>(
      `select i.relname as name from pg_index x join pg_class i on i.oid = x.indexrelid
        where x.indrelid = $1::regclass and not exists (select 1 from pg_constraint c where c.conindid = x.indexrelid)
        order by 1`,
      [name],
    );
    const checks = await rows<{ name: string }>("select conname as name from pg_constraint where conrelid = $1::regclass and contype = 'c' order by 1", [name]);

    expect(table.indexes.map((i) => i.config.name).sort()).toEqual(indexes.map((i) => i.name));
    expect(table.checks.map((c) => c.name).sort()).toEqual(checks.map((c) => c.name));
  });
});
