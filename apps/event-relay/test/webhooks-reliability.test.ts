/** Webhook deliveries under retries, several relays, a relay dying, endpoints failing for good, and DNS turning hostile. */
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { events } from "@hub/db";
import type { ResolvedAddress } from "@hub/shared/webhooks";
import { aggregatesOutOfOrder, createJobs, waitFor, writeEvents, type StreamEntry } from "./harness";
import { WEBHOOK_RETRY_DELAYS_MS } from "../src/webhooks/retry-policy";
import { createWebhookTestbed, deliveriesOf, subscribe, writeJobEvents, type ReceivedRequest, type WebhookTestbed } from "./webhook-harness";

/** The receiver's requests as stream entries, for the relay's order checker (first occurrence per event id). */
const asEntries = (requests: readonly ReceivedRequest[]): StreamEntry[] =>
  requests
    .filter((r) => r.event.event_type === "job.requeued")
    .map((r, i) => ({ streamId: String(i), id: r.event.id, eventType: r.event.event_type, aggregateId: r.event.aggregate_id, data: r.event }));

describe("webhook delivery, reliability", { timeout: 90_000 }, () => {
  let bed: WebhookTestbed;

  beforeEach(async () => {
    bed = await createWebhookTestbed();
  });

  afterEach(async () => {
    await bed.stop();
  });

  it("when a third of the attempts fail, then every event is delivered and each aggregate's events arrive in the order they were written", async () => {
    // Arrange: retries after 0.5 ms, 30 ms, 180 ms… (scale 0.0001); a failed delivery holds back its aggregate only.
    let calls = 0;
    const receiver = await bed.startReceiver(() => ({ status: ++calls % 3 === 0 ? 500 : 200 }));
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.requeued"] });
    const aggregates = await createJobs(bed.db, 10);
    await bed.startRelayWithWebhooks({ config: { timeScale: 0.0001 } });

    // Act
    await writeEvents(bed.pool, { aggregates, total: 300, concurrency: 4 });
    await waitFor(
      "every delivery is delivered",
      async () => {
        const deliveries = await deliveriesOf(bed.db, subscription.id);
        return deliveries.length === 300 && deliveries.every((d) => d.status === "delivered");
      },
      60_000,
    );

    // Assert
    const entries = asEntries(receiver.requests);
    expect(new Set(entries.map((e) => e.id)).size).toBe(300);
    expect(receiver.requests.filter((r) => r.event.event_type === "job.requeued").length).toBeGreaterThan(300);
    expect(aggregatesOutOfOrder(entries)).toEqual([]);
  });

  it("when two relays deliver at once, then every event reaches the endpoint exactly once and both relays send", async () => {
    // Arrange
    const receiver = await bed.startReceiver();
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.requeued"] });
    const aggregates = await createJobs(bed.db, 64);
    const first = await bed.startRelayWithWebhooks();
    const second = await bed.startRelayWithWebhooks();
    await waitFor("the relays share the partitions", () => first.relay.ownedPartitions().length > 0 && second.relay.ownedPartitions().length > 0);

    // Act
    await writeEvents(bed.pool, { aggregates, total: 600, concurrency: 6 });
    await waitFor(
      "every delivery is delivered",
      async () => {
        const deliveries = await deliveriesOf(bed.db, subscription.id);
        return deliveries.length === 600 && deliveries.every((d) => d.status === "delivered");
      },
      60_000,
    );

    // Assert
    const ids = receiver.requests.map((r) => r.event.id);
    expect(ids).toHaveLength(600);
    expect(new Set(ids).size).toBe(600);
    expect(aggregatesOutOfOrder(asEntries(receiver.requests))).toEqual([]);
    const sent = async (loop: typeof first.webhooks) => (await loop.metrics.deliveries.get()).values.find((v) => v.labels.outcome === "delivered")?.value ?? 0;
    expect(await sent(first.webhooks)).toBeGreaterThan(0);
    expect(await sent(second.webhooks)).toBeGreaterThan(0);
  });

  it("when a relay dies in the middle of an attempt, then another relay sends the delivery once the lease lapses, and nothing is lost", async () => {
    // Arrange: the endpoint holds the first request open (as if slow), then answers.
    const receiver = await bed.startReceiver((_request, index) => (index === 0 ? "hang" : { status: 200 }));
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.completed"] });
    const [jobId] = await createJobs(bed.db, 1);
    const dying = await bed.startRelayWithWebhooks({ config: { leaseMs: 1500 } });
    await writeJobEvents(bed.pool, jobId!, ["job.completed"]);
    await waitFor("the first attempt is in flight", () => receiver.requests.length === 1);

    // Act: it dies (its claim stays leased, nothing recorded); a survivor is running.
    await dying.webhooks.crash();
    await bed.startRelayWithWebhooks({ config: { leaseMs: 1500 } });
    await waitFor("the delivery is delivered", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "delivered");

    // Assert
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.event.id).toBe(receiver.requests[0]!.event.id);
    expect((await deliveriesOf(bed.db, subscription.id))[0]).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 200 });
  });

  it("when an endpoint always fails, then it is tried 7 times, never earlier than the schedule says, and the delivery ends failed", async () => {
    // Arrange: scale 0.0001: 0.5 ms, 30 ms, 180 ms, 720 ms, 1.8 s, 3.6 s between the attempts.
    const scale = 0.0001;
    const receiver = await bed.startReceiver(() => ({ status: 500 }));
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.failed"] });
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks({ config: { timeScale: scale } });

    // Act
    await writeJobEvents(bed.pool, jobId!, ["job.failed"]);
    await waitFor("the delivery has failed", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "failed", 30_000);

    // Assert
    expect(receiver.requests).toHaveLength(7);
    WEBHOOK_RETRY_DELAYS_MS.forEach((nominal, i) => {
      const gap = receiver.requests[i + 1]!.receivedAt - receiver.requests[i]!.receivedAt;
      expect(gap, `wait before attempt ${i + 2}`).toBeGreaterThanOrEqual(Math.floor(nominal * scale * 0.8) - 2);
    });
    expect((await deliveriesOf(bed.db, subscription.id))[0]).toMatchObject({
      status: "failed",
      attempts: 7,
      lastStatusCode: 500,
      lastError: "HTTP 500",
      nextAttemptAt: null,
    });
    const [row] = await bed.db.execute<{ disabled_at: Date | null }>(sql`select disabled_at from webhooks where id = ${subscription.id}`).then((r) => r.rows);
    expect(row!.disabled_at).toBeNull();
  });

  it("when a subscription's deliveries have failed for 24 h, then it is disabled with webhook.disabled, its pending deliveries fail and nothing more is sent", async () => {
    // Arrange: scale 0.00001: the whole schedule takes ~0.65 s, and "24 h" is 0.864 s.
    const receiver = await bed.startReceiver(() => ({ status: 502 }));
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.failed", "job.requeued"] });
    const aggregates = await createJobs(bed.db, 3);
    await bed.startRelayWithWebhooks({ config: { timeScale: 0.00001 } });

    // Act: events keep failing for longer than the window.
    await writeJobEvents(bed.pool, aggregates[0]!, ["job.failed"]);
    await waitFor("the first delivery has failed", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "failed", 20_000);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await writeJobEvents(bed.pool, aggregates[1]!, ["job.failed"]);
    await waitFor(
      "the subscription is disabled",
      async () => {
        const [row] = await bed.db
          .execute<{ disabled_at: Date | null }>(sql`select disabled_at from webhooks where id = ${subscription.id}`)
          .then((r) => r.rows);
        return row!.disabled_at !== null;
      },
      20_000,
    );
    const sentBefore = receiver.requests.length;
    await writeJobEvents(bed.pool, aggregates[2]!, ["job.requeued"]);
    await waitFor("the last event is stamped", async () => (await events.list(bed.pool, { aggregateId: aggregates[2]!, limit: 5 }))[0]?.dispatchedAt != null);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Assert
    expect(receiver.requests.length).toBe(sentBefore);
    const disabled = await events.list(bed.pool, { aggregateId: subscription.id, eventType: "webhook.disabled", limit: 5 });
    expect(disabled).toEqual([expect.objectContaining({ actorId: null, payload: { url: receiver.url, event_types: ["job.failed", "job.requeued"] } })]);
    // The second event's delivery exists unless the first one's retries alone already spanned the
    // window (a slow machine): either way nothing is left pending.
    const deliveries = await deliveriesOf(bed.db, subscription.id);
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    expect(deliveries.every((d) => d.status === "failed")).toBe(true);
  });

  it("when the host's DNS turns to a loopback address after creation, then with private addresses refused no request is made, and the log says why", async () => {
    // Arrange: the name pointed elsewhere when the subscription was created; it now answers 127.0.0.1.
    const receiver = await bed.startReceiver();
    const subscription = await subscribe(bed.pool, { url: `https://hooks.example.test:${receiver.port}/hooks`, eventTypes: ["job.created"] });
    const resolver = async (): Promise<ResolvedAddress[]> => [{ address: "127.0.0.1", family: 4 }];
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks({ resolver, config: { policy: { allowInsecure: false, allowPrivate: false } } });

    // Act
    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    await waitFor("the attempt is recorded", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.attempts === 1);

    // Assert
    expect((await deliveriesOf(bed.db, subscription.id))[0]).toMatchObject({
      status: "pending",
      lastStatusCode: null,
      lastError:
        "refused: the host hooks.example.test resolves to 127.0.0.1, a loopback address, which webhooks may not target (for a local webhook, HUB_WEBHOOKS_ALLOW_PRIVATE=true allows it)",
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it("when http is no longer allowed, then an http:// subscription is refused at delivery time without a request", async () => {
    const receiver = await bed.startReceiver();
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.created"] });
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks({ config: { policy: { allowInsecure: false, allowPrivate: true } } });

    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    await waitFor("the attempt is recorded", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.attempts === 1);

    expect((await deliveriesOf(bed.db, subscription.id))[0]).toMatchObject({
      lastError:
        "refused: the URL must be https:// (for a local webhook, HUB_WEBHOOKS_ALLOW_INSECURE=true allows http:// and HUB_WEBHOOKS_ALLOW_PRIVATE=true allows loopback and private addresses)",
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it("when a name resolves to an allowed address, then the request goes to exactly that address, with the name as Host", async () => {
    // hooks.example.test exists in no DNS: only the checked, pinned address can have been used.
    const receiver = await bed.startReceiver();
    const subscription = await subscribe(bed.pool, { url: `http://hooks.example.test:${receiver.port}/in?x=1`, eventTypes: ["job.created"] });
    const resolved: string[] = [];
    const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
      resolved.push(hostname);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks({ resolver });

    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    await waitFor("the delivery is delivered", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "delivered");

    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.headers.host).toBe(`hooks.example.test:${receiver.port}`);
    expect(resolved).toContain("hooks.example.test");
  });

  it("when a stamp queued a delivery for a subscription being disabled at that moment, then the loop fails it rather than leaving it pending", async () => {
    // Arrange: the straggler, as a stamp concurrent with the disabling transaction leaves it.
    const receiver = await bed.startReceiver();
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["*"] });
    const [jobId] = await createJobs(bed.db, 1);
    await writeJobEvents(bed.pool, jobId!, ["job.created"]);
    const [event] = await events.list(bed.pool, { aggregateId: jobId!, limit: 1 });
    await bed.db.execute(sql`update webhooks set disabled_at = now() where id = ${subscription.id}`);
    await bed.db.execute(
      sql`insert into webhook_deliveries (webhook_id, event_id, aggregate_id, event_position) values (${subscription.id}, ${event!.id}, ${jobId}, ${event!.position})`,
    );

    // Act
    await bed.startRelayWithWebhooks();
    await waitFor("the straggler is failed", async () => (await deliveriesOf(bed.db, subscription.id)).every((d) => d.status === "failed"));

    // Assert
    expect((await deliveriesOf(bed.db, subscription.id)).map((d) => [d.status, d.attempts, d.lastError])).toContainEqual([
      "failed",
      0,
      "the webhook was disabled after its deliveries failed for 24 h",
    ]);
    expect(receiver.requests).toHaveLength(0);
  });
});
