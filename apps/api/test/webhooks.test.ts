/** Webhook subscriptions and their delivery log over HTTP (CONTRACT §6.7). Delivery itself: apps/event-relay/test/webhooks*.test.ts. */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, schema } from "@hub/db";
import type { ResolvedAddress } from "@hub/shared/webhooks";
import { startTestHub, type TestHub, type TestUser } from "./harness";
import { expectNoSecrets } from "./secrets";

const ENCRYPTION_KEY = Buffer.alloc(32, 5).toString("base64");

/** Names that resolve, for these tests, to hostile or harmless addresses (no real DNS is asked). */
const TEST_DNS: Record<string, string[]> = {
  "hooks.example.com": ["93.184.216.34"],
  "internal.example.com": ["10.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  "loopback.example.com": ["127.0.0.1"],
  "mixed.example.com": ["93.184.216.34", "192.168.0.10"],
};
const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
  const addresses = TEST_DNS[hostname];
  if (!addresses) throw new Error(`ENOTFOUND ${hostname}`);
  return addresses.map((address) => ({ address, family: 4 as const }));
};

let hub: TestHub;
let employee: TestUser;
const logLines: string[] = [];
beforeAll(async () => {
  const logger = pino({ level: "info" }, { write: (line: string) => void logLines.push(line) });
  hub = await startTestHub({ HUB_WEBHOOK_ENCRYPTION_KEY: ENCRYPTION_KEY }, { webhookResolver: resolver, logger });
  employee = await hub.createUser("employee");
});
afterAll(async () => {
  await hub?.stop();
});

const admin = () => ({ token: hub.adminToken });

async function createWebhook(body: Record<string, unknown> = {}) {
  const created = await hub.client.post<{ id: string; secret: string }>(
    "/webhooks",
    { url: "https://hooks.example.com/in", event_types: ["job.completed", "job.failed"], ...body },
    admin(),
  );
  expect(created.status).toBe(201);
  return created.body;
}

const webhookCount = async () => (await hub.api.ctx.database.db.select({ id: schema.webhooks.id }).from(schema.webhooks)).length;

