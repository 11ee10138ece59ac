import type { Redis } from "ioredis";
import { createRedis } from "@hub/shared";

/**
 * Deletes every key under `prefix:` (a test's or a benchmark's own prefix, never anything else),
 * through `redis` or a connection of its own to `redis` as a URL.
 */
export async function deleteRedisKeys(redis: Redis | string, prefix: string): Promise<void> {
  const connection = typeof redis === "string" ? createRedis(redis, "hub-test-cleanup") : redis;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await connection.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await connection.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    if (typeof redis === "string") connection.disconnect();
  }
}
