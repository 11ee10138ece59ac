/**
 * The dispatcher with several dispatch shards (HUB_DISPATCH_SHARDS) on one Redis server: each
 * automation's jobs travel through its shard's BullMQ queue and delayed set, under the shard's
 * hash tag, and a shard that lost its data alone is noticed by its own epoch key.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { jobs } from "@hub/db";
import { redisKeys, type RedisKeys } from "@hub/shared";
import { DispatchQueue, ReadyJobs } from "@hub/shared/dispatch";
import { createDispatcher, type Dispatcher } from "../src/dispatcher";
import { eventually, seedAutomation, seedQueuedJobs } from "@hub/testing";
import { openTestEnvironment, type TestEnvironment } from "@hub/testing/vitest";

const SHARDS = 4;
let env: TestEnvironment;
let keys: RedisKeys;
let dispatcher: Dispatcher;

/** Seeds automations until two of them are in different shards. */
async function automationsInTwoShards(): Promise<[string, string]> {
  const first = (await seedAutomation(env.database.db)).automation.id;
  for (let attempt = 0; attempt < 20; attempt++) {
    const other = (await seedAutomation(env.database.db)).automation.id;
    if (keys.shardOf(other) !== keys.shardOf(first)) return [first, other];
  }
  throw new Error("20 automations all hashed to one shard");
}

beforeAll(async () => {
  env = await openTestEnvironment("dispatch-shards-test");
  keys = redisKeys(env.prefix, { shards: SHARDS });
  dispatcher = createDispatcher({
    database: env.database,
    redis: env.redis,
    keys,
    logger: env.logger,
    config: {
      maxAttempts: 2,
      workerTtlSeconds: 1,
      delayedPromoteMaxSleepMs: 5000,
      epochCheckIntervalMs: 100,
      reconcileIntervalMs: 60_000,
      horizonPassIntervalMs: 600_000,
    },
  });
  await dispatcher.start();
});

afterAll(async () => {
  await dispatcher?.stop();
  await env?.close();
});

describe("dispatch shards", () => {
  it("when jobs of automations in two shards are submitted together, then each shard's queue gets one message and each job lands in its tagged ready set", async () => {
    const [first, second] = await automationsInTwoShards();
    const seeded = [...(await seedQueuedJobs(env.database.db, first, 2)), ...(await seedQueuedJobs(env.database.db, second, 3))];
    const queue = new DispatchQueue(env.redis, keys, { lingerMs: 60_000 });
    const adds = queue.queues.map((shardQueue) => vi.spyOn(shardQueue, "add"));

    queue.submit(seeded.map(jobs.toJobRef));
    await queue.close();

    expect(adds.map((add) => add.mock.calls.length)).toEqual(
      Array.from({ length: SHARDS }, (_, shard) => (shard === keys.shardOf(first) || shard === keys.shardOf(second) ? 1 : 0)),
    );
    expect(keys.readyJobs(first)).toBe(`${env.prefix}:{d${keys.shardOf(first)}}:ready:${first}`);
    await eventually(
      "2 jobs in the first ready set",
      () => env.redis.zcard(keys.readyJobs(first)),
      (count) => count === 2,
    );
    await eventually(
      "3 jobs in the second ready set",
      () => env.redis.zcard(keys.readyJobs(second)),
      (count) => count === 3,
    );
  });

  it("when a job is due in a moment, then it waits in its shard's delayed set and the timer moves it to its ready set", async () => {
    const [automationId] = await automationsInTwoShards();
    const [job] = await seedQueuedJobs(env.database.db, automationId, 1);
    const ready = new ReadyJobs(env.redis, keys);

    await ready.offer([{ ...jobs.toJobRef(job!), availableAt: new Date(Date.now() + 400) }]);

    expect(await env.redis.zcard(keys.delayedJobs(keys.shardOf(automationId)))).toBe(1);
    await eventually(
      "the job in its ready set",
      () => env.redis.zcard(keys.readyJobs(automationId)),
      (count) => count === 1,
    );
    expect(await env.redis.zcard(keys.delayedJobs(keys.shardOf(automationId)))).toBe(0);
  });

  it("when one shard loses its data alone, then its epoch key says so and its automations' jobs are offered again", async () => {
    const [automationId] = await automationsInTwoShards();
    await seedQueuedJobs(env.database.db, automationId, 3);
    await dispatcher.reconcileNow();
    await eventually(
      "the 3 jobs offered",
      () => env.redis.zcard(keys.readyJobs(automationId)),
      (count) => count === 3,
    );
    await eventually(
      "every shard's epoch key",
      () => Promise.all(Array.from({ length: SHARDS }, (_, shard) => env.redis.exists(keys.dispatchEpoch(shard)))),
      (present) => present.every((exists) => exists === 1),
    );
    const losses = () =>
      dispatcher.metrics.reconciliations.get().then((metric) => metric.values.find((value) => value.labels.trigger === "redis_lost")?.value ?? 0);
    const before = await losses();

    const shard = keys.shardOf(automationId);
    await env.redis.del(keys.dispatchEpoch(shard), keys.readyJobs(automationId), keys.claimedJobs(automationId), keys.delayedJobs(shard));

    await eventually("the lost shard noticed", losses, (count) => count > before);
    await eventually(
      "the 3 jobs offered again",
      () => env.redis.zcard(keys.readyJobs(automationId)),
      (count) => count === 3,
    );
    expect(await env.redis.exists(keys.dispatchEpoch(shard))).toBe(1);
  });
});
