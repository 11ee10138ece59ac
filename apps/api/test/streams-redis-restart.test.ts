/**
 * CONTRACT §6.21 (§6.15's stream caps): when Redis restarts empty, open streams go on. The slot
 * renewal used to read a slot that Redis no longer held as "displaced by another request" and end
 * the stream, so every Redis restart made the whole fleet reconnect (and cancels committed in that
 * gap reached workers only through a 409). A lost slot is taken again. The shared test Redis is
 * used by other tests, so this file runs its own throw-away redis-server (no persistence: a
 * restart comes back empty) and kills it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "@hub/testing";
import { startApi } from "../src/app";
import { USER_MAX_STREAMS } from "../src/events/event-stream";
import { RENEW_INTERVAL_MS } from "../src/http/stream-slots";
import { SseClient } from "./event-stream-fixtures";
import { startTestHub, type TestHub, type TestUser } from "./harness";
import { createAutomationWithWorker, createJob, sleep, waitFor } from "./job-fixtures";

let redisServer: PrivateRedis;
let hub: TestHub;
let employee: TestUser;
const streams: SseClient[] = [];

beforeAll(async () => {
  redisServer = await startPrivateRedis();
  hub = await startTestHub({ REDIS_URL: redisServer.url });
  employee = await hub.createUser("employee");
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  if (hub && redisServer && !redisServer.process.running) await redisServer.process.restart();
  await hub?.stop();
  await redisServer?.stop();
});

async function open(options: Parameters<typeof SseClient.open>[1]): Promise<SseClient> {
  const stream = await SseClient.open(hub.api.url, options);
  streams.push(stream);
  return stream;
}

it(
  "when Redis restarts empty under open event, job log and signal streams, then none of them ends and each slot is counted again",
  { timeout: 60_000 },
  async () => {
    const subject = await createAutomationWithWorker(hub);
    const jobId = await createJob(hub, subject.automationId);
    const events = await open({ token: employee.token });
    const logs = await open({ token: employee.token, path: `/jobs/${jobId}/logs/stream` });
    const signals = await open({ workerKey: subject.workerKey, path: "/workers/me/signals" });
    const openSlots = () =>
      Promise.all([
        hub.api.ctx.streamSlots.openCount("events", `user:${employee.id}`),
        hub.api.ctx.streamSlots.openCount("job_logs", `user:${employee.id}`),
        hub.api.ctx.streamSlots.openCount("worker_signals", `worker:${subject.workerId}`),
      ]);
    expect(await openSlots()).toEqual([1, 1, 1]);

    await redisServer.process.kill("SIGKILL");
    await waitFor(async () => hub.api.ctx.redis.status !== "ready");
    await redisServer.process.restart();
    await waitFor(async () => hub.api.ctx.redis.status === "ready", { timeoutMs: 30_000 });
    // Two renewals after Redis is back: each finds its slot gone.
    await sleep(2 * RENEW_INTERVAL_MS + 500);

    expect([events.isEnded, logs.isEnded, signals.isEnded]).toEqual([false, false, false]);
    const counted = await hub.api.ctx.redis.keys("*open-streams*");
    expect(counted.length).toBeGreaterThan(0);
    expect(await openSlots()).toEqual([1, 1, 1]);
  },
);

it(
  "when a resume at the cap displaces the oldest stream, held by another API process, then that one still ends at its next renewal and the rest go on",
  { timeout: 60_000 },
  async () => {
    const user = await hub.createUser("employee");
    const other = await startApi(hub.env);
    try {
      const oldest = await SseClient.open(other.url, { token: user.token });
      streams.push(oldest);
      for (let index = 1; index < USER_MAX_STREAMS; index += 1) await open({ token: user.token });

      const resumed = await open({ token: user.token, lastEventId: "0-1" });
      await waitFor(async () => oldest.isEnded, { timeoutMs: RENEW_INTERVAL_MS + 3_000 });

      expect(resumed.isEnded).toBe(false);
      expect(streams.filter((stream) => stream !== oldest && !stream.isEnded).length).toBeGreaterThanOrEqual(USER_MAX_STREAMS);
      expect(await hub.api.ctx.streamSlots.openCount("events", `user:${user.id}`)).toBe(USER_MAX_STREAMS);
    } finally {
      await other.stop();
    }
  },
);
