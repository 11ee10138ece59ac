import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { freePort } from "./free-port";
import { ManagedProcess } from "./managed-process";
import { newLogDir } from "./process-files";

/** A throw-away redis-server owned by the caller (safe to FLUSHDB, restart or kill). */
export interface PrivateRedis {
  url: string;
  port: number;
  process: ManagedProcess;
  /** Stops the server (and deletes its directory unless the caller chose it). */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on a free port without persistence, for tests that must wreck Redis
 * (FLUSHDB, kill) without touching a shared server. Not covered by the orphan guard (it is not a
 * node process): the process 'exit' hook and `stop` end it.
 */
export async function startPrivateRedis(options: { logDir?: string; readyTimeoutMs?: number } = {}): Promise<PrivateRedis> {
  const logDir = options.logDir ?? newLogDir("redis");
  mkdirSync(logDir, { recursive: true });
  const port = await freePort();
  const redis = new ManagedProcess({
    name: "redis",
    command: "redis-server",
    args: ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", logDir],
    env: {},
    logFile: path.join(logDir, "redis.log"),
    readiness: { kind: "log", pattern: /Ready to accept connections/ },
    readyTimeoutMs: options.readyTimeoutMs ?? 10_000,
  });
  await redis.start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: redis,
    stop: async () => {
      await redis.stop(5_000);
      if (!options.logDir) rmSync(logDir, { recursive: true, force: true });
    },
  };
}
