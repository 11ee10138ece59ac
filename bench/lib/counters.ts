/**
 * What the servers did for a run: PostgreSQL transactions (pg_stat_database) and statements
 * (pg_stat_statements, when the server preloads it) of the run's database, and Redis commands
 * (`INFO commandstats`). Read before and after a target's run; the difference ÷ jobs is the cost
 * per job.
 */
import pg from "pg";
import { createRedis } from "@hub/shared";

export interface PgCounts {
  committed: number;
  rolledBack: number;
  /** Statements executed in the database (pg_stat_statements calls); null when it is not loaded. */
  statements: number | null;
}

async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-audit" });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Makes pg_stat_statements readable from the run's database when the server preloads it (it
 * only counts then; creating the extension without it gives a view that errors). Never changes
 * the server's configuration: without the preload, statements are reported as n/a.
 */
export async function enableStatementCounts(databaseUrl: string): Promise<boolean> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ libraries: string }>("select current_setting('shared_preload_libraries') as libraries");
    const preloaded = (rows[0]?.libraries ?? "").split(",").some((library) => library.trim() === "pg_stat_statements");
    if (!preloaded) return false;
    try {
      await client.query("create extension if not exists pg_stat_statements");
      await client.query("select 1 from pg_stat_statements limit 1");
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The database's transaction counts, and its statement count when `statements` is on. Backends
 * publish transaction counts at most every second and when they exit, so read the final counts
 * after the processes under test have closed their connections.
 */
export async function countPg(databaseUrl: string, statements: boolean): Promise<PgCounts> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ committed: number; rolled_back: number }>(
      "select xact_commit::float8 as committed, xact_rollback::float8 as rolled_back from pg_stat_database where datname = current_database()",
    );
    let statementCount: number | null = null;
    if (statements) {
      const counted = await client.query<{ calls: number }>(
        "select coalesce(sum(calls), 0)::float8 as calls from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())",
      );
      statementCount = counted.rows[0]?.calls ?? null;
    }
    return { committed: rows[0]?.committed ?? Number.NaN, rolledBack: rows[0]?.rolled_back ?? Number.NaN, statements: statementCount };
  });
}

/**
 * Calls per command since the Redis server started (`INFO commandstats`), commands run inside Lua
 * scripts included. Server-wide: other users of the same Redis count too.
 */
export async function redisCommandCounts(redisUrl: string): Promise<Record<string, number>> {
  const redis = createRedis(redisUrl, "bench-counters");
  try {
    const info = await redis.info("commandstats");
    const counts: Record<string, number> = {};
    for (const line of info.split("\n")) {
      const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
      if (match) counts[match[1]!] = Number(match[2]);
    }
    return counts;
  } finally {
    redis.disconnect();
  }
}

/**
 * Commands per command name between two `redisCommandCounts`, without connection set-up (`info`,
 * `client|…`, `hello`, `select`): this module's own connections make those, and so does every
 * client as it connects, never per job.
 */
export function redisDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [command, calls] of Object.entries(after)) {
    if (command === "info" || command === "hello" || command === "select" || command.startsWith("client")) continue;
    const made = calls - (before[command] ?? 0);
    if (made > 0) delta[command] = made;
  }
  return delta;
}

/** What PostgreSQL's statistics say of the `jobs` table and of the claim statement, at one moment. */
export interface JobsTableCounts {
  /** pg_stat_user_tables of `jobs`: sequential scans, updates, HOT updates, live and dead rows, autovacuums and autoanalyzes. */
  seqScans: number;
  updates: number;
  hotUpdates: number;
  liveRows: number;
  deadRows: number;
  autovacuums: number;
  autoanalyzes: number;
  /** Top-level statements calling the claim function (`hub_claim_jobs_v4` since the dependency columns, `_v3` since 0017, `_v2` since 0013, `hub_claim_jobs` before; pg_stat_statements); null when it is not loaded. */
  claimStatements: number | null;
  /** Calls of the claim function (pg_stat_user_functions; needs track_functions = pl, else 0). */
  claimFunctionCalls: number;
}

/**
 * The `jobs` table's and the claim's counters in the run's database. Backends publish table and
 * function counts at most once a second (and when idle), so read them a second after the work.
 */
