import { Cluster, Redis } from "ioredis";
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
  reportOutages(redis, connectionName, options.logger);
  return redis;
}

/** A connection to one Redis server ({@link createRedis}) or to a Redis Cluster ({@link createRedisCluster}). */
export type RedisConnection = Redis | Cluster;

/** Where the hub's Redis is: one server (`REDIS_URL`), or a cluster when `clusterNodes` is set (`REDIS_CLUSTER_NODES`). */
export interface RedisTarget {
  url: string;
  /** Seed nodes, each `redis[s]://[user:password@]host:port`; when set, `url` is not used. */
  clusterNodes?: readonly string[] | undefined;
}

/** Opens a connection to {@link RedisTarget}: a Cluster when seed nodes are given, else one server. */
export function connectRedis(target: RedisTarget, connectionName: string, options: RedisConnectionOptions = {}): RedisConnection {
  if (target.clusterNodes && target.clusterNodes.length > 0) return createRedisCluster(target.clusterNodes, connectionName, options);
  return createRedis(target.url, connectionName, options);
}

/** Where {@link RedisTarget} is, safe to log (passwords removed). */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.clusterNodes && target.clusterNodes.length > 0) return `cluster ${target.clusterNodes.map(redactUrl).join(",")}`;
  return redactUrl(target.url);
}

/**
 * Opens an ioredis Cluster on seed nodes `redis[s]://[user:password@]host:port`. The first seed's
 * credentials and scheme (rediss:// → TLS) apply to every node, as managed clusters use one for
 * all. Commands go to masters only (`scaleReads: "master"`: replicas may lag a claim's withdrawal),
 * wait for a reconnect like {@link createRedis}'s (`maxRetriesPerRequest: null`, what BullMQ
 * requires), and a cluster that answers CLUSTERDOWN or TRYAGAIN (a master restarting) is asked again
 * every 200 ms up to {@link CLUSTER_MAX_REDIRECTIONS} times before the command fails; such failures
 * count as {@link isRedisUnavailable}.
 */
export function createRedisCluster(seedNodes: readonly string[], connectionName: string, options: RedisConnectionOptions = {}): Cluster {
  const seeds = seedNodes.map((node) => new URL(node));
  const first = seeds[0];
  if (!first) throw new Error("a Redis Cluster needs at least one seed node");
  const tls = first.protocol === "rediss:";
  const cluster = new Cluster(
    seeds.map((seed) => ({ host: seed.hostname, port: Number(seed.port || 6379) })),
    {
      redisOptions: {
        connectionName,
        ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
        ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
        ...(tls ? { tls: {} } : {}),
        maxRetriesPerRequest: null,
        enableReadyCheck: true,
        ...(options.commandTimeoutMs === undefined ? {} : { commandTimeout: options.commandTimeoutMs }),
      },
      enableReadyCheck: true,
      scaleReads: "master",
      clusterRetryStrategy: (attempt) => Math.min(50 * 2 ** attempt, MAX_RECONNECT_DELAY_MS),
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 100,
      retryDelayOnFailover: 100,
      maxRedirections: CLUSTER_MAX_REDIRECTIONS,
      slotsRefreshTimeout: 2000,
      // TLS certificates of managed clusters name the host, not its address: connect by name.
      ...(tls ? { dnsLookup: (address: string, callback: (error: Error | null, address: string) => void) => callback(null, address) } : {}),
    },
  );
  reportOutages(cluster, connectionName, options.logger);
  // A node that fails is reported by the cluster as a whole ('error' above) once it matters.
  cluster.on("node error", () => undefined);
  return cluster;
}

/** How often a cluster command is re-sent after MOVED/ASK/TRYAGAIN/CLUSTERDOWN before it fails (~3 s of CLUSTERDOWN). */
const CLUSTER_MAX_REDIRECTIONS = 16;

