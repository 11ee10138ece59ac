import { createRedis } from "@hub/shared";

/** Deletes every key under `prefix:` (the run's own prefix, never anything else). */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = createRedis(redisUrl, "bench-cleanup");
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
