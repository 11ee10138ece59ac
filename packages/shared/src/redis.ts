import { Redis } from "ioredis";

/**
 * Opens an ioredis connection. `maxRetriesPerRequest: null` is what BullMQ requires and also
 * what we want elsewhere: commands wait for a reconnect instead of failing after a few tries.
 */
export function createRedis(url: string, connectionName: string): Redis {
  return new Redis(url, {
    connectionName,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    // Reconnect quickly at first, then at most every 2 s.
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
  });
}

/** The names of every Redis key, channel and queue the hub uses, in one place. */
export function redisKeys(prefix: string) {
  return {
    /** Stream the event relay publishes to (`hub:events` with the default prefix). */
    eventsStream: `${prefix}:events`,
    /** BullMQ prefix; the dispatch queue's keys live under `${prefix}:bull:dispatch:*`. */
    bullPrefix: `${prefix}:bull`,
    dispatchQueue: "dispatch",
    /** Sorted set of job ids ready to be claimed by an automation's worker, scored by creation time. */
    readyJobs: (automationId: string) => `${prefix}:ready:${automationId}`,
    /** Pub/sub channel whose messages are automation ids: "a claim may now succeed". */
    wakeChannel: `${prefix}:wake`,
    /** Present while Redis holds the hub's dispatch state; its absence means Redis lost it. */
    dispatchEpoch: `${prefix}:dispatch-epoch`,
    lock: (name: string) => `${prefix}:lock:${name}`,
    loginAttempts: (subject: string) => `${prefix}:login-attempts:${subject}`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;

/** Resolves when Redis answers PING, or rejects with a message saying what to do. */
export async function assertRedisReachable(redis: Redis, url: string, timeoutMs = 5000): Promise<void> {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`Redis at ${redactUrl(url)} is unreachable: start Redis or set REDIS_URL`)), timeoutMs).unref(),
  );
  await Promise.race([redis.ping(), timeout]);
}

/** A connection URL with its password removed, safe to log. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<unparseable url>";
  }
}