/** Listens to a connection's errors (logging the first of each outage) and says when it is back. */
function reportOutages(connection: RedisConnection, connectionName: string, logger: Logger | undefined): void {
  let reported = false;
  connection.on("error", (error: Error & { code?: string }) => {
    if (reported) return;
    reported = true;
    logger?.warn({ err: { message: error.message, code: error.code }, connection: connectionName }, "Redis connection failed; reconnecting");
  });
  connection.on("ready", () => {
    if (!reported) return;
    reported = false;
    logger?.info({ connection: connectionName }, "Redis connection restored");
  });
}

/**
 * The masters of a cluster, or the one server: what a command that is not about one key (SCAN,
 * FLUSHDB, INFO) must be sent to on each.
 */
export function redisServers(connection: RedisConnection): Redis[] {
  return connection instanceof Cluster ? connection.nodes("master") : [connection];
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
  // A Redis Cluster with a master down or restarting, or not reachable at all.
  /^CLUSTERDOWN /,
  /^TRYAGAIN /,
  /^MASTERDOWN /,
  /^Too many Cluster redirections/,
  /^Failed to refresh slots cache/,
  /^None of startup nodes is available/,
  /^Cluster isn't ready/,
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
    if (name === "MaxRetriesPerRequestError" || name === "ClusterAllFailedError") return true;
    if (typeof code === "string" && SOCKET_CODES.has(code)) return true;
    if (typeof message === "string" && (REDIS_UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message)) || message.startsWith("LOADING "))) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** How Redis keys are laid out: how many dispatch shards, and whether Redis is a cluster. */
export interface RedisKeyLayout {
  /** HUB_DISPATCH_SHARDS (default 1). */
  shards?: number;
  /** True on a Redis Cluster: every shard's keys then carry its hash tag, even with one shard. */
  cluster?: boolean;
}

/** Default HUB_DISPATCH_SHARDS: spread over the masters of a cluster; one shard (today's key names) on one server. */
export const DEFAULT_DISPATCH_SHARDS = { cluster: 16, single: 1 } as const;

/**
 * The dispatch shard of an automation: FNV-1a of its id, modulo the shard count. Every process of
 * a hub must use the same count (HUB_DISPATCH_SHARDS), or they look for its offers in different places.
 */
