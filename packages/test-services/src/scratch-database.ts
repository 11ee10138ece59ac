import { randomBytes } from "node:crypto";
import pg from "pg";

export interface ScratchDatabase {
  /** Its name, `<label>_<random>`. */
  name: string;
  url: string;
  /** Drops it, whoever is still connected. */
  drop(): Promise<void>;
}

export interface ScratchDatabaseOptions {
  /** The start of its name (default "hub_test"). */
  label?: string;
  /** Runs once it exists, before it is handed out: migrations, a peer queue's schema… */
  prepare?: (url: string) => Promise<unknown>;
}

async function runOnServer(serverUrl: string, statement: string): Promise<void> {
  const admin = new URL(serverUrl);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString(), application_name: "hub-test-admin" });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Creates a uniquely named database on the server of `serverUrl` (any database URL of it), so a
 * test file, a benchmark run or a peer queue gets rows of its own.
 */
export async function createScratchDatabase(serverUrl: string, options: ScratchDatabaseOptions = {}): Promise<ScratchDatabase> {
  const name = `${options.label ?? "hub_test"}_${randomBytes(6).toString("hex")}`;
  await runOnServer(serverUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const drop = () => runOnServer(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  try {
    await options.prepare?.(url.toString());
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, url: url.toString(), drop };
}
