/**
 * GET /events/stream (server-sent events) against the real API, PostgreSQL, Redis and an event
 * relay: what a client following the hub receives, resumes and is refused.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { createApiKey } from "./api-key-fixtures";
import { createSector } from "./automation-fixtures";
import { SseClient, startRelayFor, type RelayForHub } from "./event-stream-fixtures";
import { startTestHub, useTestHub, type TestUser } from "./harness";
import { eventually, readMetric } from "@hub/testing";

const hub = useTestHub({ HUB_EVENTS_STREAM_HEARTBEAT_SECONDS: "1" });
let relay: RelayForHub;
let employee: TestUser;
const clients: SseClient[] = [];

beforeAll(async () => {
  relay = await startRelayFor(hub);
  employee = await hub.createUser("employee");
});
afterAll(async () => {
  for (const client of clients) client.close();
  await relay?.stop();
});
// A user may have 5 streams open at once (CONTRACT §6.15): each test starts with none open.
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await eventually(
    "every stream to be let go",
    () => readMetric(`${hub.api.url}/metrics`, "hub_streams_open"),
    (open) => open === 0,
  );
});

async function follow(options: { token?: string; query?: string; lastEventId?: string } = {}): Promise<SseClient> {
  const client = await SseClient.open(hub.api.url, { token: options.token ?? hub.adminToken, ...options });
  clients.push(client);
  return client;
}

const uniqueEmail = () => `stream-${randomBytes(5).toString("hex")}@hub.test`;

async function createUser(role: "admin" | "employee" = "employee"): Promise<{ id: string; email: string; password: string }> {
  const email = uniqueEmail();
  const password = `pw-${randomBytes(8).toString("hex")}`;
  const created = await hub.client.post<{ id: string }>("/identity/users", { email, password, role }, { token: hub.adminToken });
  expect(created.status).toBe(201);
  return { id: created.body.id, email, password };
}

/** Resolves once the relay has put an event about `aggregateId` in the stream (so a stream opened next does not see it live). */
async function published(aggregateId: string): Promise<void> {
  await eventually(
    `an event of ${aggregateId} in the stream`,
    () => relay.redis.xrange(hub.api.ctx.keys.eventsStream, "-", "+"),
    (entries) => entries.some(([, fields]) => fields.includes(aggregateId)),
  );
}

async function metricValue(name: string): Promise<number | undefined> {
  const text = (await (await fetch(`${hub.api.url}/metrics`)).text()).split("\n");
  const line = text.find((candidate) => candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(" ").at(-1));
}