export function dispatchShardOf(automationId: string, shards: number): number {
  if (shards <= 1) return 0;
  let hash = 0x811c9dc5;
  for (let index = 0; index < automationId.length; index++) {
    hash ^= automationId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % shards;
}

/**
 * The names of every Redis key, channel and queue the hub uses, in one place.
 *
 * Dispatch state is split in shards (`layout.shards`); an automation belongs to one
 * ({@link dispatchShardOf}). Every key of a shard — its automations' ready sets and claimed ids,
 * its delayed set, its BullMQ queue, its epoch — carries the shard's hash tag `{d<n>}`, so that one
 * Lua script, transaction or pipeline of a shard touches one cluster slot, and the shards spread
 * over the masters. With one shard on one server (the default there) the keys keep the names they
 * had before shards existed (`hub:ready:<id>`, `hub:delayed`, `hub:bull:dispatch:*`, …), so a
 * rolling upgrade changes nothing. Keys touched alone (the events stream, locks, login attempts,
 * the horizon watermark) carry no tag.
 */
export function redisKeys(prefix: string, layout: RedisKeyLayout = {}) {
  const shards = layout.shards ?? 1;
  if (!Number.isInteger(shards) || shards < 1) throw new Error(`the number of dispatch shards must be a whole number ≥ 1, not ${shards}`);
  const tagged = shards > 1 || layout.cluster === true;
  /** Where a shard's keys start: `hub:{d7}` (tagged) or `hub` (one shard on one server). */
  const shardPrefixes = Array.from({ length: shards }, (_, shard) => (tagged ? `${prefix}:{d${shard}}` : prefix));
  const shardPrefix = (shard: number) => {
    const found = shardPrefixes[shard];
    if (found === undefined) throw new Error(`no dispatch shard ${shard} (of ${shards})`);
    return found;
  };
  const shardOf = (automationId: string) => dispatchShardOf(automationId, shards);
  return {
    /** How many dispatch shards (HUB_DISPATCH_SHARDS). */
    shards,
    /** The dispatch shard of an automation. */
    shardOf,
    /** Stream the event relay publishes to (`hub:events` with the default prefix, shards or not). */
    eventsStream: `${prefix}:events`,
    /** BullMQ prefix of a shard; its dispatch queue's keys live under `${bullPrefix}:dispatch:*` (`hub:{d7}:bull:dispatch:*`). */
    bullPrefix: (shard: number) => `${shardPrefix(shard)}:bull`,
    dispatchQueue: "dispatch",
    /** Sorted set of the jobs an automation's worker may claim, in claim order (claim-order.ts). */
    readyJobs: (automationId: string) => `${shardPrefix(shardOf(automationId))}:ready:${automationId}`,
    /** Ids of an automation's jobs claimed in the last minute (ready-jobs.ts), in its ready set's slot. */
    claimedJobs: (automationId: string) => `${shardPrefix(shardOf(automationId))}:ready:${automationId}:claimed`,
    /**
     * Sorted set of a shard's queued jobs due within about a minute, scored by when they come due
     * (ms); members `automationId|jobId|seq|priority`. Dispatchers move due ones to ready sets.
     */
    delayedJobs: (shard: number) => `${shardPrefix(shard)}:delayed`,
    /**
     * PostgreSQL time (ms) up to which the dispatchers' horizon pass has brought queued jobs into
     * the delayed sets; the next pass continues from there.
     */
    delayedHorizon: `${prefix}:delayed-horizon`,
    /** Pub/sub channel whose messages are automation ids: "a claim may now succeed". */
    wakeChannel: `${prefix}:wake`,
    /**
     * Pub/sub channel whose messages (empty) say "a delayed set's earliest job is earlier than it
     * was": the dispatchers, which sleep until the earliest one is due, look again (ready-jobs.ts).
     */
    delayedChannel: `${prefix}:delayed-earlier`,
    /** Pub/sub channel whose messages (empty) say "events were committed": relays probe the outbox at once (outbox-nudge.ts). */
    outboxChannel: `${prefix}:outbox`,
    /**
     * Present while Redis holds a shard's dispatch state; its absence means the shard's data was
     * lost (a restart without persistence, FLUSHDB, a cluster master that came back empty).
     */
    dispatchEpoch: (shard: number) => `${shardPrefix(shard)}:dispatch-epoch`,
    lock: (name: string) => `${prefix}:lock:${name}`,
    /** Pub/sub channel of one job: "its log, progress or status changed" (apps/api's job log streams). */
    jobLogChannel: (jobId: string) => `${prefix}:job-logs:${jobId}`,
    /** Hash of the open streams of one user or worker key on one stream path, over every API process (CONTRACT §6.15). */
    openStreams: (stream: string, owner: string) => `${prefix}:open-streams:${stream}:${owner}`,
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;

/** The Redis variables every app reads (commonEnvShape in ./env.ts). */
export interface RedisEnv {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: string[] | undefined;
  HUB_DISPATCH_SHARDS?: number | undefined;
  HUB_REDIS_PREFIX: string;
}

/** Where Redis is and how its keys are laid out, from the environment: what every app connects with. */
export function redisSetup(env: RedisEnv): { target: RedisTarget; keys: RedisKeys } {
  const cluster = (env.REDIS_CLUSTER_NODES?.length ?? 0) > 0;
  const shards = env.HUB_DISPATCH_SHARDS ?? (cluster ? DEFAULT_DISPATCH_SHARDS.cluster : DEFAULT_DISPATCH_SHARDS.single);
  return {
    target: { url: env.REDIS_URL, clusterNodes: cluster ? env.REDIS_CLUSTER_NODES : undefined },
    keys: redisKeys(env.HUB_REDIS_PREFIX, { shards, cluster }),
  };
}

/** Resolves when Redis answers PING, or rejects with a message saying what to do. */
export async function assertRedisReachable(redis: RedisConnection, target: RedisTarget, timeoutMs = 5000): Promise<void> {
  const setting = target.clusterNodes?.length ? "REDIS_CLUSTER_NODES" : "REDIS_URL";
  await settleWithin(redis.ping(), timeoutMs, `Redis at ${describeRedisTarget(target)} is unreachable: start Redis or set ${setting}`);
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
