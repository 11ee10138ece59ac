/**
 * Bookkeeping of the schema's migrations, beside drizzle's own journal table
 * (`drizzle.__drizzle_migrations`: one row per applied migration, keyed by the journal's `when` in
 * `created_at`). `drizzle.hub_migration_kinds` records, for each applied migration, its tag and
 * whether it is additive, as the build that applied it knew: an older build meeting that schema
 * cannot read migration files it does not have, so this table is how it learns whether it may run.
 */
import type pg from "pg";
import type { CatalogueMigration } from "../../migration-catalogue";

type Client = Pick<pg.ClientBase, "query">;

/** A migration recorded in the database. */
export interface AppliedMigration {
  createdAt: number;
  /** Recorded by the build that applied it; null when that build recorded no kinds. */
  tag: string | null;
  additive: boolean | null;
}

const CREATE_KINDS_TABLE = `create table if not exists drizzle.hub_migration_kinds (
  created_at bigint primary key,
  tag text not null,
  additive boolean not null,
  recorded_at timestamptz not null default now()
)`;

/**
 * Records the kind of every migration of `catalogue` that the database has applied. Runs under the
 * migration lock, after drizzle's migrator (which creates the `drizzle` schema). A migration's kind
 * matters only to builds that predate it, which cannot write it, so whichever build records it
 * last is right.
 */
export async function recordMigrationKinds(client: Client, catalogue: CatalogueMigration[]): Promise<void> {
  await client.query(CREATE_KINDS_TABLE);
  await client.query(
    `insert into drizzle.hub_migration_kinds (created_at, tag, additive)
     select k.created_at, k.tag, k.additive
       from unnest($1::bigint[], $2::text[], $3::boolean[]) as k(created_at, tag, additive)
      where exists (select 1 from drizzle.__drizzle_migrations m where m.created_at = k.created_at)
     on conflict (created_at) do update set tag = excluded.tag, additive = excluded.additive, recorded_at = now()
      where (hub_migration_kinds.tag, hub_migration_kinds.additive) is distinct from (excluded.tag, excluded.additive)`,
    [catalogue.map((m) => m.createdAt), catalogue.map((m) => m.tag), catalogue.map((m) => m.kind === "additive")],
  );
}

/** Every migration the database has applied, oldest first, with its recorded kind; none before the first migration. */
export async function listAppliedMigrations(client: Client): Promise<AppliedMigration[]> {
  const { rows: tables } = await client.query<{ journal: boolean; kinds: boolean }>(
    `select to_regclass('drizzle.__drizzle_migrations') is not null as journal,
            to_regclass('drizzle.hub_migration_kinds') is not null as kinds`,
  );
  if (!tables[0]?.journal) return [];
  const { rows } = await client.query<{ created_at: string; tag: string | null; additive: boolean | null }>(
    tables[0].kinds
      ? `select m.created_at, k.tag, k.additive
           from drizzle.__drizzle_migrations m left join drizzle.hub_migration_kinds k on k.created_at = m.created_at
          order by m.created_at`
      : `select created_at, null as tag, null as additive from drizzle.__drizzle_migrations order by created_at`,
  );
  return rows.map((row) => ({ createdAt: Number(row.created_at), tag: row.tag, additive: row.additive }));
}
