/**
 * POST /jobs while Redis is down (CONTRACT §6.1): PostgreSQL's commit is the answer, and the job
 * reaches the dispatch queue once Redis is back. The shared test Redis is used by other tests, so
 * this file runs its own throw-away redis-server on a free port and kills it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "@hub/testing";
import { createAutomationWithWorker, readJob, waitFor } from "./job-fixtures";
import { startTestHub, type TestHub } from "./harness";

let redisServer: PrivateRedis;
let hub: TestHub;

beforeAll(async () => {
  redisServer = await startPrivateRedis();
  hub = await startTestHub({ REDIS_URL: redisServer.url });
});
afterAll(async () => {
  // The hub's clean-up deletes its Redis keys, so Redis must be up (a failed test may have left it down).
  if (hub && redisServer && !redisServer.process.running) await redisServer.process.restart();
  await hub?.stop();
  await redisServer?.stop();
});

it(
  "when Redis is down, then POST /jobs still answers 201 from PostgreSQL, and the job reaches the dispatch queue once Redis is back",
  { timeout: 60_000 },
  async () => {
    const subject = await createAutomationWithWorker(hub);
    await redisServer.process.kill("SIGKILL");
    await waitFor(async () => hub.api.ctx.redis.status !== "ready");

    const created = await hub.client.post("/jobs", { automation_id: subject.automationId }, { token: hub.adminToken });

    expect(created.status).toBe(201);
    expect((await readJob(hub, created.body.id)).status).toBe("queued");
    expect(hub.api.ctx.dispatch.queue.buffered).toBe(1);

    await redisServer.process.restart();
    const carried = async () => {
      const messages = await hub.api.ctx.dispatch.queue.queues[0]!.getJobs(["waiting", "wait"]);
      return messages.some((message) => message.data.jobs.some(([id]) => id === created.body.id));
    };
    await waitFor(carried, { timeoutMs: 30_000 });
    expect(hub.api.ctx.dispatch.queue.buffered).toBe(0);
  },
);
