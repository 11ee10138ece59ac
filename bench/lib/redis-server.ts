/**
 * The Redis every mode measures on: by default a redis-server the run starts itself (no
 * persistence, through @hub/test-services), so that the `redis` CPU figure and the command counts
 * (INFO commandstats) are the run's own — on a shared machine the shared server also serves other
 * users' tests and benchmarks. `BENCH_REDIS=shared` measures on REDIS_URL instead, as before.
 */
import { startPrivateRedis } from "@hub/testing";
import { accountRedisServer } from "./cpu";

export interface BenchRedis {
  url: string;
  /** One line for the report: which server. */
  description: string;
  stop(): Promise<void>;
}

export async function startBenchRedis(choice: "private" | "shared", sharedUrl: string): Promise<BenchRedis> {
  if (choice === "shared")
    return { url: sharedUrl, description: `the SHARED server ${sharedUrl} (its figures include other users' commands)`, stop: async () => undefined };
  try {
    const server = await startPrivateRedis();
    const pid = server.process.pid;
    if (pid !== undefined) accountRedisServer(pid);
    return { url: server.url, description: `a private redis-server started by this run (pid ${pid}, no persistence)`, stop: () => server.stop() };
  } catch (error) {
    console.error(`bench: WARNING: no private redis-server (${(error as Error).message}); measuring on the SHARED server ${sharedUrl} instead`);
    return {
      url: sharedUrl,
      description: `the SHARED server ${sharedUrl} (no private one could start; its figures include other users' commands)`,
      stop: async () => undefined,
    };
  }
}
