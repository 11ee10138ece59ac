/**
 * POST /jobs while Redis is down (CONTRACT §6.1): PostgreSQL's commit is the answer, and the job
 * reaches the dispatch queue once Redis is back. The shared test Redis is used by other tests, so
 * this file runs its own throw-away redis-server on a free port and kills it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAutomationWithWorker, readJob, waitFor } from "./job-fixtures";
import { startTestHub, type TestHub } from "./harness";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** redis-server without persistence on `port`; resolves once it accepts connections. */
async function startRedisServer(port: number): Promise<ChildProcess> {
  const server = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(async () => output.includes("Ready to accept connections"), { timeoutMs: 10_000 });
  return server;
}

async function killRedisServer(server: ChildProcess | undefined): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  server.kill("SIGKILL");
  await once(server, "exit");
}

let port: number;
let redisServer: ChildProcess | undefined;
let hub: TestHub;

beforeAll(async () => {
  port = await freePort();
  redisServer = await startRedisServer(port);
  hub = await startTestHub({ REDIS_URL: `redis://127.0.0.1:${port}` });
});
afterAll(async () => {
  if (redisServer?.exitCode === null) await hub?.stop();
  await killRedisServer(redisServer);
});

it("when Redis is down, then POST /jobs still answers 201 from PostgreSQL, and the job reaches the dispatch queue once Redis is back", { timeout: 60_000 }, async () => {
  const subject = await createAutomationWithWorker(hub);
  await killRedisServer(redisServer);
  await waitFor(async () => hub.api.ctx.redis.status !== "ready");

  const created = await hub.client.post("/jobs", { automation_id: subject.automationId }, { token: hub.adminToken });

  expect(created.status).toBe(201);
  expect((await readJob(hub, created.body.id)).status).toBe("queued");
  expect(hub.api.ctx.dispatch.queue.buffered).toBe(1);

  redisServer = await startRedisServer(port);
  const carried = async () => {
    const messages = await hub.api.ctx.dispatch.queue.queue.getJobs(["waiting", "wait"]);
    return messages.some((message) => message.data.jobs.some(([id]) => id === created.body.id));
  };
  await waitFor(carried, { timeoutMs: 30_000 });
  expect(hub.api.ctx.dispatch.queue.buffered).toBe(0);
});
