import { connectRedis, redisServers, type RedisConnection } from "@hub/shared";

/**
 * Deletes every key under `prefix:` (a test's or a benchmark's own prefix, never anything else),
 * through `redis` or a connection of its own to `redis` as a URL. On a cluster every master is
 * scanned, and keys are deleted one command each (a command may not span slots).
 */
export async function deleteRedisKeys(redis: RedisConnection | string, prefix: string): Promise<void> {
  const connection = typeof redis === "string" ? connectRedis({ url: redis }, "hub-test-cleanup") : redis;
  try {
    if (connection.status !== "ready")
      await new Promise<void>((resolve, reject) => {
        connection.once("ready", resolve);
        connection.once("end", () => reject(new Error("Redis connection ended before the clean-up")));
      });
    for (const server of redisServers(connection)) {
      const oneSlotPerCommand = server !== connection;
      let cursor = "0";
      do {
        const [next, keys] = await server.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
        cursor = next;
        if (keys.length === 0) continue;
        if (!oneSlotPerCommand) await server.unlink(...keys);
        else {
          const pipeline = server.pipeline();
          for (const key of keys) pipeline.unlink(key);
          await pipeline.exec();
        }
      } while (cursor !== "0");
    }
  } finally {
    if (typeof redis === "string") connection.disconnect();
  }
}
