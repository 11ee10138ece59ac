import { describe, expect, it } from "vitest";
import { z } from "zod";
import { commonEnvShape, EnvError, parseEnv } from "./env";
import { DEFAULT_DISPATCH_SHARDS, describeRedisTarget, redisSetup } from "./redis";
import { AUTOMATION_LIMITS, JOB_DEFAULTS } from "./limits";

const schema = z.object({ ...commonEnvShape, HUB_JWT_SECRET: z.string().min(32) });

describe("parseEnv", () => {
  it("when nothing optional is set, then the hub's defaults apply: local servers, the job lease, attempts and worker TTL of JOB_DEFAULTS", () => {
    const env = parseEnv(schema, { HUB_JWT_SECRET: "x".repeat(32) });

    expect(env).toMatchObject({
      DATABASE_URL: "postgres://postgres@127.0.0.1:5432/automation_hub",
      REDIS_URL: "redis://127.0.0.1:6379",
      HUB_REDIS_PREFIX: "hub",
      LOG_LEVEL: "info",
      HUB_JOB_LEASE_SECONDS: JOB_DEFAULTS.leaseSeconds,
      HUB_JOB_MAX_ATTEMPTS: JOB_DEFAULTS.maxAttempts,
      HUB_WORKER_TTL_SECONDS: JOB_DEFAULTS.workerTtlSeconds,
    });
  });

  it("when a required variable is missing, then the one-line error names it", () => {
    expect(() => parseEnv(schema, {})).toThrow(new EnvError("Configuration error: HUB_JWT_SECRET is required"));
  });

  it.each([
    ["HUB_JOB_MAX_ATTEMPTS", String(AUTOMATION_LIMITS.maxAttempts.max + 1), `must be ≤ ${AUTOMATION_LIMITS.maxAttempts.max}`],
    ["HUB_JOB_LEASE_SECONDS", "0", "must be ≥ 1"],
    ["HUB_WORKER_TTL_SECONDS", "ten", "expected a whole number between 1 and 86400"],
  ])("when %s is %s, then the error names the variable and what is wrong", (name, value, problem) => {
    expect(() => parseEnv(schema, { HUB_JWT_SECRET: "x".repeat(32), [name]: value })).toThrow(`Configuration error: ${name} is invalid: ${problem}`);
  });

  it("when a variable is set to the empty string, then it counts as unset", () => {
    expect(parseEnv(schema, { HUB_JWT_SECRET: "x".repeat(32), HUB_JOB_MAX_ATTEMPTS: "", REDIS_URL: "" })).toMatchObject({
      HUB_JOB_MAX_ATTEMPTS: JOB_DEFAULTS.maxAttempts,
      REDIS_URL: "redis://127.0.0.1:6379",
    });
  });
});

describe("Redis Cluster settings", () => {
  const base = { HUB_JWT_SECRET: "x".repeat(32) };

  it("when REDIS_CLUSTER_NODES lists seed nodes, then the hub connects to that cluster with 16 dispatch shards, and REDIS_URL is not used", () => {
    const env = parseEnv(schema, { ...base, REDIS_CLUSTER_NODES: " redis://a:7000, rediss://user:secret@b:7001 " });
    const { target, keys } = redisSetup(env);

    expect(target.clusterNodes).toEqual(["redis://a:7000", "rediss://user:secret@b:7001"]);
    expect(keys.shards).toBe(DEFAULT_DISPATCH_SHARDS.cluster);
    expect(keys.readyJobs("automation-1")).toMatch(/^hub:\{d\d+\}:ready:automation-1$/);
    expect(describeRedisTarget(target)).not.toContain("secret");
  });

  it("when only REDIS_URL is set, then one shard keeps the key names of before shards", () => {
    const { target, keys } = redisSetup(parseEnv(schema, base));

    expect(target.clusterNodes).toBeUndefined();
    expect(keys.shards).toBe(1);
    expect([keys.readyJobs("a"), keys.delayedJobs(0), keys.bullPrefix(0), keys.dispatchEpoch(0)]).toEqual([
      "hub:ready:a",
      "hub:delayed",
      "hub:bull",
      "hub:dispatch-epoch",
    ]);
  });

  it.each([
    ["REDIS_CLUSTER_NODES", "127.0.0.1:7000", "expected comma-separated redis[s]://[user:password@]host:port"],
    ["REDIS_CLUSTER_NODES", "http://a:7000", "expected comma-separated redis[s]://[user:password@]host:port"],
    ["HUB_DISPATCH_SHARDS", "0", "must be ≥ 1"],
    ["HUB_DISPATCH_SHARDS", "1025", "must be ≤ 1024"],
    ["HUB_DISPATCH_SHARDS", "two", "expected a whole number between 1 and 1024"],
  ])("when %s is %s, then start-up is refused: %s", (name, value, message) => {
    expect(() => parseEnv(schema, { ...base, [name]: value })).toThrow(new EnvError(`Configuration error: ${name} is invalid: ${message}`));
  });
});
