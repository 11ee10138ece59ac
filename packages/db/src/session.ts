/**
 * Plain-SQL handles: what a query module needs to run a named prepared statement, and a dedicated
 * PostgreSQL session (one connection, never pooled) for state that lives as long as a session,
 * such as session advisory locks.
 */
import pg from "pg";
import type { Executor } from "./executor";

/** An {@link Executor} on one connection of its own, which reports when that connection is gone. */
export interface DedicatedSession extends Executor {
  /**
   * True once the connection failed or ended (terminated by `pg_terminate_backend`, the server
   * restarted, the network broke, or {@link DedicatedSession.close}). A lost session never comes
   * back, and everything tied to it (session advisory locks, prepared statements) is gone with it:
   * open a new one.
   */
  readonly lost: boolean;
  /** Ends the connection (idempotent); PostgreSQL then releases the session's advisory locks. */
  close(): Promise<void>;
}

export interface DedicatedSessionOptions {
  /** `application_name` of the connection, so an operator can tell it apart in `pg_stat_activity`. */
  applicationName: string;
  /** Called once, when the connection is lost for any reason other than {@link DedicatedSession.close}. */
  onLost?: (reason: string) => void;
  /** Longest wait for the connection to open. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** Called for each `NOTIFY` on a channel this session `LISTEN`s to. */
  onNotification?: (channel: string, payload: string) => void;
}

/**
 * Opens a {@link DedicatedSession}. Its `'error'` and `'end'` events have listeners from the start,
 * so a connection killed at any moment (even while idle) never surfaces as an unhandled `'error'`
 * event that would end the process; the loss is reported through `onLost` and `lost` instead.
 */
export async function openDedicatedSession(url: string, options: DedicatedSessionOptions): Promise<DedicatedSession> {
  const client = new pg.Client({
    connectionString: url,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    // A peer that vanishes (host down, cable cut) must be noticed, so that the session's locks are
    // known to be gone on both sides.
    keepAlive: true,
  });
  let lost = false;
  let closing = false;
  const markLost = (reason: string) => {
    if (lost) return;
    lost = true;
    if (!closing) options.onLost?.(reason);
    client.end().catch(() => undefined);
  };
  client.on("error", (error) => markLost(`connection failed: ${error.message}`));
  client.on("end", () => markLost("connection ended"));
  const { onNotification } = options;
  if (onNotification) client.on("notification", (message) => onNotification(message.channel, message.payload ?? ""));
  try {
    await client.connect();
  } catch (error) {
    closing = true;
    markLost("connect failed");
    throw error;
  }
  return {
    get lost() {
      return lost;
    },
    query: <Row extends pg.QueryResultRow>(config: pg.QueryConfig, values?: unknown[]) => client.query<Row>(config, values),
    async close() {
      closing = true;
      lost = true;
      await client.end().catch(() => undefined);
    },
  };
}
