import { eq } from "drizzle-orm";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Job, jobs, schema } from "@hub/db";
import { DispatchQueue, ReadyJobs } from "@hub/shared/dispatch";
import { createDispatcher, type Dispatcher } from "../src/dispatcher";
import { eventually, monitorRedis, seedAutomation, seedQueuedJobs } from "@hub/testing";
import { openTestEnvironment, type TestEnvironment } from "@hub/testing/vitest";

let env: TestEnvironment;
let dispatcher: Dispatcher;

/** The ids in an automation's ready set, in its order. */
async function readyIds(ready: ReadyJobs, automationId: string): Promise<string[]> {
  return (await ready.candidates(automationId, 100)).map((job) => job.id);
}

/** The wake-up messages published from now on, as a claim's process receives them. */
async function listenForWakes(): Promise<{ subscriber: ReturnType<TestEnvironment["redis"]["duplicate"]>; wakes: string[] }> {
  const subscriber = env.redis.duplicate();
  const wakes: string[] = [];
  subscriber.on("message", (_channel: string, message: string) => wakes.push(message));
  await subscriber.subscribe(env.keys.wakeChannel);
  return { subscriber, wakes };
}

/** Claim order (CONTRACT §6.8): priority desc, then available_at, then creation (seq). */
function inClaimOrder(rows: Job[]): string[] {
  return [...rows].sort((a, b) => b.priority - a.priority || a.availableAt.getTime() - b.availableAt.getTime() || a.seq - b.seq).map((job) => job.id);
}

beforeAll(async () => {
  env = await openTestEnvironment("dispatcher-test");
  dispatcher = createDispatcher({
    database: env.database,
    redis: env.redis,
    keys: env.keys,
    logger: env.logger,
    config: {
      maxAttempts: 2,
      workerTtlSeconds: 1,
      leaseSweepIntervalMs: 100,
      epochCheckIntervalMs: 200,
      reconcileIntervalMs: 60_000,
      horizonPassIntervalMs: 600_000,
      // The delayed timer only wakes when a job is due or an earlier one arrives: no safety-net look in these tests.
      delayedPromoteMaxSleepMs: 600_000,
    },
  });
  await dispatcher.start();
});

afterAll(async () => {
  await dispatcher?.stop();
  await env?.close();
});

