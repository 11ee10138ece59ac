/**
 * Keyset pagination, the SQL side (CONTRACT §6.2), shared by every list.
 *
 * Every list of the hub is ordered by `(created_at, id)`, oldest or newest first: `created_at`
 * alone has ties (millisecond precision, many rows per statement), the uuid breaks them, so the
 * order is total. A page asks for the rows strictly after a position in that order — never an
 * OFFSET — so a row is on exactly one page of a walk, however many rows arrive meanwhile, and
 * each page costs the same whatever its depth (an index range scan from the position).
 */
import { asc, desc, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";

/** A row's place in a list's order: its `(created_at, id)`. */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

export type KeysetDirection = "oldest first" | "newest first";

/** How one list is ordered: its `created_at` and `id` columns and the direction. */
export interface KeysetOrder {
  createdAt: PgColumn;
  id: PgColumn;
  direction: KeysetDirection;
}

/** What a client asks for: at most `limit` rows, strictly after `after` (from the start without). */
export interface KeysetPageRequest {
  limit: number;
  after?: KeysetPosition | undefined;
}

/** One page; `next` is the position to continue from, undefined when no row follows. */
export interface KeysetPage<T> {
  items: T[];
  next: KeysetPosition | undefined;
}

/**
 * `(created_at, id) > (…)` (or `<` newest first): a row-value comparison, which PostgreSQL
 * turns into one index range condition on an index over `(created_at, id)` — or over
 * `(<equality columns>, created_at, id)`.
 */
export function keysetAfter(order: KeysetOrder, after: KeysetPosition | undefined): SQL | undefined {
  if (!after) return undefined;
  const comparison = order.direction === "oldest first" ? sql`>` : sql`<`;
  return sql`(${order.createdAt}, ${order.id}) ${comparison} (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)`;
}

/** ORDER BY of the list: both columns in the list's direction, so an index serves it as is. */
export function keysetOrderBy(order: KeysetOrder): [SQL, SQL] {
  const direction = order.direction === "oldest first" ? asc : desc;
  return [direction(order.createdAt), direction(order.id)];
}

/** The building blocks a list query puts into its statement. */
export interface KeysetClauses {
  /** AND it into the WHERE clause; undefined on the first page. */
  after: SQL | undefined;
  orderBy: [SQL, SQL];
  /** One row more than asked for: whether it comes back tells if another page follows. */
  limit: number;
}

/**
 * Runs one page of a list: `select` builds the statement from the clauses (its own filters ANDed
 * with `after`), and `positionOf` reads a returned row's position.
 */
export async function keysetPage<T>(
  order: KeysetOrder,
  request: KeysetPageRequest,
  select: (clauses: KeysetClauses) => Promise<T[]>,
  positionOf: (row: T) => KeysetPosition,
): Promise<KeysetPage<T>> {
  const rows = await select({ after: keysetAfter(order, request.after), orderBy: keysetOrderBy(order), limit: request.limit + 1 });
  if (rows.length <= request.limit) return { items: rows, next: undefined };
  const items = rows.slice(0, request.limit);
  return { items, next: positionOf(items[items.length - 1]!) };
}
