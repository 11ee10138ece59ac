import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Logger } from "@hub/shared";
import type { Executor } from "./executor";
import * as schema from "./schema";

/** Drizzle on the pool, with the schema: {@link Database.db}. */
export type Db = NodePgDatabase<typeof schema>;

export interface Database {
  /** The executor every statement and transaction of the process runs on (`withTransaction(pool, …)`). */
  pool: pg.Pool;
  /**
   * Drizzle on the same pool, for tests, fixtures and bench drivers that arrange and check rows with
   * the query builder. Statements take `pool`, never this.
   */
  db: Db;
  close(): Promise<void>;
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** Most connections the pool opens. Default 10. */
  max?: number;
  /** `application_name` of every session: operators (and fault tests) find a process's sessions by it. Default "automation-hub". */
  applicationName?: string;
  /**
   * How long a query waits for a connection (a free one from the pool, or a new one being opened)
   * before it fails with "timeout exceeded when trying to connect". Default 1500 ms: short, so that
   * while PostgreSQL is unreachable a request fails (503) within 2 s instead of hanging; a healthy
   * pool hands out a connection in well under a millisecond.
   */
  connectionTimeoutMillis?: number;
  /** Where connection losses are reported (warn). Default: nowhere. */
  logger?: Logger;
}

// Timestamps and bigints come back as JS types we control: timestamptz as Date (default),
// int8 (counts) as number — our counts never approach 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Opens a pooled connection to the hub's database. */
export function openDatabase(url: string, options: OpenDatabaseOptions = {}): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "automation-hub",
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 1_500,
  });
  const reportLoss = (error: Error) =>
    options.logger?.warn({ err: { message: error.message, code: (error as { code?: string }).code } }, "PostgreSQL connection lost");
  // An idle client losing its connection (server restart, pg_terminate_backend) is re-emitted on
  // the pool, which drops it and opens a new one on demand; it is already reported by the
  // client's own listener below.
  pool.on("error", () => undefined);
  // A checked-out client (inside a transaction) that loses its connection emits 'error' on itself,
  // where pg-pool listens only while the client is idle: without this listener the process would
  // die of an unhandled 'error' event. The query in flight rejects on its own, and the pool
  // discards the broken client when it is released.
  pool.on("connect", (client) => client.on("error", reportLoss));
  const db = drizzle(pool, { schema });
  return { db, pool, close: () => pool.end() };
}

/** Resolves when PostgreSQL answers a trivial query (readiness probes). */
export async function pingDatabase(executor: Executor): Promise<void> {
  await executor.query({ text: "select 1" });
}