describe("POST /webhooks", () => {
  it("when format slack is asked for, then the record says slack, and any other format is a 422 enum at ['body','format']", async () => {
    const created = await createWebhook({ format: "slack", event_types: ["alert.firing", "alert.resolved"] });

    expect((await hub.client.get(`/webhooks/${created.id}`, admin())).body).toMatchObject({ format: "slack", event_types: ["alert.firing", "alert.resolved"] });
    const refused = await hub.client.post("/webhooks", { url: "https://hooks.example.com/in", event_types: ["*"], format: "teams" }, admin());
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ["body", "format"], type: "enum" })]);
  });

  it("when an admin subscribes, then 201 {id, secret} once; the record, lists and events never show the secret; webhook.created is recorded", async () => {
    const created = await createWebhook({ description: "CRM sync" });

    expect(created).toEqual({ id: expect.any(String), secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(Buffer.from(created.secret.slice(6), "base64")).toHaveLength(32);
    const read = await hub.client.get(`/webhooks/${created.id}`, admin());
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      id: created.id,
      url: "https://hooks.example.com/in",
      event_types: ["job.completed", "job.failed"],
      description: "CRM sync",
      format: "standard",
      status: "active",
      created_at: expect.any(String),
      disabled_at: null,
      failing_since: null,
      previous_secret_expires_at: null,
    });
    const list = await hub.client.get("/webhooks?limit=1000", admin());
    expect(list.body).toContainEqual(read.body);
    const recorded = await hub.client.get(`/events?aggregate_id=${created.id}`, admin());
    expect(recorded.body).toEqual([
      expect.objectContaining({
        event_type: "webhook.created",
        payload: { url: "https://hooks.example.com/in", event_types: ["job.completed", "job.failed"] },
      }),
    ]);
    const [row] = await hub.api.ctx.database.db.select().from(schema.webhooks).where(eq(schema.webhooks.id, created.id));
    const secretBody = created.secret.slice(6);
    for (const shown of [read.body, list.body, recorded.body, row]) expectNoSecrets(shown, [secretBody]);
    expectNoSecrets(logLines.join("\n"), [secretBody]);
  });

  it('when every type is wanted, then ["*"] is accepted; duplicates collapse', async () => {
    const all = await createWebhook({ event_types: ["*"] });
    const twice = await createWebhook({ event_types: ["job.created", "job.created"] });

    expect((await hub.client.get(`/webhooks/${all.id}`, admin())).body.event_types).toEqual(["*"]);
    expect((await hub.client.get(`/webhooks/${twice.id}`, admin())).body.event_types).toEqual(["job.created"]);
  });

  it("when the body is wrong in several ways, then 422 lists every problem and nothing is created", async () => {
    const before = await webhookCount();

    const missing = await hub.client.post("/webhooks", {}, admin());
    const wrong = await hub.client.post("/webhooks", { url: 42, event_types: ["job.finished"], description: "x".repeat(1001) }, admin());
    const empty = await hub.client.post("/webhooks", { url: "https://hooks.example.com/", event_types: [] }, admin());
    const starPlus = await hub.client.post("/webhooks", { url: "https://hooks.example.com/", event_types: ["*", "job.created"] }, admin());

    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ["body", "url"], msg: "Field required", type: "missing" },
      { loc: ["body", "event_types"], msg: "Field required", type: "missing" },
    ]);
    expect(wrong.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type])).toEqual([
      [["body", "url"], "string_type"],
      [["body", "event_types", 0], "enum"],
      [["body", "description"], "string_too_long"],
    ]);
    expect(empty.body.detail).toEqual([{ loc: ["body", "event_types"], msg: "List should have at least 1 item after validation", type: "too_short" }]);
    expect(starPlus.body.detail).toEqual([{ loc: ["body", "event_types"], msg: 'Value error, "*" (every event type) stands alone', type: "value_error" }]);
    expect(await webhookCount()).toBe(before);
  });

  it.each([
    [
      "http://hooks.example.com/in",
      "Value error, the URL must be https:// (for a local webhook, HUB_WEBHOOKS_ALLOW_INSECURE=true allows http:// and HUB_WEBHOOKS_ALLOW_PRIVATE=true allows loopback and private addresses)",
    ],
    ["https://user:password@hooks.example.com/in", "Value error, the URL must not contain a user name or password"],
    ["hooks.example.com/in", "Value error, not an absolute URL"],
    [
      "https://127.0.0.1/in",
      "Value error, 127.0.0.1 is a loopback address, which webhooks may not target (for a local webhook, HUB_WEBHOOKS_ALLOW_PRIVATE=true allows it)",
    ],
    [
      "https://10.0.0.1/in",
      "Value error, 10.0.0.1 is a private address, which webhooks may not target (for a local webhook, HUB_WEBHOOKS_ALLOW_PRIVATE=true allows it)",
    ],
    ["https://169.254.169.254/latest/meta-data", "Value error, 169.254.169.254 is a metadata address, which webhooks may not target"],
    [
      "https://[::1]:8443/in",
      "Value error, ::1 is a loopback address, which webhooks may not target (for a local webhook, HUB_WEBHOOKS_ALLOW_PRIVATE=true allows it)",
    ],
    [
      "https://internal.example.com/in",
      "Value error, the host internal.example.com resolves to 10.0.0.1, a private address, which webhooks may not target (for a local webhook, HUB_WEBHOOKS_ALLOW_PRIVATE=true allows it)",
    ],
    [
      "https://metadata.example.com/in",
      "Value error, the host metadata.example.com resolves to 169.254.169.254, a metadata address, which webhooks may not target",
    ],
    [
      "https://loopback.example.com/in",
      "Value error, the host loopback.example.com resolves to 127.0.0.1, a loopback address, which webhooks may not target (for a local webhook, HUB_WEBHOOKS_ALLOW_PRIVATE=true allows it)",
    ],
    [
      "https://mixed.example.com/in",
      "Value error, the host mixed.example.com resolves to 192.168.0.10, a private address, which webhooks may not target (for a local webhook, HUB_WEBHOOKS_ALLOW_PRIVATE=true allows it)",
    ],
    ["https://nowhere.example.com/in", "Value error, the host nowhere.example.com does not resolve"],
    ["https://[::ffff:0:169.254.169.254]/latest/meta-data", "Value error, ::ffff:0:a9fe:a9fe is a metadata address, which webhooks may not target"],
    ["https://[::1:7f00:1]/in", "Value error, ::1:7f00:1 is a reserved address, which webhooks may not target"],
    ["https://[4000::1]/in", "Value error, 4000::1 is a reserved address, which webhooks may not target"],
    ["https://[100:0:0:1::1]/in", "Value error, 100:0:0:1::1 is a reserved address, which webhooks may not target"],
  ])("when the url is %s, then 422 on [body, url] and nothing is created", async (url, msg) => {
    const before = await webhookCount();

    const refused = await hub.client.post("/webhooks", { url, event_types: ["*"] }, admin());

    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([{ loc: ["body", "url"], msg, type: "value_error" }]);
    expect(await webhookCount()).toBe(before);
  });
});