export async function countJobsTable(databaseUrl: string, statements: boolean): Promise<JobsTableCounts> {
  return withClient(databaseUrl, async (client) => {
    const table = await client.query<{ seq: number; upd: number; hot: number; live: number; dead: number; vacuums: number; analyzes: number }>(
      `select seq_scan::float8 as seq, n_tup_upd::float8 as upd, n_tup_hot_upd::float8 as hot, n_live_tup::float8 as live,
              n_dead_tup::float8 as dead, autovacuum_count::float8 as vacuums, autoanalyze_count::float8 as analyzes
         from pg_stat_user_tables where relname = 'jobs' and schemaname = current_schema()`,
    );
    const functions = await client.query<{ calls: number }>(
      // hub_claim_jobs_v4 since the dependency columns, _v3 since 0017, _v2 since 0013, hub_claim_jobs before (a build
      // calls one of them; v3 now calls v4, so a build calling v3 counts twice).
      "select coalesce(sum(calls), 0)::float8 as calls from pg_stat_user_functions where funcname in ('hub_claim_jobs', 'hub_claim_jobs_v2', 'hub_claim_jobs_v3', 'hub_claim_jobs_v4')",
    );
    let claimStatements: number | null = null;
    if (statements) {
      const counted = await client.query<{ calls: number }>(
        `select coalesce(sum(calls), 0)::float8 as calls from pg_stat_statements
          where toplevel and dbid = (select oid from pg_database where datname = current_database()) and (query like '%hub\\_claim\\_jobs(%' or query like '%hub\\_claim\\_jobs\\_v2(%' or query like '%hub\\_claim\\_jobs\\_v3(%' or query like '%hub\\_claim\\_jobs\\_v4(%')`,
      );
      claimStatements = counted.rows[0]?.calls ?? 0;
    }
    const row = table.rows[0];
    return {
      seqScans: row?.seq ?? Number.NaN,
      updates: row?.upd ?? Number.NaN,
      hotUpdates: row?.hot ?? Number.NaN,
      liveRows: row?.live ?? Number.NaN,
      deadRows: row?.dead ?? Number.NaN,
      autovacuums: row?.vacuums ?? Number.NaN,
      autoanalyzes: row?.analyzes ?? Number.NaN,
      claimStatements,
      claimFunctionCalls: functions.rows[0]?.calls ?? 0,
    };
  });
}

/** One statement's cumulative pg_stat_statements counters. */
export interface StatementCounters {
  query: string;
  toplevel: boolean;
  calls: number;
  totalMs: number;
  rows: number;
  blocksHit: number;
  blocksRead: number;
}

/** Where PostgreSQL spent its execution time over an interval: a statement's deltas, largest first. */
export interface StatementShare extends StatementCounters {
  /** Share of the interval's execution time of top-level statements (nested ones overlap their caller's). */
  share: number;
}

/**
 * Every statement pg_stat_statements counts in the run's database, by queryid and level (with
 * `pg_stat_statements.track = all`, the statements inside PL/pgSQL functions are there too).
 */
export async function snapshotStatements(databaseUrl: string): Promise<Map<string, StatementCounters>> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<StatementCounters & { key: string }>(
      `select queryid::text || ':' || toplevel::text as key, query, toplevel, calls::float8 as calls, total_exec_time::float8 as "totalMs",
              rows::float8 as rows, shared_blks_hit::float8 as "blocksHit", shared_blks_read::float8 as "blocksRead"
         from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())`,
    );
    return new Map(rows.map(({ key, ...counters }) => [key, counters]));
  });
}

/** Every statement's counters between two snapshots, most calls first. */
export function statementCalls(before: ReadonlyMap<string, StatementCounters>, after: ReadonlyMap<string, StatementCounters>): StatementCounters[] {
  return statementDeltas(before, after).sort((a, b) => b.calls - a.calls);
}

function statementDeltas(before: ReadonlyMap<string, StatementCounters>, after: ReadonlyMap<string, StatementCounters>): StatementCounters[] {
  const deltas: StatementCounters[] = [];
  for (const [key, now] of after) {
    const earlier = before.get(key);
    const calls = now.calls - (earlier?.calls ?? 0);
    if (calls <= 0) continue;
    deltas.push({
      query: now.query,
      toplevel: now.toplevel,
      calls,
      totalMs: now.totalMs - (earlier?.totalMs ?? 0),
      rows: now.rows - (earlier?.rows ?? 0),
      blocksHit: now.blocksHit - (earlier?.blocksHit ?? 0),
      blocksRead: now.blocksRead - (earlier?.blocksRead ?? 0),
    });
  }
  return deltas;
}

/** The `limit` statements that took the most execution time between two snapshots. */
export function topStatements(before: ReadonlyMap<string, StatementCounters>, after: ReadonlyMap<string, StatementCounters>, limit: number): StatementShare[] {
  const deltas = statementDeltas(before, after);
  const topLevelMs = deltas.filter((delta) => delta.toplevel).reduce((sum, delta) => sum + delta.totalMs, 0);
  return deltas
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, limit)
    .map((delta) => ({ ...delta, share: topLevelMs > 0 ? delta.totalMs / topLevelMs : Number.NaN }));
}
