import { Redis } from "ioredis";
import type { Logger } from "./logger";
import { settleWithin } from "./timeout";

/** Options of {@link createRedis}. */
export interface RedisConnectionOptions {
  /**
   * Where connection errors are reported (warn, once per outage: ioredis reports every failed
   * reconnect). Without it they are still listened to, so none is ever an unhandled 'error' event.
   */
  logger?: Logger;
  /**
   * Fails a command that has no reply after this long ("Command timed out"), including one queued
   * while Redis is unreachable. For connections that serve requests, so a request that needs Redis
   * answers 503 in time instead of waiting for the reconnect. Never for a connection that runs
   * blocking commands (BullMQ workers). Default: none (commands wait for the reconnect).
   */
  commandTimeoutMs?: number;
}

/** At most this long between reconnect attempts. */
const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * Opens an ioredis connection. `maxRetriesPerRequest: null` is what BullMQ requires and also
 * what we want elsewhere: commands wait for a reconnect instead of failing after a few tries
 * (bounded by `commandTimeoutMs` where a request waits on them).
 */
export function createRedis(url: string, connectionName: string, options: RedisConnectionOptions = {}): Redis {
  const redis = new Redis(url, {
    connectionName,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeout: options.commandTimeoutMs }),
    // Reconnect quickly at first, then every second at most, so a returning Redis is in use
    // again within about a second, whatever the length of the outage.
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, MAX_RECONNECT_DELAY_MS),
  });
  let reported = false;
  redis.on("error", (error: Error & { code?: string }) => {
    if (reported) return;
    reported = true;
    options.logger?.warn({ err: { message: error.message, code: error.code }, connection: connectionName }, "Redis connection failed; reconnecting");
  });
  redis.on("ready", () => {
    if (!reported) return;
    reported = false;
    options.logger?.info({ connection: connectionName }, "Redis connection restored");
  });
  return redis;
}

/**
 * Messages of ioredis errors that mean "Redis is not reachable right now" rather than "this
 * command is wrong": a command that timed out (`commandTimeout`), a connection closed under a
 * command, or no connection to send it on.
 */
const REDIS_UNAVAILABLE_MESSAGES = [
  /^Command timed out$/,
  /^Connection is closed\.$/,
  /^Stream isn't writeable/,
  /^Reached the max retries per request limit/,
];
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * True when `error` says Redis is unreachable or restarting (ioredis' own errors, socket errors,
 * `LOADING` while it reads its data set back): a condition that passes on its own, to be answered
 * with 503 and never a reason for a process to exit.
 */
export function isRedisUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const { message, code, name } = current as { message?: unknown; code?: unknown; name?: unknown };
    if (name === "MaxRetriesPerRequestError") return true;
    if (typeof code === "string" && SOCKET_CODES.has(code)) return true;
    if (typeof message === "string" && (REDIS_UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)) || message.startsWith("LOADING "))) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The names of every Redis key, channel and queue the hub uses, in one place. */
export function redisKeys(prefix: string) {
  return {
    /** Stream the event relay publishes to (`hub:events` with the default prefix). */
    eventsStream: `${prefix}:events`,
    /** BullMQ prefix; the dispatch queue's keys live under `${prefix}:bull:dispatch:*`. */
    bullPrefix: `${prefix}:bull`,
    dispatchQueue: "dispatch",
    /** Sorted set of the jobs an automation's worker may claim, in claim order (claim-order.ts). */
    readyJobs: (automationId: string) => `${prefix}:ready:${automationId}`,
    /**
     * Sorted set of queued jobs due within about a minute, every automation's, scored by when they
     * come due (ms); members `automationId|jobId|seq|priority`. Dispatchers move due ones to ready sets.
     */
    delayedJobs: `${prefix}:delayed`,
    /**
     * PostgreSQL time (ms) up to which the dispatchers' horizon pass has brought queued jobs into
     * the delayed set; the next pass continues from there.
     */
    delayedHorizon: `${prefix}:delayed-horizon`,
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
  await settleWithin(redis.ping(), timeoutMs, `Redis at ${redactUrl(url)} is unreachable: start Redis or set REDIS_URL`);
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
