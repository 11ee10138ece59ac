import { execFile } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port";
import { ManagedProcess } from "./managed-process";
import { newLogDir } from "./process-files";

const run = promisify(execFile);

/** One master of a {@link PrivateRedisCluster}. */
export interface ClusterMaster {
  port: number;
  url: string;
  process: ManagedProcess;
}

/** A throw-away Redis Cluster of masters without replicas, owned by the caller (safe to kill a master). */
export interface PrivateRedisCluster {
  masters: ClusterMaster[];
  /** Seed nodes, as REDIS_CLUSTER_NODES takes them (comma-joined). */
  seedNodes: string[];
  /** `cluster-node-timeout` of every node (ms). */
  nodeTimeoutMs: number;
  /**
   * Kills master `index` with SIGKILL: without a replica its slots are down (the others answer
   * CLUSTERDOWN once they marked it failed, after the node timeout) until {@link restartMaster}.
   */
  killMaster(index: number): Promise<void>;
  /**
   * Starts master `index` again on its port with its nodes.conf and no data (no persistence): it
   * rejoins with its slots, empty. Resolves once every node says `cluster_state:ok`.
   */
  restartMaster(index: number): Promise<void>;
  /** Resolves once every running node says `cluster_state:ok` (rejects after `timeoutMs`). */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  /** Runs `redis-cli` against master `index` and returns its output (e.g. `INFO commandstats`). */
  cli(index: number, ...args: string[]): Promise<string>;
  /** Stops every node and deletes their directory (unless the caller chose it). */
  stop(): Promise<void>;
}

/**
 * Starts a local Redis Cluster of `masters` redis-server processes (default 3, no replicas) on
 * free ports of 127.0.0.1, each in its own directory under a temp dir, without persistence
 * (`--save "" --appendonly no`) but with its `nodes.conf`, so a restarted master rejoins, empty;
 * joins them with `redis-cli --cluster create --cluster-replicas 0 --cluster-yes` and waits for
 * `cluster_state:ok` on every node. Like {@link startPrivateRedis}, not covered by the orphan guard:
 * the process 'exit' hook and `stop` end the servers.
 */
export async function startPrivateRedisCluster(
  options: { masters?: number; nodeTimeoutMs?: number; logDir?: string; readyTimeoutMs?: number } = {},
): Promise<PrivateRedisCluster> {
  const count = options.masters ?? 3;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1000;
  const baseDir = options.logDir ?? newLogDir("redis-cluster");
  mkdirSync(baseDir, { recursive: true });
  const masters: ClusterMaster[] = [];
  const usedPorts = new Set<number>();
  const pickPort = async () => {
    for (;;) {
      const port = await freePort();
      // The cluster bus listens on its own port: keep every port of the cluster distinct.
      if (!usedPorts.has(port)) {
        usedPorts.add(port);
        return port;
      }
    }
  };
  try {
    for (let index = 0; index < count; index++) {
      const port = await pickPort();
      const busPort = await pickPort();
      const dir = path.join(baseDir, `node-${index}`);
      mkdirSync(dir, { recursive: true });
      const server = new ManagedProcess({
        name: `redis-cluster-${index}`,
        command: "redis-server",
        args: [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--cluster-enabled",
          "yes",
          "--cluster-port",
          String(busPort),
          "--cluster-config-file",
          "nodes.conf",
          "--cluster-node-timeout",
          String(nodeTimeoutMs),
          "--save",
          "",
          "--appendonly",
          "no",
          "--dir",
          dir,
        ],
        env: {},
        logFile: path.join(dir, "redis.log"),
        readiness: { kind: "log", pattern: /Ready to accept connections/ },
        readyTimeoutMs: options.readyTimeoutMs ?? 10_000,
      });
      masters.push({ port, url: `redis://127.0.0.1:${port}`, process: server });
    }
    await Promise.all(masters.map((master) => master.process.start()));
    await run("redis-cli", ["--cluster", "create", ...masters.map((master) => `127.0.0.1:${master.port}`), "--cluster-replicas", "0", "--cluster-yes"], {
      timeout: 30_000,
    });
  } catch (error) {
    await Promise.all(masters.map((master) => master.process.stop(5_000)));
    throw error;
  }

  const cli = async (index: number, ...args: string[]) => {
    const master = masters[index];
    if (!master) throw new Error(`no master ${index}`);
    const { stdout } = await run("redis-cli", ["-h", "127.0.0.1", "-p", String(master.port), ...args], { timeout: 5_000 });
    return stdout;
  };
  const waitUntilOk = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(
        masters.map((master, index) => (master.process.running ? cli(index, "CLUSTER", "INFO").catch((error: Error) => error.message) : "not running")),
      );
      if (states.every((state) => state.includes("cluster_state:ok"))) return;
      if (Date.now() > deadline)
        throw new Error(`the Redis Cluster is not ok after ${timeoutMs} ms: ${states.map((state) => state.split("\n")[0]).join(" | ")}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    await waitUntilOk();
  } catch (error) {
    await Promise.all(masters.map((master) => master.process.stop(5_000)));
    throw error;
  }

  return {
    masters,
    seedNodes: masters.map((master) => master.url),
    nodeTimeoutMs,
    async killMaster(index) {
      await masters[index]!.process.kill("SIGKILL");
    },
    async restartMaster(index) {
      await masters[index]!.process.start();
      await waitUntilOk();
    },
    waitUntilOk,
    cli,
    async stop() {
      await Promise.all(masters.map((master) => master.process.stop(5_000)));
      if (!options.logDir) rmSync(baseDir, { recursive: true, force: true });
    },
  };
}
