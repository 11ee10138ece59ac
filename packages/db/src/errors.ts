/**
 * What a PostgreSQL failure means, in one place: callers ask "was this a unique violation?" or
 * "is the database unreachable?" instead of reading SQLSTATEs and driver messages themselves. The
 * API turns the answers into HTTP (409, 422, 503); the dispatcher and relay into "retry later".
 */
import { DrizzleQueryError } from "drizzle-orm";

/** The fields of a `pg` DatabaseError the hub reads. */
export interface PgErrorFields {
  code: string;
  constraint?: string;
}

// How deep to follow `cause` (drizzle wraps the driver's error in a DrizzleQueryError) and
// `errors` (Node's connect attempts to several addresses end in an AggregateError).
const MAX_CAUSE_DEPTH = 4;

/** Every error in `error`'s cause chain (itself first), breadth-first and bounded. */
function errorChain(error: unknown): object[] {
  const chain: object[] = [];
  let layer: unknown[] = [error];
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && layer.length > 0; depth++) {
    const next: unknown[] = [];
    for (const candidate of layer) {
      if (!candidate || typeof candidate !== "object") continue;
      chain.push(candidate);
      const { cause, errors } = candidate as { cause?: unknown; errors?: unknown };
      if (cause !== undefined) next.push(cause);
      if (Array.isArray(errors)) next.push(...errors);
    }
    layer = next;
  }
  return chain;
}

/** The PostgreSQL error (one with a five-character SQLSTATE) in `error`'s cause chain, if any. */
export function findPgError(error: unknown): PgErrorFields | undefined {
  for (const candidate of errorChain(error)) {
    const { code } = candidate as { code?: unknown };
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return candidate as PgErrorFields;
  }
  return undefined;
}

/** 23505: a unique constraint (optionally the named one) refused the row. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pgError = findPgError(error);
  return pgError?.code === "23505" && (constraint === undefined || pgError.constraint === constraint);
}

/** 23503: a foreign key refused the row (the referenced row does not exist, or still is referenced). */
export function isForeignKeyViolation(error: unknown): boolean {
  return findPgError(error)?.code === "23503";
}

/**
 * SQLSTATEs that mean "the server is going away, starting or not reachable", not "your statement
 * is wrong": 57P01 admin_shutdown (also what `pg_terminate_backend` sends), 57P02 crash_shutdown,
 * 57P03 cannot_connect_now (starting up, shutting down, in recovery), 53300 too_many_connections,
 * and the whole class 08 (connection exceptions).
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** Socket errors of a connection that could not be opened or was cut. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EAI_AGAIN",
]);

/**
 * Messages of `pg` and `pg-pool` errors that carry no code: a pool that could not hand out a
 * connection within `connectionTimeoutMillis`, a connection that ended mid-query, a client that
 * already failed.
 */
const UNAVAILABLE_MESSAGES = [
  /^timeout exceeded when trying to connect$/,
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^Connection unexpectedly terminated$/,
];

/**
 * True when `error` (or anything in its cause chain) says PostgreSQL is unreachable, restarting
 * or killed the connection — a condition that passes on its own, so the right answer is "try again
 * shortly" (HTTP 503), never a 500, and never a reason for a process to exit.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const candidate of errorChain(error)) {
    const { code, message } = candidate as { code?: unknown; message?: unknown };
    if (typeof code === "string") {
      if (UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
      if (UNAVAILABLE_SOCKET_CODES.has(code)) return true;
    }
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/**
 * What the log may say about an unexpected error. A failed query's message and `params` hold the
 * values it was writing (password and api key hashes), and PostgreSQL's message and `detail` may
 * quote them: keep the statement (placeholders only) and the driver's codes.
 */
export function loggableDatabaseError(error: unknown): unknown {
  if (!(error instanceof DrizzleQueryError)) return error;
  const cause = error.cause as { code?: string; constraint?: string; table?: string; column?: string } | undefined;
  return {
    type: "DrizzleQueryError",
    message: `query failed with SQLSTATE ${cause?.code ?? "unknown"}`,
    query: error.query,
    code: cause?.code,
    constraint: cause?.constraint,
    table: cause?.table,
    column: cause?.column,
  };
}
