import { describe, expect, it } from "vitest";
import { createRedisCluster, describeRedisTarget, dispatchShardOf, isRedisUnavailable, redisKeys } from "./redis";

describe("isRedisUnavailable", () => {
  it.each([
    ["a command timeout", new Error("Command timed out")],
    ["a connection closed under a command", new Error("Connection is closed.")],
    ["no connection and no offline queue", new Error("Stream isn't writeable and enableOfflineQueue options is false")],
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" })],
    ["Redis loading its data set", new Error("LOADING Redis is loading the dataset in memory")],
    ["a cluster with a slot uncovered", new Error("CLUSTERDOWN The cluster is down")],
    ["a cluster resharding", new Error("TRYAGAIN Multiple keys request during rehashing of slot")],
    ["a storm of redirections", new Error("Too many Cluster redirections. Last error: Error: CLUSTERDOWN The cluster is down")],
    ["a slots refresh that failed", new Error("Failed to refresh slots cache.")],
    ["no seed node answering", new Error("None of startup nodes is available")],
    ["every node failing", Object.assign(new Error("Failed to refresh slots cache."), { name: "ClusterAllFailedError" })],
  ])("when the error is %s, then Redis is unavailable", (_what, error) => {
    expect(isRedisUnavailable(error)).toBe(true);
  });

  it.each([
    ["a wrong-type reply", new Error("WRONGTYPE Operation against a key holding the wrong kind of value")],
    ["a message that only mentions a refused connection", new Error("connect ECONNREFUSED db-internal:5432")],
    ["a non-error", undefined],
  ])("when the error is %s, then it is not an outage", (_what, error) => {
    expect(isRedisUnavailable(error)).toBe(false);
  });
});

describe("redisKeys", () => {
  it("when there are several shards, then each shard's keys share one hash tag and an automation's keys are in its shard's slot", () => {
    const keys = redisKeys("hub", { shards: 16, cluster: true });
    const automationId = "0b7d2c1e-8a3f-4c55-9a0e-6f1f2d3c4b5a";
    const shard = keys.shardOf(automationId);
    const tag = `{d${shard}}`;

    for (const key of [
      keys.readyJobs(automationId),
      keys.claimedJobs(automationId),
      keys.delayedJobs(shard),
      keys.bullPrefix(shard),
      keys.dispatchEpoch(shard),
    ]) {
      expect(key).toContain(`hub:${tag}:`);
    }
    expect(keys.eventsStream).toBe("hub:events");
    expect(keys.delayedHorizon).toBe("hub:delayed-horizon");
  });

  it("when automations are hashed to 16 shards, then every shard gets some and the mapping never changes", () => {
    const counts = new Array<number>(16).fill(0);
    for (let index = 0; index < 1600; index++) counts[dispatchShardOf(`automation-${index}`, 16)]! += 1;

    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(dispatchShardOf("0b7d2c1e-8a3f-4c55-9a0e-6f1f2d3c4b5a", 16)).toBe(dispatchShardOf("0b7d2c1e-8a3f-4c55-9a0e-6f1f2d3c4b5a", 16));
    expect(dispatchShardOf("anything", 1)).toBe(0);
  });
});

describe("createRedisCluster", () => {
  it("when the seed nodes carry a user, a password and rediss://, then every node connection uses them with TLS, and logs show no password", () => {
    const seeds = ["rediss://hub:s3cr%40t@node-1.example:7000", "rediss://hub:s3cr%40t@node-2.example:7001"];
    const cluster = createRedisCluster(seeds, "test-cluster");
    try {
      expect(cluster.options.redisOptions).toMatchObject({
        username: "hub",
        password: "s3cr@t",
        tls: {},
        maxRetriesPerRequest: null,
        connectionName: "test-cluster",
      });
      expect(cluster.options.scaleReads).toBe("master");
      expect(describeRedisTarget({ url: "redis://unused:6379", clusterNodes: seeds })).not.toContain("s3cr");
    } finally {
      cluster.disconnect();
    }
  });
});
