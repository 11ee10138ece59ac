/** Webhook deliveries by the relay to local receivers: signatures, retries, isolation, limits, rotation, redelivery. */
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { events, schema, webhookDeliveries } from "@hub/db";
import { generateWebhookSecret } from "@hub/shared/webhooks";
import { capturingLogger, createJobs, outboxCounts, waitFor } from "./harness";
import { createWebhookTestbed, deliveriesOf, subscribe, testSecretBox, writeJobEvents, type WebhookTestbed } from "./webhook-harness";

describe("webhook delivery", { timeout: 60_000 }, () => {
  let bed: WebhookTestbed;

  beforeEach(async () => {
    bed = await createWebhookTestbed();
  });

  afterEach(async () => {
    await bed.stop();
  });

  it("when events of several types are written, then each subscription receives exactly its types, as the GET /events record, signed per Standard Webhooks", async () => {
    // Arrange
    const some = await bed.startReceiver();
    const every = await bed.startReceiver();
    const subscribedToSome = await subscribe(bed.pool, { url: some.url, eventTypes: ["job.created", "job.completed"] });
    const subscribedToAll = await subscribe(bed.pool, { url: every.url, eventTypes: ["*"] });
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks();

    // Act
    await writeJobEvents(bed.pool, jobId!, ["job.created", "job.started", "job.completed"]);
    await waitFor("both receivers have their events", () => some.requests.length >= 2 && every.requests.length >= 5);

    // Assert: the job's events in order; the "*" subscription also got both webhook.created events
    // (the relay stamped them once both subscriptions existed), the other one none.
    expect(some.requests.map((r) => r.event.event_type)).toEqual(["job.created", "job.completed"]);
    const jobEventsOfEvery = every.requests.filter((r) => r.event.aggregate_id === jobId);
    expect(jobEventsOfEvery.map((r) => r.event.event_type)).toEqual(["job.created", "job.started", "job.completed"]);
    const others = every.requests.filter((r) => r.event.aggregate_id !== jobId).map((r) => `${r.event.event_type} ${r.event.aggregate_id}`);
    expect(others.sort()).toEqual([`webhook.created ${subscribedToSome.id}`, `webhook.created ${subscribedToAll.id}`].sort());
    const recorded = await events.list(bed.pool, { limit: 100 });
    for (const [receiver, subscription] of [
      [some, subscribedToSome],
      [every, subscribedToAll],
    ] as const) {
      for (const request of receiver.requests) {
        const verified = new Webhook(subscription.secret).verify(request.body, request.headers as Record<string, string>);
        const event = recorded.find((e) => e.id === request.event.id)!;
        expect(verified).toEqual(events.toEventRecordJson(event));
        expect(request.headers["webhook-id"]).toBe(event.id);
        expect(Number(request.headers["webhook-timestamp"])).toBeCloseTo(Date.now() / 1000, -2);
        expect(request.headers["content-type"]).toBe("application/json");
        expect(() => new Webhook(generateWebhookSecret()).verify(request.body, request.headers as Record<string, string>)).toThrow();
      }
    }
    await waitFor("every delivery is recorded delivered", async () =>
      (await deliveriesOf(bed.db, subscribedToAll.id)).every((d) => d.status === "delivered" && d.attempts === 1 && d.lastStatusCode === 204),
    );
  });

  it("when a receiver answers 500 and then 200, then it gets the event twice and the log says delivered after 2 attempts", async () => {
    // Arrange
    const receiver = await bed.startReceiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.completed"] });
    const [jobId] = await createJobs(bed.db, 1);
    // 5 s × 0.001: the retry comes after about 5 ms.
    await bed.startRelayWithWebhooks({ config: { timeScale: 0.001 } });

    // Act
    await writeJobEvents(bed.pool, jobId!, ["job.completed"]);
    await waitFor("the delivery is delivered", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "delivered");

    // Assert
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[0]!.body).toBe(receiver.requests[1]!.body);
    expect(receiver.requests[1]!.headers["webhook-id"]).toBe(receiver.requests[0]!.headers["webhook-id"]);
    const [delivery] = await deliveriesOf(bed.db, subscription.id);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(delivery!.deliveredAt).toBeInstanceOf(Date);
  });

  it("when one endpoint hangs, then another subscription's deliveries, the stream and the stamps all go on meanwhile", async () => {
    // Arrange: the hanging endpoint is answered by nobody until the test ends (timeout 10 s, as in
    // production: far longer than the rest of the test takes even on a loaded machine).
    const hanging = await bed.startReceiver(() => "hang");
    const healthy = await bed.startReceiver();
    await subscribe(bed.pool, { url: hanging.url, eventTypes: ["*"] });
    await subscribe(bed.pool, { url: healthy.url, eventTypes: ["*"] });
    const jobIds = await createJobs(bed.db, 40);
    await bed.startRelayWithWebhooks({ config: { requestTimeoutMs: 10_000, leaseMs: 30_000, maxInFlightPerWebhook: 4 } });
    await waitFor("the hanging endpoint holds its first requests", () => hanging.requests.length >= 2);

    // Act: 40 more aggregates' events while the hanging endpoint holds its slots.
    for (const jobId of jobIds) await writeJobEvents(bed.pool, jobId, ["job.created"]);
    await waitFor("the healthy endpoint has every job's event", () => healthy.requests.filter((r) => r.event.event_type === "job.created").length === 40);

    // Assert: all of that happened while the hanging endpoint had not answered a single request.
    expect(hanging.cutOff).toBe(0);
    expect(hanging.requests.length).toBeLessThanOrEqual(4);
    expect((await outboxCounts(bed.db)).undispatched).toBe(0);
    expect(await bed.redis.xlen(bed.keys.eventsStream)).toBeGreaterThanOrEqual(42);
  });

  it("when an endpoint redirects, then the redirect is not followed and the attempt counts as failed", async () => {
    // Arrange
    const target = await bed.startReceiver();
    const redirecting = await bed.startReceiver(() => ({ status: 307, headers: { location: target.url } }));
    const subscription = await subscribe(bed.pool, { url: redirecting.url, eventTypes: ["job.created"] });
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks();

    // Act
    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    await waitFor("the attempt is recorded", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.attempts === 1);

    // Assert
    const [delivery] = await deliveriesOf(bed.db, subscription.id);
    expect(delivery).toMatchObject({ status: "pending", lastStatusCode: 307, lastError: "HTTP 307: redirects are not followed" });
    expect(delivery!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 3000);
    expect(target.requests).toHaveLength(0);
  });

  it("when an endpoint answers 200 with an endless body, then the relay reads at most its cap, closes the connection and records the delivery", async () => {
    // Arrange: 64 MiB offered; the relay reads at most 64 KiB.
    const receiver = await bed.startReceiver(() => ({ status: 200, body: { streamBytes: 64 * 1024 * 1024 } }));
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.created"] });
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks({ config: { maxResponseBytes: 64 * 1024 } });

    // Act
    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    await waitFor("the delivery is delivered", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "delivered");
    await waitFor("the relay closed the answer", () => receiver.cutOff === 1);

    // Assert
    expect(receiver.streamedBytes).toBeLessThan(16 * 1024 * 1024);
  });

  it("when the secret was rotated, then deliveries carry both signatures until the overlap ends, then only the new one", async () => {
    // Arrange: a rotation as POST /webhooks/{id}/secret makes it.
    const receiver = await bed.startReceiver();
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.created", "job.completed"] });
    const newSecret = generateWebhookSecret();
    await bed.db.execute(sql`update webhooks set previous_secret_ciphertext = secret_ciphertext,
      previous_secret_expires_at = now() + interval '24 hours', secret_ciphertext = ${testSecretBox.seal(subscription.id, newSecret)}
      where id = ${subscription.id}`);
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks();

    // Act 1: during the overlap
    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    await waitFor("the first event arrives", () => receiver.requests.length === 1);
    // Act 2: after it
    await bed.db.execute(sql`update webhooks set previous_secret_expires_at = now() - interval '1 second' where id = ${subscription.id}`);
    await writeJobEvents(bed.pool, jobId!, ["job.completed"]);
    await waitFor("the second event arrives", () => receiver.requests.length === 2);

    // Assert
    const [during, after] = receiver.requests as [(typeof receiver.requests)[0], (typeof receiver.requests)[0]];
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    for (const secret of [newSecret, subscription.secret])
      expect(() => new Webhook(secret).verify(during.body, during.headers as Record<string, string>)).not.toThrow();
    expect(String(after.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(() => new Webhook(newSecret).verify(after.body, after.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(subscription.secret).verify(after.body, after.headers as Record<string, string>)).toThrow();
  });

  it("when a delivered delivery is redelivered, then the endpoint gets it again and attempts keep counting", async () => {
    // Arrange
    const receiver = await bed.startReceiver();
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.created"] });
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks();
    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    await waitFor("the delivery is delivered", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "delivered");

    // Act
    const [delivery] = await deliveriesOf(bed.db, subscription.id);
    expect(await webhookDeliveries.redeliver(bed.pool, subscription.id, delivery!.id)).toBe(true);
    await waitFor("it is delivered again", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.attempts === 2);

    // Assert
    expect(receiver.requests.map((r) => r.event.id)).toEqual([delivery!.eventId, delivery!.eventId]);
    expect((await deliveriesOf(bed.db, subscription.id))[0]).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("when deliveries succeed and fail, then /metrics counts them by outcome, times them, and shows the pending gauge and each subscription's failure streak; no secret is logged", async () => {
    // Arrange
    const ok = await bed.startReceiver();
    const failing = await bed.startReceiver(() => ({ status: 503 }));
    const healthy = await subscribe(bed.pool, { url: ok.url, eventTypes: ["job.created"] });
    const broken = await subscribe(bed.pool, { url: failing.url, eventTypes: ["job.created"] });
    const [jobId] = await createJobs(bed.db, 1);
    const { logger, lines } = capturingLogger();
    const { relay } = await bed.startRelayWithWebhooks({ logger, config: { timeScale: 0.0001 } });

    // Act
    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    await waitFor("the broken endpoint was tried three times", () => failing.requests.length >= 3);
    await waitFor("the healthy delivery is recorded", async () => (await deliveriesOf(bed.db, healthy.id))[0]?.status === "delivered");
    const text = await relay.metrics.registry.metrics();

    // Assert
    expect(text).toMatch(/hub_webhook_deliveries_total\{outcome="delivered",app="event-relay"\} 1/);
    expect(text).toMatch(/hub_webhook_deliveries_total\{outcome="retrying",app="event-relay"\} [2-9]/);
    expect(text).toMatch(/hub_webhook_attempts_total\{result="http_error",app="event-relay"\} [2-9]/);
    expect(text).toMatch(/hub_webhook_delivery_duration_seconds_count\{app="event-relay"\} [3-9]/);
    expect(text).toMatch(/hub_webhook_deliveries_pending\{app="event-relay"\} 1/);
    expect(text).toMatch(new RegExp(`hub_webhook_failure_streak\\{webhook_id="${broken.id}",app="event-relay"\\} [2-9]`));
    expect(text).toMatch(new RegExp(`hub_webhook_failure_streak\\{webhook_id="${healthy.id}",app="event-relay"\\} 0`));
    const logged = JSON.stringify(lines());
    for (const secret of [healthy.secret, broken.secret]) expect(logged).not.toContain(secret.slice(6));
    const [row] = await bed.db
      .select()
      .from(schema.webhooks)
      .where(sql`${schema.webhooks.id} = ${broken.id}`);
    expect(row!.secretCiphertext).not.toContain(broken.secret.slice(6));
  });
});
