/**
 * GET /events/stream hardened (CONTRACT §6.15): a stream ends promptly once its credential would
 * be refused (not at the next heartbeat, here 300 s away), a resume reads a bounded amount of the
 * Redis stream, and a Last-Event-ID that is no stream id is read as absent.
 */
import { SignJWT } from "jose";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { eventually, readMetric } from "@hub/testing";
import { createApiKey } from "./api-key-fixtures";
import { SseClient } from "./event-stream-fixtures";
import { useTestHub } from "./harness";

const hub = useTestHub({ HUB_EVENTS_STREAM_HEARTBEAT_SECONDS: "300" });
const clients: SseClient[] = [];
afterAll(async () => {
  for (const client of clients) client.close();
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await eventually(
    "every stream to be let go",
    () => readMetric(`${hub.api.url}/metrics`, "hub_streams_open"),
    (open) => open === 0,
  );
});

async function follow(token: string, lastEventId?: string): Promise<SseClient> {
  const client = await SseClient.open(hub.api.url, { token, ...(lastEventId === undefined ? {} : { lastEventId }) });
  clients.push(client);
  return client;
}

/** Resolves when the stream ends; fails the test if it is still open after `boundMs` (a bound on a hung test, far above the 1 s the contract allows). */
async function endsWithin(client: SseClient, boundMs = 15_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream was still open after ${boundMs} ms`)), boundMs);
  });
  try {
    await Promise.race([client.closed, hung]);
  } finally {
    clearTimeout(timer);
  }
}

const stream = () => hub.api.ctx.keys.eventsStream;

/** Adds `count` entries of about `bytes` each to the events stream, as the relay would; answers the id before them. */
async function publish(count: number, bytes: number): Promise<string> {
  const redis = hub.api.ctx.redis;
  const before = (await redis.xadd(
    stream(),
    "*",
    "id",
    crypto.randomUUID(),
    "event_type",
    "sector.created",
    "aggregate_id",
    crypto.randomUUID(),
    "data",
    "{}",
  ))!;
  const pipeline = redis.pipeline();
  for (let i = 0; i < count; i++) {
    const aggregateId = crypto.randomUUID();
    const data = JSON.stringify({ id: crypto.randomUUID(), aggregate_id: aggregateId, event_type: "sector.created", payload: { name: "x".repeat(bytes) } });
    pipeline.xadd(stream(), "*", "id", crypto.randomUUID(), "event_type", "sector.created", "aggregate_id", aggregateId, "data", data);
  }
  await pipeline.exec();
  return before;
}

describe("a stream whose credential stops being accepted", () => {
  it("when the following user is deactivated, then the stream ends without waiting for the heartbeat", async () => {
    const user = await hub.createUser("employee");
    const client = await follow(user.token);

    expect((await hub.client.delete(`/identity/users/${user.id}`, { token: hub.adminToken })).status).toBe(204);

    await endsWithin(client);
    expect(client.isEnded).toBe(true);
  });

  it("when the user's password is reset, then the stream of a token from before ends without waiting for the heartbeat", async () => {
    const user = await hub.createUser("employee");
    const client = await follow(user.token);

    expect((await hub.client.put(`/identity/users/${user.id}/password`, { new_password: "a-brand-new-password" }, { token: hub.adminToken })).status).toBe(204);

    await endsWithin(client);
  });

  it("when the user's role changes, then the stream of a token from before ends, while one followed with the user's api key stays open", async () => {
    const user = await hub.createUser("employee");
    const key = await createApiKey(hub, user.token);
    const byToken = await follow(user.token);
    const byKey = await follow(key.key);

    expect((await hub.client.patch(`/identity/users/${user.id}`, { role: "admin" }, { token: hub.adminToken })).status).toBe(200);

    await endsWithin(byToken);
    expect(byKey.isEnded).toBe(false);
    byKey.close();
  });

  it("when the api key a program follows with is deleted, then its stream ends without waiting for the heartbeat", async () => {
    const user = await hub.createUser("employee");
    const key = await createApiKey(hub, user.token);
    const client = await follow(key.key);

    expect((await hub.client.delete(`/identity/api-keys/${key.id}`, { token: user.token })).status).toBe(204);

    await endsWithin(client);
  });

  it("when the login token expires, then the stream ends", async () => {
    const user = await hub.createUser("employee");
    const now = Math.floor(Date.now() / 1000);
    const shortLived = await new SignJWT({ role: "employee" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user.id)
      .setIssuer("automation-hub")
      .setAudience("automation-hub-api")
      .setIssuedAt(now)
      .setExpirationTime(now + 2)
      .sign(new TextEncoder().encode(hub.env.HUB_JWT_SECRET));
    const client = await follow(shortLived);

    await endsWithin(client);
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(now + 2);
  });

  it("when nothing about the credential changes, then the stream stays open", async () => {
    const user = await hub.createUser("employee");
    const client = await follow(user.token);
    const other = await hub.createUser("employee");
    expect((await hub.client.delete(`/identity/users/${other.id}`, { token: hub.adminToken })).status).toBe(204);

    await client.waitFor("the connected comment", (c) => c.comments.includes("connected"));
    await new Promise((resolve) => setTimeout(resolve, 1500));

    expect(client.isEnded).toBe(false);
  });
});

describe("resuming with Last-Event-ID", () => {
  it("when fewer than 1,000 entries but more than 1 MiB followed Last-Event-ID, then the stream sends none of them and a reset", async () => {
    const lastEventId = await publish(300, 5000);

    const client = await follow(hub.adminToken, lastEventId);
    await client.waitFor("a first message", (c) => c.messages.length > 0);

    expect(client.messages[0]).toMatchObject({ event: "reset" });
    expect(JSON.parse(client.messages[0]!.data)).toMatchObject({ reason: "too_many" });
    expect(client.events()).toEqual([]);
  });

  it("when a few small entries followed Last-Event-ID, then they are sent first", async () => {
    const lastEventId = await publish(3, 100);

    const client = await follow(hub.adminToken, lastEventId);
    await client.waitFor("three events", (c) => c.events().length === 3);

    expect(client.messages.every((message) => message.event === "message")).toBe(true);
  });

  it("when Last-Event-ID is malformed or out of Redis's range, then it is read as absent: 200 and live events, never 422 or 500", async () => {
    // The greatest id is in range but has no successor: XRANGE refuses "(" before it ("ERR invalid start ID").
    const greatest = "18446744073709551615-18446744073709551615";
    for (const lastEventId of ["yesterday", "99999999999999999999-0", "1-99999999999999999999", `${"9".repeat(30)}-1`, greatest]) {
      const client = await follow(hub.adminToken, lastEventId);
      await client.waitFor("the connected comment", (c) => c.comments.includes("connected"));
      expect(client.messages.filter((message) => message.event === "reset")).toEqual([]);
      client.close();
    }
  });

  it("when 50 clients of one user reconnect at once with a Last-Event-ID far behind large events, then each resume is bounded, at most 5 stay open, and Redis memory stays near where it was (printed)", async () => {
    const lastEventId = await publish(900, 60_000);
    const memory = async () => Number(/used_memory:(\d+)/.exec(await hub.api.ctx.redis.info("memory"))![1]);
    const before = await memory();
    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await memory());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    const storm = await Promise.all(Array.from({ length: 50 }, () => follow(hub.adminToken, lastEventId)));
    // Each takes the place of the user's oldest stream (CONTRACT §6.15): it gets its reset, or is let go first.
    await Promise.all(storm.map((client) => client.waitFor("a reset", (c) => c.messages.length > 0).catch(() => client.closed)));
    sampling = false;
    await sampler;
    const after = await memory();

    process.stdout.write(
      `reconnect storm (50 × Last-Event-ID behind 900 events of 60 kB, ~51 MiB of stream): ` +
        `Redis used_memory before ${(before / 1024 / 1024).toFixed(1)} MiB, peak ${(peak / 1024 / 1024).toFixed(1)} MiB, after ${(after / 1024 / 1024).toFixed(1)} MiB\n`,
    );
    for (const client of storm) if (client.messages.length > 0) expect(client.messages[0]).toMatchObject({ event: "reset" });
    for (const client of storm) expect(client.events()).toEqual([]);
    await eventually(
      "the displaced streams to end",
      async () => storm.filter((client) => !client.isEnded).length,
      (open) => open <= 5,
    );
    await hub.api.ctx.redis.del(stream());
  });
});

describe("open streams per user", () => {
  const streamUrl = () => `${hub.api.url}/events/stream`;

  it("when a user has 5 streams open, then a 6th is 429 'Too many open streams' with Retry-After, whatever credential it uses; another user still opens one", async () => {
    const user = await hub.createUser("employee");
    const key = await createApiKey(hub, user.token);
    for (let i = 0; i < 4; i++) await follow(user.token);
    await follow(key.key);
    const refusedBefore = await readMetric(`${hub.api.url}/metrics`, "hub_streams_refused_total", { stream: "events" });

    const sixth = await fetch(streamUrl(), { headers: { authorization: `Bearer ${user.token}` } });
    const withKey = await fetch(streamUrl(), { headers: { authorization: `Bearer ${key.key}` } });
    const other = await follow((await hub.createUser("employee")).token);

    expect(sixth.status).toBe(429);
    expect(await sixth.json()).toEqual({ detail: "Too many open streams" });
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(withKey.status).toBe(429);
    expect(other.isEnded).toBe(false);
    expect(await readMetric(`${hub.api.url}/metrics`, "hub_streams_refused_total", { stream: "events" })).toBe(refusedBefore + 2);
  });

  it("when a user at the cap resumes with Last-Event-ID, then the new stream opens and the user's oldest one ends", async () => {
    const user = await hub.createUser("employee");
    const streams: SseClient[] = [];
    for (let i = 0; i < 5; i++) streams.push(await follow(user.token));
    const lastEventId = await publish(1, 10);

    const resumed = await follow(user.token, lastEventId);

    await endsWithin(streams[0]!);
    expect(resumed.isEnded).toBe(false);
    expect(streams.slice(1).every((client) => !client.isEnded)).toBe(true);
  });

  it("when one of the user's streams closes, then its place is free again", async () => {
    const user = await hub.createUser("employee");
    const streams: SseClient[] = [];
    for (let i = 0; i < 5; i++) streams.push(await follow(user.token));

    streams[2]!.close();

    await eventually(
      "a sixth stream to be admitted",
      async () =>
        await fetch(streamUrl(), { headers: { authorization: `Bearer ${user.token}` }, signal: AbortSignal.timeout(2000) }).then((r) => {
          void r.body?.cancel();
          return r.status;
        }),
      (status) => status === 200,
    );
  });

  it("when the streams another API process counted were not renewed for 30 s (the process died), then they no longer count", async () => {
    const user = await hub.createUser("employee");
    const key = hub.api.ctx.keys.openStreams("events", `user:${user.id}`);
    const longAgo = Date.now() - 60_000;
    for (let i = 0; i < 5; i++) await hub.api.ctx.redis.hset(key, `dead-process:${i}`, `${longAgo}:${longAgo + 30_000}`);

    const stream = await follow(user.token);

    expect(stream.isEnded).toBe(false);
  });
});