describe("dispatcher", () => {
  it("when a job is enqueued in BullMQ, then it lands in its automation's ready set", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const [job] = await seedQueuedJobs(env.database.db, automation.id, 1);
    const queue = new DispatchQueue(env.redis, env.keys);
    await queue.enqueue([jobs.toJobRef(job!)]);
    await queue.close();
    const ready = new ReadyJobs(env.redis, env.keys);
    const candidates = await eventually(
      "the job in the ready set",
      () => readyIds(ready, automation.id),
      (ids) => ids.length === 1,
    );
    expect(candidates).toEqual([job!.id]);
  });

  it("when jobs of several automations are submitted together, then one BullMQ message carries them and each lands in its automation's ready set", async () => {
    const first = (await seedAutomation(env.database.db)).automation;
    const second = (await seedAutomation(env.database.db)).automation;
    const firstJobs = await seedQueuedJobs(env.database.db, first.id, 3);
    const secondJobs = await seedQueuedJobs(env.database.db, second.id, 2);
    const queue = new DispatchQueue(env.redis, env.keys, { lingerMs: 60_000 });
    const added = vi.spyOn(queue.queues[0]!, "add");

    queue.submit([...firstJobs, ...secondJobs].map(jobs.toJobRef));
    // Closing sends what is held at once, without waiting for the linger time.
    await queue.close();

    expect(added).toHaveBeenCalledTimes(1);
    const ready = new ReadyJobs(env.redis, env.keys);
    expect(
      await eventually(
        "the first automation's 3 jobs in its ready set",
        () => readyIds(ready, first.id),
        (ids) => ids.length === 3,
      ),
    ).toEqual(inClaimOrder(firstJobs));
    expect(
      await eventually(
        "the second automation's 2 jobs in its ready set",
        () => readyIds(ready, second.id),
        (ids) => ids.length === 2,
      ),
    ).toEqual(inClaimOrder(secondJobs));
  });

  it("when messages arrive one at a time, then the dispatcher waits for each with one BZPOPMIN and activates it with one script, and offers every job", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const queued = await seedQueuedJobs(env.database.db, automation.id, 8);
    const queue = new DispatchQueue(env.redis, env.keys);
    const ready = new ReadyJobs(env.redis, env.keys);
    const markerKey = `${env.keys.bullPrefix(0)}:${env.keys.dispatchQueue}:marker`;
    const blockingWaits: string[] = [];
    const monitor = await monitorRedis(env.redisUrl, (args) => {
      if (args[0]?.toLowerCase() === "bzpopmin" && args[1] === markerKey) blockingWaits.push(args[1]);
    });
    try {
      // One job per message, each sent once the one before is offered: the trickle of a hub at low load.
      for (const [index, job] of queued.entries()) {
        await queue.enqueue([jobs.toJobRef(job)]);
        await eventually(
          `job ${index + 1} in the ready set`,
          () => readyIds(ready, automation.id),
          (ids) => ids.length === index + 1,
        );
      }
      // The wait after the last message starts once that message is finished.
      await eventually(
        "the dispatcher waiting again",
        async () => blockingWaits.length,
        (count) => count >= queued.length,
      );
    } finally {
      monitor.close();
      await queue.close();
    }
    // BullMQ's moveToActive puts a wake-up marker back after each job; left there, every message
    // costs a second BZPOPMIN (and an empty moveToActive): 16 waits for 8 messages.
    expect(blockingWaits.length).toBeLessThanOrEqual(queued.length + 1);
    expect(await readyIds(ready, automation.id)).toEqual(inClaimOrder(queued));
  });

  it("when a message arrives while another is being offered, then it is offered at once, not after the dispatcher's blocking read times out", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const queued = await seedQueuedJobs(env.database.db, automation.id, 10);
    const queue = new DispatchQueue(env.redis, env.keys);
    const ready = new ReadyJobs(env.redis, env.keys);
    const slowest: number[] = [];
    try {
      for (let round = 0; round < queued.length / 2; round++) {
        const pair = queued.slice(2 * round, 2 * round + 2);
        const startedAt = Date.now();
        // Two messages at once: the second lands while the first is activated or offered, when the
        // offer clears BullMQ's marker; the message's end must fetch it from the wait list.
        await Promise.all(pair.map((job) => queue.enqueue([jobs.toJobRef(job)])));
        await eventually(
          `round ${round + 1} offered`,
          () => readyIds(ready, automation.id),
          (ids) => ids.length === 2 * round + 2,
        );
        slowest.push(Date.now() - startedAt);
      }
    } finally {
      await queue.close();
    }
    // A job left in BullMQ's wait list with no marker would wait for the blocking read's 5 s timeout.
    expect(Math.max(...slowest)).toBeLessThan(4000);
  });

  it("when a one-job message of an older API process is in the queue, then its job is offered too", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const [job] = await seedQueuedJobs(env.database.db, automation.id, 1);
    const legacy = new Queue(env.keys.dispatchQueue, { connection: env.redis, prefix: env.keys.bullPrefix(0) });
    await legacy.add("offer", { automationId: automation.id, createdAtMs: job!.createdAt.getTime() }, { jobId: job!.id, removeOnComplete: true });
    await legacy.close();

    const ready = new ReadyJobs(env.redis, env.keys);
    expect(
      await eventually(
        "the job in the ready set",
        () => readyIds(ready, automation.id),
        (ids) => ids.length === 1,
      ),
    ).toEqual([job!.id]);
  });

  it("when Redis loses its data, then every queued job is offered again, in claim order", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const queued = await seedQueuedJobs(env.database.db, automation.id, 5);
    await eventually(
      "the dispatch epoch key",
      () => env.redis.exists(env.keys.dispatchEpoch(0)),
      (exists) => exists === 1,
    );
    // Simulate a Redis restart without persistence: everything under the hub's prefix is gone.
    const all = await env.redis.keys(`${env.prefix}:*`);
    await env.redis.del(...all);
    const ready = new ReadyJobs(env.redis, env.keys);
    const candidates = await eventually(
      "the 5 jobs re-offered",
      () => readyIds(ready, automation.id),
      (ids) => ids.length === 5,
    );
    expect(candidates).toEqual(inClaimOrder(queued));
  });

  it("when a running job's lease lapses, then it is re-queued with job.requeued, then failed after the last attempt", async () => {
    const { automation, worker } = await seedAutomation(env.database.db);
    const [job] = await seedQueuedJobs(env.database.db, automation.id, 1);
    const lapse = () =>
      env.database.db
        .update(schema.jobs)
        .set({ status: "running", workerId: worker.id, attempts: 1, leaseExpiresAt: new Date(Date.now() - 1000), startedAt: new Date() })
        .where(eq(schema.jobs.id, job!.id));
    await lapse();
    const requeued = await eventually(
      "the job back in queued",
      async () => (await env.database.db.select().from(schema.jobs).where(eq(schema.jobs.id, job!.id)))[0]!,
      (row) => row.status === "queued",
    );
    expect(requeued.status).toBe("queued");
    expect(requeued.workerId).toBeNull();

    await env.database.db
      .update(schema.jobs)
      .set({ status: "running", workerId: worker.id, attempts: 2, leaseExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(schema.jobs.id, job!.id));
    const failed = await eventually(
      "the job failed",
      async () => (await env.database.db.select().from(schema.jobs).where(eq(schema.jobs.id, job!.id)))[0]!,
      (row) => row.status === "failed",
    );
    expect(failed.status).toBe("failed");
    const jobEvents = await env.database.db.select().from(schema.events).where(eq(schema.events.aggregateId, job!.id));
    expect(jobEvents.map((event) => event.eventType).sort()).toEqual(["job.failed", "job.requeued"]);
    expect(jobEvents.find((e) => e.eventType === "job.requeued")!.payload).toMatchObject({ reason: "lease_expired", attempts: 1 });
  });

  it("when queued jobs come due at different times, then the reconciler offers due ones, holds back those due within the horizon, and leaves later ones in PostgreSQL", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const [due, soon, later] = await seedQueuedJobs(env.database.db, automation.id, 3);
    await env.database.pool.query("update jobs set available_at = now() + interval '30 seconds' where id = $1", [soon!.id]);
    await env.database.pool.query("update jobs set available_at = now() + interval '2 hours' where id = $1", [later!.id]);

    await dispatcher.reconcileNow();

    const ready = new ReadyJobs(env.redis, env.keys);
    expect(await readyIds(ready, automation.id)).toEqual([due!.id]);
    const delayed = await env.redis.zrange(env.keys.delayedJobs(0), 0, -1);
    expect(delayed.filter((member) => member.includes(automation.id))).toEqual([`${automation.id}|${soon!.id}|${soon!.seq}|0`]);
  });

  it("when a job is due later than the delayed set holds, then Redis keeps nothing of it until a horizon pass finds it near", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const [passed, nearing, nextWeek] = await seedQueuedJobs(env.database.db, automation.id, 3);
    await env.database.pool.query("update jobs set available_at = now() + interval '7 days' where automation_id = $1", [automation.id]);
    const ready = new ReadyJobs(env.redis, env.keys);
    const delayedOfAutomation = async () => (await env.redis.zrange(env.keys.delayedJobs(0), 0, -1)).filter((member) => member.includes(automation.id));
    const rowOf = async (id: string) => (await env.database.db.select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;

    await ready.offer([jobs.toJobRef(await rowOf(nextWeek!.id))]);
    expect(await readyIds(ready, automation.id)).toEqual([]);
    expect(await delayedOfAutomation()).toEqual([]);

    // The last pass reached 30 s ahead: the next one reads only what lies beyond that, up to a minute ahead.
    const { rows } = await env.database.pool.query<{ now: Date }>("select now() as now");
    await env.redis.set(env.keys.delayedHorizon, String(rows[0]!.now.getTime() + 30_000));
    await env.database.pool.query("update jobs set available_at = now() + interval '20 seconds' where id = $1", [passed!.id]);
    await env.database.pool.query("update jobs set available_at = now() + interval '45 seconds' where id = $1", [nearing!.id]);

    await dispatcher.horizonPassNow();

    expect(await delayedOfAutomation()).toEqual([`${automation.id}|${nearing!.id}|${nearing!.seq}|0`]);
    expect(await readyIds(ready, automation.id)).toEqual([]);
  });

  it("when a job is queued again, then a claim waiting for an offer and one waiting for room are both woken: an offer and a slot wake-up", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const [job] = await seedQueuedJobs(env.database.db, automation.id, 1);
    const ready = new ReadyJobs(env.redis, env.keys);
    const { subscriber, wakes } = await listenForWakes();
    try {
      await ready.offerAgain([jobs.toJobRef(job!)]);
      expect(await readyIds(ready, automation.id)).toEqual([job!.id]);
      const received = await eventually(
        "two wake-ups",
        async () => wakes,
        (messages) => messages.length >= 2,
      );
      expect([...received].sort()).toEqual([automation.id, `slot:${automation.id}`].sort());
    } finally {
      subscriber.disconnect();
    }
  });

  it("when a delayed job comes due, then the dispatcher's timer moves it to its ready set and wakes a claim", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const [job] = await seedQueuedJobs(env.database.db, automation.id, 1);
    const ready = new ReadyJobs(env.redis, env.keys);
    const { subscriber, wakes } = await listenForWakes();
    try {
      const availableAt = new Date(Date.now() + 700);
      await ready.offerAgain([{ ...jobs.toJobRef(job!), availableAt }], "offer");
      expect(await readyIds(ready, automation.id)).toEqual([]);

      const offered = await eventually(
        "the job in the ready set",
        () => readyIds(ready, automation.id),
        (ids) => ids.length === 1,
      );

      expect(offered).toEqual([job!.id]);
      expect(Date.now()).toBeGreaterThanOrEqual(availableAt.getTime());
      // The wake-up is published by the same script, but reaches this subscriber on its own connection.
      expect(
        await eventually(
          "a wake-up for the automation",
          async () => wakes,
          (messages) => messages.includes(automation.id),
        ),
      ).toContain(automation.id);
    } finally {
      subscriber.disconnect();
    }
  });

  it("when the delayed timer sleeps until a job due later and an earlier job arrives, then the earlier one is moved on time and the later one stays", async () => {
    const { automation } = await seedAutomation(env.database.db);
    const [later, earlier] = await seedQueuedJobs(env.database.db, automation.id, 2);
    const ready = new ReadyJobs(env.redis, env.keys);
    await ready.offerAgain([{ ...jobs.toJobRef(later!), availableAt: new Date(Date.now() + 60_000) }], "offer");
    // The timer has read the later job's time and sleeps until it.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const availableAt = new Date(Date.now() + 500);
    await ready.offerAgain([{ ...jobs.toJobRef(earlier!), availableAt }], "offer");

    expect(
      await eventually(
        "the earlier job in the ready set",
        () => readyIds(ready, automation.id),
        (ids) => ids.length > 0,
        20_000,
      ),
    ).toEqual([earlier!.id]);
    expect(Date.now()).toBeGreaterThanOrEqual(availableAt.getTime());
    const delayed = await env.redis.zrange(env.keys.delayedJobs(0), 0, -1);
    expect(delayed.filter((member) => member.startsWith(automation.id))).toEqual([`${automation.id}|${later!.id}|${later!.seq}|0`]);
  });

  it("when a running worker stays silent past the TTL, then it becomes stopped with one worker.status_changed event, and a fresh one stays running", async () => {
    const { automation, worker: silent } = await seedAutomation(env.database.db);
    const { worker: fresh } = await seedAutomation(env.database.db);
    await env.database.db
      .update(schema.workers)
      .set({ status: "running", lastSeenAt: new Date(Date.now() + 3_600_000) })
      .where(eq(schema.workers.id, fresh.id));
    await env.database.db
      .update(schema.workers)
      .set({ status: "running", lastSeenAt: new Date(Date.now() - 60_000) })
      .where(eq(schema.workers.id, silent.id));

    const statusOf = async (id: string) => (await env.database.db.select().from(schema.workers).where(eq(schema.workers.id, id)))[0]!.status;
    await eventually(
      "the silent worker stopped",
      () => statusOf(silent.id),
      (status) => status === "stopped",
    );

    expect(await statusOf(fresh.id)).toBe("running");
    const changes = await env.database.db.select().from(schema.events).where(eq(schema.events.aggregateId, automation.id));
    expect(changes.filter((event) => event.eventType === "worker.status_changed").map((event) => event.payload)).toEqual([
      { worker_id: silent.id, from: "running", to: "stopped" },
    ]);
  });
});