describe("webhooks are for admins", () => {
  it("when an employee calls any webhook endpoint, then 403 and nothing changes; GET /events hides webhook.* from them", async () => {
    const created = await createWebhook();
    const as = { token: employee.token };
    const before = await webhookCount();

    const answers = await Promise.all([
      hub.client.post("/webhooks", { url: "https://hooks.example.com/", event_types: ["*"] }, as),
      hub.client.get("/webhooks", as),
      hub.client.get(`/webhooks/${created.id}`, as),
      hub.client.delete(`/webhooks/${created.id}`, as),
      hub.client.post(`/webhooks/${created.id}/secret`, undefined, as),
      hub.client.get(`/webhooks/${created.id}/deliveries`, as),
      hub.client.post(`/webhooks/${created.id}/deliveries/${randomUUID()}/redeliver`, undefined, as),
    ]);

    expect(answers.map((a) => a.status)).toEqual([403, 403, 403, 403, 403, 403, 403]);
    expect(await webhookCount()).toBe(before);
    expect((await hub.client.get(`/webhooks/${created.id}`, admin())).body.status).toBe("active");
    expect((await hub.client.get(`/events?aggregate_id=${created.id}`, as)).body).toEqual([]);
  });
});

describe("DELETE /webhooks/{id}", () => {
  it("when a subscription is deleted, then 204, it is gone from reads, its pending deliveries fail, and webhook.deleted is recorded; again → 404", async () => {
    await dispatchPendingEvents(); // earlier tests' events: a new subscription gets what is stamped after it exists
    const created = await createWebhook({ event_types: ["*"] });
    await dispatchPendingEvents();

    const deleted = await hub.client.delete(`/webhooks/${created.id}`, admin());

    expect(deleted.status).toBe(204);
    expect((await hub.client.get(`/webhooks/${created.id}`, admin())).status).toBe(404);
    expect((await hub.client.get("/webhooks?limit=1000", admin())).body.map((w: { id: string }) => w.id)).not.toContain(created.id);
    expect((await hub.client.get(`/webhooks/${created.id}/deliveries`, admin())).status).toBe(404);
    const pending = await hub.api.ctx.database.db.select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.webhookId, created.id));
    expect(pending.map((d) => [d.status, d.lastError])).toEqual([["failed", "the webhook was deleted"]]);
    const recorded = await hub.client.get(`/events?aggregate_id=${created.id}&event_type=webhook.deleted`, admin());
    expect(recorded.body).toEqual([expect.objectContaining({ payload: { url: "https://hooks.example.com/in", event_types: ["*"] } })]);
    expect((await hub.client.delete(`/webhooks/${created.id}`, admin())).status).toBe(404);
    expect((await hub.client.delete(`/webhooks/${randomUUID()}`, admin())).status).toBe(404);
  });
});