describe("GET /events/stream", () => {
  it("when a sector is created while an admin follows, then its sector.created record arrives with the stream entry id as the message id", async () => {
    const client = await follow();

    const sector = await createSector(hub);
    const event = await client.waitForEvent("sector.created", sector.id);

    expect(client.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(client.response.headers.get("cache-control")).toContain("no-cache");
    expect(event).toEqual({
      id: expect.any(String),
      aggregate_id: sector.id,
      event_type: "sector.created",
      actor_id: expect.any(String),
      payload: { name: sector.name, color: sector.color },
      dispatched_at: null,
      created_at: expect.any(String),
    });
    const message = client.messages.find((candidate) => candidate.data.includes(sector.id))!;
    const [entry] = await relay.redis.xrange(hub.api.ctx.keys.eventsStream, message.id!, message.id!);
    expect(entry?.[1]).toContain(event.id);
  });

  it("when a user and then a sector are created, then an employee's stream shows only the sector and an admin's both, as GET /events does", async () => {
    const asEmployee = await follow({ token: employee.token });
    const asAdmin = await follow();

    const user = await createUser();
    const sector = await createSector(hub);
    await asEmployee.waitForEvent("sector.created", sector.id);
    await asAdmin.waitForEvent("sector.created", sector.id);

    expect(asAdmin.events().map((event) => event.aggregate_id)).toContain(user.id);
    expect(asEmployee.events().map((event) => event.aggregate_id)).not.toContain(user.id);
    expect(asEmployee.events().every((event) => !/^(user|webhook|api_key)\./.test(event.event_type))).toBe(true);
  });

  it("when filters are given, then only matching events arrive (aggregate_id, event_type, aggregate_type)", async () => {
    const watched = await createUser();
    await published(watched.id);
    const byAggregate = await follow({ query: `aggregate_id=${watched.id}` });
    const byType = await follow({ query: "event_type=sector.created" });
    const byAggregateType = await follow({ query: "aggregate_type=user" });

    const other = await createUser();
    expect((await hub.client.delete(`/identity/users/${watched.id}`, { token: hub.adminToken })).status).toBe(204);
    const sector = await createSector(hub);
    await byAggregate.waitForEvent("user.deactivated", watched.id);
    await byType.waitForEvent("sector.created", sector.id);
    await byAggregateType.waitForEvent("user.deactivated", watched.id);

    expect(byAggregate.events().map((event) => event.event_type)).toEqual(["user.deactivated"]);
    expect(byType.events().map((event) => event.aggregate_id)).toEqual([sector.id]);
    expect(byAggregateType.events().every((event) => event.event_type.startsWith("user."))).toBe(true);
    expect(
      byAggregateType
        .events()
        .filter((event) => [watched.id, other.id].includes(event.aggregate_id))
        .map((event) => [event.event_type, event.aggregate_id]),
    ).toEqual([
      ["user.created", other.id],
      ["user.deactivated", watched.id],
    ]);
  });

  it("when a client reconnects with Last-Event-ID, then it first gets exactly what it missed, in order, then the live events", async () => {
    const first = await follow({ query: "event_type=sector.created" });
    const before = await createSector(hub);
    await first.waitForEvent("sector.created", before.id);
    const lastId = first.messages.at(-1)!.id!;
    first.close();

    const missed = [await createSector(hub), await createSector(hub)];
    // Both are in the stream before the client comes back.
    await eventually(
      "the missed events published",
      () => relay.redis.xrange(hub.api.ctx.keys.eventsStream, `(${lastId}`, "+"),
      (entries) => missed.every((sector) => entries.some(([, fields]) => fields.includes(sector.id))),
    );
    const resumed = await follow({ query: "event_type=sector.created", lastEventId: lastId });
    const live = await createSector(hub);
    await resumed.waitForEvent("sector.created", live.id);

    expect(resumed.events().map((event) => event.aggregate_id)).toEqual([...missed.map((sector) => sector.id), live.id]);
  });

  it("when what followed Last-Event-ID was trimmed from the stream, then a reset message says to read GET /events, and live events follow", async () => {
    const client = await follow({ query: "event_type=sector.created" });
    const old = await createSector(hub);
    await client.waitForEvent("sector.created", old.id);
    const lastId = client.messages.at(-1)!.id!;
    client.close();
    await createSector(hub);
    await eventually(
      "an event after it",
      () => relay.redis.xrange(hub.api.ctx.keys.eventsStream, `(${lastId}`, "+"),
      (entries) => entries.length > 0,
    );
    // What MAXLEN trimming does to a long-running hub's stream, at once.
    await relay.redis.xtrim(hub.api.ctx.keys.eventsStream, "MAXLEN", 0);

    const resumed = await follow({ query: "event_type=sector.created", lastEventId: lastId });
    const live = await createSector(hub);
    await resumed.waitForEvent("sector.created", live.id);

    expect(resumed.messages[0]).toMatchObject({ event: "reset" });
    expect(JSON.parse(resumed.messages[0]!.data)).toMatchObject({ reason: "trimmed", detail: expect.stringContaining("GET /events") });
    expect(resumed.events().map((event) => event.aggregate_id)).toEqual([live.id]);
  });

  it("when five clients follow, then the gauge counts five, they share one Redis reader, each receives the event, and the gauge drops when they leave", async () => {
    const followers = await Promise.all(Array.from({ length: 5 }, () => follow({ query: "event_type=sector.created" })));
    const openBefore = await metricValue("hub_event_stream_clients");

    const sector = await createSector(hub);
    await Promise.all(followers.map((client) => client.waitForEvent("sector.created", sector.id)));
    const readers = ((await relay.redis.client("LIST")) as string)
      .split("\n")
      .filter((line) => line.includes(` name=hub-api-events-${hub.env.HUB_REDIS_PREFIX} `));
    for (const client of followers) client.close();

    expect(openBefore).toBeGreaterThanOrEqual(5);
    expect(readers).toHaveLength(1);
    await eventually(
      "the gauge to drop",
      () => metricValue("hub_event_stream_clients"),
      (open) => open === openBefore! - 5,
    );
  });

  it("when idle, then a heartbeat comment arrives", async () => {
    const client = await follow({ query: `aggregate_id=${crypto.randomUUID()}` });

    await client.waitFor("a heartbeat", () => client.comments.includes("heartbeat"));

    expect(client.isEnded).toBe(false);
  });

  it("when the following user is deactivated, then the stream ends at the next heartbeat", async () => {
    const user = await createUser();
    const token = await hub.client.login(user.email, user.password);
    const client = await follow({ token });

    expect((await hub.client.delete(`/identity/users/${user.id}`, { token: hub.adminToken })).status).toBe(204);

    await client.closed;
    expect(client.isEnded).toBe(true);
    // A stream's life is no request duration: the latency histogram leaves it out.
    const metrics = await (await fetch(`${hub.api.url}/metrics`)).text();
    expect(metrics).not.toMatch(/hub_http_request_duration_seconds_count\{[^}]*route="\/events\/stream"[^}]*status="200"/);
  });

  it("when a program follows with an employee's api key, then it sees what the employee sees, and once the key is deleted its stream ends", async () => {
    const key = await createApiKey(hub, employee.token);
    const client = await follow({ token: key.key });

    const user = await createUser();
    const sector = await createSector(hub);
    await client.waitForEvent("sector.created", sector.id);
    expect(client.events().map((event) => event.aggregate_id)).not.toContain(user.id);
    expect((await hub.client.delete(`/identity/api-keys/${key.id}`, { token: employee.token })).status).toBe(204);

    await client.closed;
    expect(client.isEnded).toBe(true);
  });

  it("when the request is wrong, then 401 without credentials, 422 for an unknown aggregate_type (a malformed Last-Event-ID is read as absent: test/stream-hardening.test.ts)", async () => {
    const url = `${hub.api.url}/events/stream`;
    const bearer = { authorization: `Bearer ${hub.adminToken}` };

    const anonymous = await fetch(url);
    const badType = await fetch(`${url}?aggregate_type=planet`, { headers: bearer });

    expect(anonymous.status).toBe(401);
    expect(badType.status).toBe(422);
    expect(((await badType.json()) as any).detail[0].loc).toEqual(["query", "aggregate_type"]);
  });
});

describe("shutting the API down while clients follow", () => {
  it("when the API stops, then open streams end and stop() completes", async () => {
    const other = await startTestHub();
    const client = await SseClient.open(other.api.url, { token: other.adminToken });

    await other.stop();
    await client.closed;

    expect(client.isEnded).toBe(true);
  });
});
