import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port";

const execFileAsync = promisify(execFile);

/** A throw-away PostgreSQL cluster owned by the caller (safe to stop, restart or crash). */
export interface PrivatePostgres {
  /** The server-level URL (`…/postgres`); create databases beside it (`createTestDatabase`). */
  serverUrl: string;
  port: number;
  /** The cluster's directory (data and server log). */
  dir: string;
  /** True while the server runs (as far as this fixture started and stopped it). */
  readonly running: boolean;
  /**
   * Stops the server. "fast" (a clean restart's first half): sessions are terminated (57P01) and
   * new connections refused. "immediate": the server dies without cleanup, as in a crash.
   */
  stopServer(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts the stopped server again on the same port and waits until it accepts connections. */
  startServer(): Promise<void>;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

const POSTGRES_BIN_DIRS = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"];

/** `runuser` lives in sbin, which a minimal PATH (a CI runner's `env -i`) may lack. */
function runuserPath(): string {
  return ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find((candidate) => existsSync(candidate)) ?? "runuser";
}

/**
 * Where `initdb` and `pg_ctl` are, or undefined when this machine has none (a test then skips and
 * says so). Looks in Debian's versioned directories, then on PATH.
 */
export function findPostgresBinDir(): string | undefined {
  const candidates = [...POSTGRES_BIN_DIRS, ...(process.env.PATH ?? "").split(path.delimiter)];
  return candidates.find((dir) => dir && existsSync(path.join(dir, "pg_ctl")) && existsSync(path.join(dir, "initdb")));
}

const livePostgresClusters = new Map<string, () => void>();
let postgresExitHookInstalled = false;

/**
 * Starts a PostgreSQL cluster of its own, made with `initdb` in a new temporary directory and run
 * with `pg_ctl` on a free port (TCP on 127.0.0.1 only, no Unix socket, trust authentication, user
 * `postgres`, no fsync unless `settings` says so: it holds test data only). PostgreSQL refuses to run as root, so
 * when the caller is root every command runs as the `postgres` user through `runuser`.
 *
 * `pg_ctl` detaches the server, so it is not a child of the caller: the process 'exit' hook stops
 * every cluster still running (immediate mode), and {@link PrivatePostgres.stop} deletes it.
 */
export async function startPrivatePostgres(
  options: {
    readyTimeoutSeconds?: number;
    /**
     * Server settings (`-c name=value`) added to the defaults below, or replacing the default of
     * the same name: e.g. `{ fsync: "on" }` for a server that must behave as a production one.
     */
    settings?: Readonly<Record<string, string>>;
  } = {},
): Promise<PrivatePostgres> {
  const binDir = findPostgresBinDir();
  if (!binDir) throw new Error("PostgreSQL server binaries (initdb, pg_ctl) not found");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), "hub-postgres-"));
  const dataDir = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  const invocation = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? [runuserPath(), ["-u", "postgres", "--", path.join(binDir, tool), ...args]] : [path.join(binDir, tool), args];
  // Asynchronous, so the caller's load keeps running while the server starts or stops.
  const run = async (tool: string, args: string[]) => {
    const [command, fullArgs] = invocation(tool, args);
    try {
      await execFileAsync(command, fullArgs, { cwd: dir });
    } catch (error) {
      const { stderr = "", stdout = "" } = error as { stderr?: string; stdout?: string };
      throw new Error(`${tool} ${args.join(" ")} failed: ${(error as Error).message} ${stderr}${stdout}`);
    }
  };
  if (asRoot) {
    const chown = spawnSync("chown", ["postgres:postgres", dir], { encoding: "utf8" });
    if (chown.status !== 0) throw new Error(`chown postgres ${dir} failed: ${chown.stderr}`);
  }
  await run("initdb", ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"]);
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "''",
    // No fsync: safe against the server process dying ("immediate" stop), which is what tests do,
    // though not against the machine losing power. synchronous_commit stays on: with it off, an
    // immediate stop loses commits already acknowledged, and a test would see the server, not the
    // hub, lose jobs.
    fsync: "off",
    full_page_writes: "off",
    max_connections: "200",
    ...options.settings,
  };
  for (const [name, value] of Object.entries(settings)) {
    // pg_ctl passes -o to the server through a shell: one word per setting.
    if (!/^[a-z_.]+$/.test(name) || /\s/.test(value)) throw new Error(`startPrivatePostgres: setting ${name}=${value} must be one word`);
  }
  const serverOptions = [`-p ${port}`, ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(" ");
  const timeout = String(options.readyTimeoutSeconds ?? 60);
  let running = false;
  const stopArgs = (mode: "fast" | "immediate") => ["-D", dataDir, "-m", mode, "-w", "-t", timeout, "stop"];
  const cluster: PrivatePostgres = {
    serverUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    get running() {
      return running;
    },
    async stopServer(mode = "fast") {
      await run("pg_ctl", stopArgs(mode));
      running = false;
      livePostgresClusters.delete(dir);
    },
    async startServer() {
      await run("pg_ctl", ["-D", dataDir, "-l", logFile, "-o", serverOptions, "-w", "-t", timeout, "start"]);
      running = true;
      // At exit only synchronous work runs.
      livePostgresClusters.set(dir, () => spawnSync(...invocation("pg_ctl", stopArgs("immediate"))));
    },
    async stop() {
      if (running) await cluster.stopServer("fast");
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (!postgresExitHookInstalled) {
    postgresExitHookInstalled = true;
    process.on("exit", () => {
      for (const stop of livePostgresClusters.values()) {
        try {
          stop();
        } catch {
          // Exiting anyway: nothing more to do.
        }
      }
    });
  }
  try {
    await cluster.startServer();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}