describe("POST /webhooks/{id}/secret", () => {
  it("when the secret is rotated, then 200 with a new secret, shown once, and the record says until when the old one still signs", async () => {
    const created = await createWebhook();

    const rotated = await hub.client.post(`/webhooks/${created.id}/secret`, undefined, admin());

    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ id: created.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.secret).not.toBe(created.secret);
    const read = await hub.client.get(`/webhooks/${created.id}`, admin());
    const overlapHours = (Date.parse(read.body.previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(overlapHours).toBeGreaterThan(23.9);
    expect(overlapHours).toBeLessThanOrEqual(24);
    expectNoSecrets(read.body, [created.secret.slice(6), rotated.body.secret.slice(6)]);
    expect((await hub.client.post(`/webhooks/${randomUUID()}/secret`, undefined, admin())).status).toBe(404);
  });
});

/** Stamps every undispatched event as the relay does, which queues the subscriptions' deliveries (no relay runs here). */
async function dispatchPendingEvents(): Promise<void> {
  const undispatched = await hub.api.ctx.database.db
    .select({ id: schema.events.id })
    .from(schema.events)
    .where(sql`${schema.events.dispatchedAt} is null`);
  await events.markDispatched(
    hub.api.ctx.database.pool,
    undispatched.map((e) => e.id),
  );
}

describe("GET /webhooks/{id}/deliveries and redelivery", () => {
  it("when a subscription has deliveries, then they are listed newest first, paginated, and a failed one can be redelivered (202)", async () => {
    await dispatchPendingEvents(); // earlier tests' events: a new subscription gets what is stamped after it exists
    const created = await createWebhook({ event_types: ["*"] });
    for (let i = 0; i < 3; i++) await hub.client.post("/sectors", { name: `Webhook sector ${randomUUID()}`, color: "#123456" }, admin());
    await dispatchPendingEvents();

    const first = await hub.client.get(`/webhooks/${created.id}/deliveries?limit=2`, admin());
    const link = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    const second = await hub.client.get(link!, admin());

    expect(first.status).toBe(200);
    const all = [...first.body, ...second.body];
    expect(all).toHaveLength(4); // its own webhook.created and three sector.created
    expect(second.headers.get("link")).toBeNull();
    expect(all.map((d: { event_type: string }) => d.event_type).sort()).toEqual(["sector.created", "sector.created", "sector.created", "webhook.created"]);
    expect(all[0]).toEqual({
      id: expect.any(String),
      event_id: expect.any(String),
      event_type: expect.stringMatching(/^(sector|webhook)\.created$/),
      status: "pending",
      attempts: 0,
      last_status_code: null,
      last_error: null,
      next_attempt_at: expect.any(String),
      delivered_at: null,
      created_at: expect.any(String),
    });
    // Newest first by (created_at, id): deliveries queued by one stamp share created_at, the id orders them.
    const positions = all.map((d: { created_at: string; id: string }) => `${d.created_at} ${d.id}`);
    expect([...positions].sort().reverse()).toEqual(positions);

    // A failed delivery (as the relay leaves it) is due again after a redelivery.
    const target = all[1] as { id: string };
    await hub.api.ctx.database.db
      .update(schema.webhookDeliveries)
      .set({ status: "failed", attempts: 7, scheduleStep: 7, nextAttemptAt: null, lastStatusCode: 500, lastError: "HTTP 500" })
      .where(eq(schema.webhookDeliveries.id, target.id));
    const redelivered = await hub.client.post(`/webhooks/${created.id}/deliveries/${target.id}/redeliver`, undefined, admin());

    expect(redelivered.status).toBe(202);
    const after = (await hub.client.get(`/webhooks/${created.id}/deliveries?limit=10`, admin())).body.find((d: { id: string }) => d.id === target.id);
    expect(after).toMatchObject({ status: "pending", attempts: 7, last_status_code: 500, next_attempt_at: expect.any(String) });
    const [row] = await hub.api.ctx.database.db.select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.id, target.id));
    expect(row!.scheduleStep).toBe(0);
  });

  it("when the delivery, the subscription or the ids are unknown, or the subscription is disabled, then 404, 404, 422, 409", async () => {
    const created = await createWebhook({ event_types: ["*"] });
    await dispatchPendingEvents();
    const [delivery] = await hub.api.ctx.database.db.select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.webhookId, created.id));

    const unknownDelivery = await hub.client.post(`/webhooks/${created.id}/deliveries/${randomUUID()}/redeliver`, undefined, admin());
    const unknownWebhook = await hub.client.post(`/webhooks/${randomUUID()}/deliveries/${delivery!.id}/redeliver`, undefined, admin());
    const notUuids = await hub.client.post("/webhooks/x/deliveries/y/redeliver", undefined, admin());
    await hub.api.ctx.database.db.update(schema.webhooks).set({ disabledAt: new Date() }).where(eq(schema.webhooks.id, created.id));
    const disabled = await hub.client.post(`/webhooks/${created.id}/deliveries/${delivery!.id}/redeliver`, undefined, admin());

    expect(unknownDelivery.status).toBe(404);
    expect(unknownWebhook.status).toBe(404);
    expect(notUuids.status).toBe(422);
    expect(notUuids.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ["path", "webhook_id"],
      ["path", "delivery_id"],
    ]);
    expect(disabled.status).toBe(409);
    expect((await hub.client.get(`/webhooks/${created.id}`, admin())).body).toMatchObject({ status: "disabled", disabled_at: expect.any(String) });
  });
});

describe("without HUB_WEBHOOK_ENCRYPTION_KEY", () => {
  it("when an admin subscribes, then 503 says the key is missing and nothing is created", async () => {
    const bare = await startTestHub({}, { webhookResolver: resolver });
    try {
      const refused = await bare.client.post("/webhooks", { url: "https://hooks.example.com/", event_types: ["*"] }, { token: bare.adminToken });

      expect(refused.status).toBe(503);
      expect(refused.body.detail).toContain("HUB_WEBHOOK_ENCRYPTION_KEY");
      expect((await bare.client.get("/webhooks", { token: bare.adminToken })).body).toEqual([]);
    } finally {
      await bare.stop();
    }
  });
});
