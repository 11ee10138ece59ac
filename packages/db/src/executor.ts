/**
 * The one handle every plain-SQL statement of this package takes: its first argument, named
 * `executor` or after what the caller holds (`pool`, `client`, `session`).
 */
import type pg from "pg";

/**
 * Where a statement runs: the pool (one statement, its own implicit transaction), a client checked
 * out of it (inside {@link inPoolTransaction}), or a dedicated session (`openDedicatedSession`).
 * Statements are sent as `pg` query configs; with a `name`, each connection parses and plans the
 * statement once and afterwards only binds and executes it.
 */
export interface Executor {
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<Row>>;
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
