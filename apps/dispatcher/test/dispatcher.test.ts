import { eq } from "drizzle-orm";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { events, jobs } from "@hub/db";
import { DispatchQueue, ReadyJobs } from "@hub/shared/dispatch";
import { createDispatcher, type Dispatcher } from "../src/dispatcher";
import { insertAutomation, insertQueuedJobs, openTestEnv, type DispatcherTestEnv } from "./fixtures";

let env: DispatcherTestEnv;
let dispatcher: Dispatcher;

async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  env = await openTestEnv();
  dispatcher = createDispatcher({
    database: env.database,
    redis: env.redis,
    keys: env.keys,
    logger: env.logger,
    config: { maxAttempts: 2, workerTtlSeconds: 1, leaseSweepIntervalMs: 100, epochCheckIntervalMs: 200, reconcileIntervalMs: 60_000 },
  });
  await dispatcher.start();
});

afterAll(async () => {
  await dispatcher?.stop();
  await env?.close();
});

describe("dispatcher", () => {
  it("when a job is enqueued in BullMQ, then it lands in its automation's ready set", async () => {
    const { automation } = await insertAutomation(env.database);
    const [job] = await insertQueuedJobs(env.database, automation.id, 1);
    const queue = new DispatchQueue(env.redis, env.keys);
    await queue.enqueue([{ id: job!.id, automationId: automation.id, createdAt: job!.createdAt }]);
    await queue.close();
    const ready = new ReadyJobs(env.redis, env.keys);
    const candidates = await eventually(() => ready.candidates(automation.id, 10), (ids) => ids.length === 1);
    expect(candidates).toEqual([job!.id]);
  });

  it("when jobs of several automations are submitted together, then one BullMQ message carries them and each lands in its automation's ready set", async () => {
    const first = (await insertAutomation(env.database)).automation;
    const second = (await insertAutomation(env.database)).automation;
    const firstJobs = await insertQueuedJobs(env.database, first.id, 3);
    const secondJobs = await insertQueuedJobs(env.database, second.id, 2);
    const queue = new DispatchQueue(env.redis, env.keys, { lingerMs: 60_000 });
    const added = vi.spyOn(queue.queue, "add");

    queue.submit([...firstJobs, ...secondJobs].map((job) => ({ id: job.id, automationId: job.automationId, createdAt: job.createdAt })));
    // Closing sends what is held at once, without waiting for the linger time.
    await queue.close();

    expect(added).toHaveBeenCalledTimes(1);
    const ready = new ReadyJobs(env.redis, env.keys);
    const inOrder = (rows: typeof firstJobs) => [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id)).map((job) => job.id);
    expect(await eventually(() => ready.candidates(first.id, 10), (ids) => ids.length === 3)).toEqual(inOrder(firstJobs));
    expect(await eventually(() => ready.candidates(second.id, 10), (ids) => ids.length === 2)).toEqual(inOrder(secondJobs));
  });

  it("when a one-job message of an older API process is in the queue, then its job is offered too", async () => {
    const { automation } = await insertAutomation(env.database);
    const [job] = await insertQueuedJobs(env.database, automation.id, 1);
    const legacy = new Queue(env.keys.dispatchQueue, { connection: env.redis, prefix: env.keys.bullPrefix });
    await legacy.add("offer", { automationId: automation.id, createdAtMs: job!.createdAt.getTime() }, { jobId: job!.id, removeOnComplete: true });
    await legacy.close();

    const ready = new ReadyJobs(env.redis, env.keys);
    expect(await eventually(() => ready.candidates(automation.id, 10), (ids) => ids.length === 1)).toEqual([job!.id]);
  });

  it("when Redis loses its data, then every queued job is offered again, oldest first", async () => {
    const { automation } = await insertAutomation(env.database);
    const queued = await insertQueuedJobs(env.database, automation.id, 5);
    await eventually(() => env.redis.exists(env.keys.dispatchEpoch), (exists) => exists === 1);
    // Simulate a Redis restart without persistence: everything under the hub's prefix is gone.
    const all = await env.redis.keys(`${env.prefix}:*`);
    await env.redis.del(...all);
    const ready = new ReadyJobs(env.redis, env.keys);
    const candidates = await eventually(() => ready.candidates(automation.id, 10), (ids) => ids.length === 5);
    const expectedOrder = [...queued].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id)).map((j) => j.id);
    expect(candidates).toEqual(expectedOrder);
  });

  it("when a running job's lease lapses, then it is re-queued with job.requeued, then failed after the last attempt", async () => {
    const { automation, worker } = await insertAutomation(env.database);
    const [job] = await insertQueuedJobs(env.database, automation.id, 1);
    const lapse = () =>
      env.database.db
        .update(jobs)
        .set({ status: "running", workerId: worker.id, attempts: 1, leaseExpiresAt: new Date(Date.now() - 1000), startedAt: new Date() })
        .where(eq(jobs.id, job!.id));
    await lapse();
    const requeued = await eventually(async () => (await env.database.db.select().from(jobs).where(eq(jobs.id, job!.id)))[0]!, (row) => row.status === "queued");
    expect(requeued.status).toBe("queued");
    expect(requeued.workerId).toBeNull();

    await env.database.db
      .update(jobs)
      .set({ status: "running", workerId: worker.id, attempts: 2, leaseExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(jobs.id, job!.id));
    const failed = await eventually(async () => (await env.database.db.select().from(jobs).where(eq(jobs.id, job!.id)))[0]!, (row) => row.status === "failed");
    expect(failed.status).toBe("failed");
    const jobEvents = await env.database.db.select().from(events).where(eq(events.aggregateId, job!.id));
    expect(jobEvents.map((event) => event.eventType).sort()).toEqual(["job.failed", "job.requeued"]);
    expect(jobEvents.find((e) => e.eventType === "job.requeued")!.payload).toMatchObject({ reason: "lease_expired", attempts: 1 });
  });

  it("when queued jobs come due at different times, then the reconciler offers due ones, holds back those due within the horizon, and leaves later ones in PostgreSQL", async () => {
    const { automation } = await insertAutomation(env.database);
    const [due, soon, later] = await insertQueuedJobs(env.database, automation.id, 3);
    await env.database.pool.query("update jobs set available_at = now() + interval '30 seconds' where id = $1", [soon!.id]);
    await env.database.pool.query("update jobs set available_at = now() + interval '2 hours' where id = $1", [later!.id]);

    await dispatcher.reconcileNow();

    const ready = new ReadyJobs(env.redis, env.keys);
    expect(await ready.candidates(automation.id, 10)).toEqual([due!.id]);
    const delayed = await env.redis.zrange(env.keys.delayedJobs, 0, -1);
    expect(delayed.filter((member) => member.includes(automation.id))).toEqual([`${automation.id}|${soon!.id}|${soon!.createdAt.getTime()}`]);
  });

  it("when a delayed job comes due, then the dispatcher's timer moves it to its ready set and wakes a claim", async () => {
    const { automation } = await insertAutomation(env.database);
    const [job] = await insertQueuedJobs(env.database, automation.id, 1);
    const ready = new ReadyJobs(env.redis, env.keys);
    const subscriber = env.redis.duplicate();
    const wakes: string[] = [];
    subscriber.on("message", (_channel: string, message: string) => wakes.push(message));
    await subscriber.subscribe(env.keys.wakeChannel);
    try {
      const availableAt = new Date(Date.now() + 700);
      await ready.offerAgain([{ id: job!.id, automationId: automation.id, createdAt: job!.createdAt, availableAt }], "offer");
      expect(await ready.candidates(automation.id, 10)).toEqual([]);

      const offered = await eventually(() => ready.candidates(automation.id, 10), (ids) => ids.length === 1);

      expect(offered).toEqual([job!.id]);
      expect(Date.now()).toBeGreaterThanOrEqual(availableAt.getTime());
      expect(wakes).toContain(automation.id);
    } finally {
      subscriber.disconnect();
    }
  });
});
