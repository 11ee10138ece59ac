/**
 * The PostgreSQL server a run measures on. By default a private cluster that the run starts itself
 * (initdb, through @hub/test-services) with production settings — autovacuum on, fsync on, the
 * usual memory and WAL tuning, pg_stat_statements preloaded — because the machine's shared server
 * is a CI server (`autovacuum = off`), which no production database is. When no private server can
 * be started, the run says so loudly and measures on the shared one; either way the report prints
 * the settings it measured with.
 */
import pg from "pg";
import { findPostgresBinDir, startPrivatePostgres, type PrivatePostgres } from "@hub/testing";
import { accountPostgresCluster } from "./cpu";

/**
 * The settings of the private server: PostgreSQL's defaults where production keeps them (autovacuum
 * and its thresholds, synchronous_commit, jit…), tuned where a production server is tuned, sized
 * for a shared 2-core machine with plenty of RAM.
 */
export const PRODUCTION_SETTINGS: Readonly<Record<string, string>> = {
  autovacuum: "on",
  fsync: "on",
  full_page_writes: "on",
  synchronous_commit: "on",
  max_connections: "200",
  shared_buffers: "512MB",
  effective_cache_size: "4GB",
  work_mem: "8MB",
  maintenance_work_mem: "256MB",
  wal_buffers: "16MB",
  max_wal_size: "4GB",
  min_wal_size: "1GB",
  checkpoint_completion_target: "0.9",
  random_page_cost: "1.1",
  effective_io_concurrency: "200",
  // Observability the figures need: statements and function calls counted, I/O timed.
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track": "all",
  track_functions: "pl",
  track_io_timing: "on",
};

/** Settings shown in every report, whichever server ran. */
const SHOWN_SETTINGS = [
  "server_version",
  "autovacuum",
  "autovacuum_naptime",
  "autovacuum_vacuum_scale_factor",
  "autovacuum_vacuum_insert_scale_factor",
  "fsync",
  "synchronous_commit",
  "full_page_writes",
  "shared_buffers",
  "effective_cache_size",
  "work_mem",
  "maintenance_work_mem",
  "max_wal_size",
  "checkpoint_completion_target",
  "random_page_cost",
  "jit",
  "max_connections",
  "shared_preload_libraries",
  "track_functions",
];

export interface PostgresServerInfo {
  /** "private": started by this run with {@link PRODUCTION_SETTINGS}; "shared": the DATABASE_URL server. */
  kind: "private" | "shared";
  /** Why the run measures on the shared server (absent when it was asked to, or on a private one). */
  fallbackReason?: string;
  /** Each of {@link SHOWN_SETTINGS} as the server reports it (`SHOW`). */
  settings: Record<string, string>;
}

export interface BenchPostgres {
  serverUrl: string;
  info: PostgresServerInfo;
  stop(): Promise<void>;
}

async function readSettings(serverUrl: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: serverUrl, application_name: "bench-settings" });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; setting: string }>(
      "select name, current_setting(name) as setting from pg_settings where name = any($1::text[])",
      [SHOWN_SETTINGS],
    );
    const byName = new Map(rows.map((row) => [row.name, row.setting]));
    return Object.fromEntries(SHOWN_SETTINGS.map((name) => [name, byName.get(name) ?? "n/a"]));
  } finally {
    await client.end();
  }
}

/** WAL segments {@link recycleWalSegments} has the private server make and recycle: min_wal_size's 1 GB. */
const RECYCLED_WAL_SEGMENTS = 64;

/**
 * Brings a new cluster's WAL to where a server that has run through checkpoints has it: the
 * segments ahead already exist, recycled, rather than created one by one as the run writes. A new
 * cluster has one segment, and the first checkpoint comes five minutes in, after most runs end;
 * until then every 16 MB of WAL a phase writes makes a new segment file, zero-filled
 * (`XLogFileInit`) by the committing backend under the WAL write lock, into page-cache memory the
 * machine may never have touched. That cost a phase about 10 to 50 ms of one core per segment in
 * perf profiles, charged to whichever phase writes most WAL, and it is not what a production
 * server does (min_wal_size keeps 1 GB of segments for reuse). So: 64 segment switches (each
 * after a commit, so none is a no-op), then a checkpoint, which recycles them as the segments to come.
 */
async function recycleWalSegments(serverUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, application_name: "bench-wal" });
  await client.connect();
  try {
    for (let segment = 0; segment < RECYCLED_WAL_SEGMENTS; segment++) {
      await client.query("select txid_current()");
      await client.query("select pg_switch_wal()");
    }
    await client.query("checkpoint");
  } finally {
    await client.end();
  }
}

/**
 * Starts the private server (`which` "private"), or names the shared one ("shared"). A private
 * server that cannot start is not fatal: the run goes on on `sharedServerUrl`, with a warning on
 * stderr and `fallbackReason` in the report.
 */
export async function startBenchPostgres(which: "private" | "shared", sharedServerUrl: string): Promise<BenchPostgres> {
  let fallbackReason: string | undefined;
  if (which === "private") {
    if (!findPostgresBinDir()) fallbackReason = "no PostgreSQL server binaries (initdb, pg_ctl) on this machine";
    else {
      // A name of this run's own: it marks the cluster's processes, whose CPU is accounted (cpu.ts).
      const clusterName = `hub-bench-${process.pid}`;
      let server: PrivatePostgres | undefined;
      try {
        console.error("bench: starting a private PostgreSQL with production settings (initdb)");
        server = await startPrivatePostgres({ settings: { ...PRODUCTION_SETTINGS, cluster_name: clusterName } });
        accountPostgresCluster(clusterName);
        await recycleWalSegments(server.serverUrl);
        const running = server;
        return {
          serverUrl: running.serverUrl,
          info: { kind: "private", settings: await readSettings(running.serverUrl) },
          stop: () => running.stop(),
        };
      } catch (error) {
        await server?.stop().catch(() => undefined);
        fallbackReason = `the private PostgreSQL did not start: ${(error as Error).message.slice(0, 300)}`;
      }
    }
    console.error(`bench: WARNING: ${fallbackReason}; measuring on the SHARED server instead, whose settings (see the report) are not production's`);
  }
  return {
    serverUrl: sharedServerUrl,
    info: { kind: "shared", ...(fallbackReason ? { fallbackReason } : {}), settings: await readSettings(sharedServerUrl) },
    stop: async () => undefined,
  };
}

/** The report's lines about the server: which one, why, and its settings. */
export function describePostgres(info: PostgresServerInfo): string[] {
  const settings = Object.entries(info.settings).map(([name, value]) => `${name}=${value}`);
  const lines = [
    info.kind === "private"
      ? "PostgreSQL: a private server started by this run with production settings:"
      : `PostgreSQL: the SHARED server (DATABASE_URL)${info.fallbackReason ? `, because ${info.fallbackReason}` : ", as BENCH_POSTGRES=shared asked"}; its settings:`,
  ];
  for (let i = 0; i < settings.length; i += 6) lines.push(`  ${settings.slice(i, i + 6).join(" ")}`);
  if (info.settings.autovacuum !== "on") lines.push("  WARNING: autovacuum is off here: dead tuples pile up as in no production database");
  return lines;
}
