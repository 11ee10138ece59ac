/** Webhook delivery by the real relay process: killed mid-attempt, and stopped mid-attempt. */
import type { ChildProcess } from "node:child_process";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createJobs, waitFor } from "./harness";
import { killLeftovers, startRelayProcess } from "./relay-process";
import { createWebhookTestbed, deliveriesOf, subscribe, writeJobEvents, type WebhookTestbed } from "./webhook-harness";

/** The relay's webhook settings: the key of testSecretBox (webhook-harness.ts), http and loopback allowed. */
const WEBHOOK_ENV = {
  HUB_WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(32, 42).toString("base64"),
  HUB_WEBHOOKS_ALLOW_INSECURE: "true",
  HUB_WEBHOOKS_ALLOW_PRIVATE: "true",
};

describe("webhook delivery by the relay process", { timeout: 120_000 }, () => {
  let bed: WebhookTestbed;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    bed = await createWebhookTestbed();
  });

  /** A relay process whose first attempt an endpoint holds open (it answers 200 to the next ones). */
  async function relayHoldingAnAttempt() {
    const receiver = await bed.startReceiver((_request, index) => (index === 0 ? "hang" : { status: 200 }));
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["job.completed"] });
    const [jobId] = await createJobs(bed.db, 1);
    const first = await startRelayProcess(bed, WEBHOOK_ENV);
    children.push(first.child);
    await writeJobEvents(bed.pool, jobId!, ["job.completed"]);
    await waitFor("the first attempt is in flight", () => receiver.requests.length === 1);
    return { receiver, subscription, first };
  }

  afterEach(async () => {
    await killLeftovers(children);
    await bed.stop();
  });

  it("when the relay is SIGKILLed while an endpoint holds an attempt, then a new relay sends it once the 30 s lease lapses, signed, and it is delivered", async () => {
    // Arrange
    const { receiver, subscription, first } = await relayHoldingAnAttempt();

    // Act
    first.child.kill("SIGKILL");
    await first.exited;
    const second = await startRelayProcess(bed, WEBHOOK_ENV);
    children.push(second.child);
    await waitFor("the delivery is delivered", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "delivered", 60_000);

    // Assert
    expect(receiver.requests).toHaveLength(2);
    const retried = receiver.requests[1]!;
    expect(retried.event.id).toBe(receiver.requests[0]!.event.id);
    expect(() => new Webhook(subscription.secret).verify(retried.body, retried.headers as Record<string, string>)).not.toThrow();
    expect(second.output()).not.toContain(subscription.secret.slice(6));
  });

  it("when the relay gets SIGTERM while an endpoint holds an attempt, then it exits 0 and gives the attempt back, so the next relay sends it at once", async () => {
    // Arrange
    const { receiver, subscription, first } = await relayHoldingAnAttempt();

    // Act
    first.child.kill("SIGTERM");
    expect(await first.exited).toEqual({ code: 0, signal: null });
    const [given] = await deliveriesOf(bed.db, subscription.id);

    // Assert: no lease held, no attempt counted; a new relay delivers it.
    expect(given).toMatchObject({ status: "pending", attempts: 0, leaseExpiresAt: null });
    const second = await startRelayProcess(bed, WEBHOOK_ENV);
    children.push(second.child);
    await waitFor("the delivery is delivered", async () => (await deliveriesOf(bed.db, subscription.id))[0]?.status === "delivered");
    expect(receiver.requests).toHaveLength(2);
  });
});
