/**
 * The migrations a build carries, and whether each is **additive**: whether a build that predates
 * it keeps working, correctly, on the schema it leaves. That is what lets a rolling upgrade run the
 * new migrations first while the old processes go on serving (docs/operations.md, "Deploying and upgrading").
 *
 * The kind is written once, in the migration itself, as its first line:
 *
 * ```sql
 * -- migration: additive. New tables builds before it never touch.
 * -- migration: breaking. Renames jobs.context, which builds before it read.
 * ```
 *
 * followed by the reason. Additive: new tables, new nullable or defaulted columns, new indexes,
 * new functions and triggers older code does not depend on. Breaking: anything a build before it
 * reads or writes differently — dropping or renaming a column or table, changing a type or a
 * function's signature, a NOT NULL without a default, a constraint old code's writes would break,
 * a trigger that changes what old code's statements do. Migrations are written by hand: add the
 * line (packages/db's migration-catalogue test fails until every migration has one). A migration
 * without a readable line counts as breaking.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

export type MigrationKind = "additive" | "breaking";

export interface CatalogueMigration {
  /** The drizzle journal's tag, which is also the file's name: `0009_webhooks`. */
  tag: string;
  /**
   * The journal's `when` (milliseconds): what drizzle records as `created_at` of an applied
   * migration, so the one key shared by a build's journal and a database.
   */
  createdAt: number;
  /** From the file's first line; `undefined` when it has none (then treated as breaking). */
  kind: MigrationKind | undefined;
  /** The first line's text after the kind: why it is of that kind. */
  reason: string;
}

const KIND_LINE = /^-- migration: (additive|breaking)\b\s*[.:—-]?\s*(.*)$/;

/** The kind line of one migration's SQL, if its first line is one. */
export function parseMigrationKind(sql: string): { kind: MigrationKind; reason: string } | undefined {
  const firstLine = sql.split("\n", 1)[0]?.trim() ?? "";
  const match = KIND_LINE.exec(firstLine);
  if (!match) return undefined;
  return { kind: match[1] as MigrationKind, reason: match[2] ?? "" };
}

interface JournalEntry {
  tag: string;
  when: number;
}

/** Every migration of the build in `migrationsFolder`, in journal order, with its kind. */
export function readMigrationCatalogue(migrationsFolder: string): CatalogueMigration[] {
  const journal = JSON.parse(readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: JournalEntry[] };
  return journal.entries.map((entry) => {
    const marking = parseMigrationKind(readFileSync(path.join(migrationsFolder, `${entry.tag}.sql`), "utf8"));
    return { tag: entry.tag, createdAt: entry.when, kind: marking?.kind, reason: marking?.reason ?? "" };
  });
}
