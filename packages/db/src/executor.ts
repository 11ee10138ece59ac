/**
 * The one handle every statement of this package takes: its first argument, named `executor` or
 * after what the caller holds (`pool`, `client`, `session`).
 */
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type pg from "pg";

/**
 * Where a statement runs: the pool (one statement, its own implicit transaction), a client checked
 * out of it (inside {@link withTransaction}), or a dedicated session (`openDedicatedSession`).
 * Statements are sent as `pg` query configs; with a `name`, each connection parses and plans the
 * statement once and afterwards only binds and executes it. `values` may travel beside the config
 * (drizzle sends them so).
 */
export interface Executor {
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<Row>>;
}

/** A named prepared statement: the name must be unique in the process and fixed for its text. */
export interface NamedStatement {
  name: string;
  text: string;
}

/** Runs a named prepared statement and returns its rows. */
export async function runStatement<Row extends pg.QueryResultRow>(executor: Executor, statement: NamedStatement, values: unknown[]): Promise<Row[]> {
  const result = await executor.query<Row>({ name: statement.name, text: statement.text, values });
  return result.rows;
}

/**
 * Drizzle's query builder on an executor, for the statements built with it. It has no
 * `transaction`: transactions are {@link withTransaction}'s, whatever builds the statements.
 */
export type QueryBuilder = Omit<NodePgDatabase, "transaction">;

const builders = new WeakMap<Executor, QueryBuilder>();

/**
 * The {@link QueryBuilder} of `executor`, built once per executor and kept while the executor
 * lives: the pool's, and each pooled connection's (the pool hands out the same client objects
 * again), so a statement costs a map lookup, not a drizzle instance.
 */
export function queryBuilder(executor: Executor): QueryBuilder {
  let builder = builders.get(executor);
  if (!builder) {
    // Drizzle's node-postgres driver calls only `query(config, values)` on its client outside
    // `transaction()`, which QueryBuilder leaves out; every Executor answers that call.
    builder = drizzle(executor as pg.Pool);
    builders.set(executor, builder);
  }
  return builder;
}

/**
 * The savepoint depth of each connection inside {@link withTransaction}: 0 in its transaction,
 * n inside its n-th nested savepoint.
 */
const transactionDepths = new WeakMap<Executor, number>();

/**
 * Runs `work` in one transaction and passes it the connection to hand to every statement that
 * must commit together: committed when `work` resolves, rolled back when it throws.
 * - On the pool: a connection is checked out for it and released afterwards (discarded when even
 *   the rollback failed: it is broken).
 * - On a connection already inside `withTransaction`: a savepoint (`sp1`, `sp2`, …), released when
 *   `work` resolves and rolled back to when it throws, so only `work`'s changes are undone.
 * - On any other connection (a dedicated session): `begin` … `commit` on it.
 */
export async function withTransaction<T>(executor: Executor, work: (client: Executor) => Promise<T>): Promise<T> {
  if (!isPool(executor)) return onConnection(executor, work, () => undefined);
  const client = await executor.connect();
  let broken: Error | undefined;
  try {
    return await onConnection(client, work, (error) => {
      broken = error;
    });
  } finally {
    client.release(broken);
  }
}

/**
 * A pool, told by its shape rather than `instanceof`: a pool from another copy of `pg` (a bench or a
 * tool resolving its own) must still get a checked-out connection, never `begin` on the pool, which
 * would send the transaction's statements to whichever connections are free.
 */
function isPool(executor: Executor): executor is pg.Pool {
  const candidate = executor as Partial<pg.Pool>;
  return typeof candidate.connect === "function" && typeof candidate.totalCount === "number" && typeof candidate.idleCount === "number";
}

async function onConnection<T>(connection: Executor, work: (client: Executor) => Promise<T>, onBroken: (error: Error) => void): Promise<T> {
  const depth = transactionDepths.get(connection);
  const savepoint = depth === undefined ? undefined : `sp${depth + 1}`;
  await connection.query({ text: savepoint ? `savepoint ${savepoint}` : "begin" });
  transactionDepths.set(connection, depth === undefined ? 0 : depth + 1);
  try {
    const result = await work(connection);
    await connection.query({ text: savepoint ? `release savepoint ${savepoint}` : "commit" });
    return result;
  } catch (error) {
    await connection.query({ text: savepoint ? `rollback to savepoint ${savepoint}` : "rollback" }).catch((rollbackError: unknown) => {
      onBroken(rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError)));
    });
    throw error;
  } finally {
    if (depth === undefined) transactionDepths.delete(connection);
    else transactionDepths.set(connection, depth);
  }
}
