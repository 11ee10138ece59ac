/**
 * The `slack` webhook format (CONTRACT §6.19), delivered by the relay to a local HTTP receiver:
 * `{"text": <message>}` for alert events and one line for every other event, signed exactly as a
 * standard delivery is.
 */
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { events, withTransaction } from "@hub/db";
import { createJobs, waitFor } from "./harness";
import { createWebhookTestbed, subscribe, writeJobEvents, type WebhookTestbed } from "./webhook-harness";

describe("webhook deliveries in the slack format", { timeout: 60_000 }, () => {
  let bed: WebhookTestbed;

  beforeEach(async () => {
    bed = await createWebhookTestbed();
  });

  afterEach(async () => {
    await bed.stop();
  });

  it("when an alert fires and a job fails, then the receiver gets {text} with the alert's message and a one-line sentence, each signed per Standard Webhooks", async () => {
    const receiver = await bed.startReceiver();
    const subscription = await subscribe(bed.pool, { url: receiver.url, eventTypes: ["alert.firing", "job.failed"], format: "slack" });
    const [jobId] = await createJobs(bed.db, 1);
    await bed.startRelayWithWebhooks();
    const ruleId = randomUUID();
    const message = "Invoice export: the oldest queued job has waited 12 min (alert at 10 min); the worker is offline";

    await withTransaction(bed.pool, (tx) =>
      events.record(tx, {
        eventType: "alert.firing",
        aggregateId: ruleId,
        actorId: null,
        payload: { rule_id: ruleId, automation_id: randomUUID(), kind: "queue_age", value: 720, threshold: 600, message },
      }),
    );
    await writeJobEvents(bed.pool, jobId!, ["job.failed"]);
    await waitFor("both deliveries", () => receiver.requests.length >= 2);

    const bodies = receiver.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>);
    expect(bodies[0]).toEqual({ text: message });
    expect(Object.keys(bodies[1]!)).toEqual(["text"]);
    expect(bodies[1]!.text).toMatch(new RegExp(`^Job ${jobId!.slice(0, 8)} of automation .+ failed after 1 attempt$`));
    expect(String(bodies[1]!.text)).not.toContain("\n");
    for (const request of receiver.requests) {
      expect(request.headers["content-type"]).toBe("application/json");
      expect(new Webhook(subscription.secret).verify(request.body, request.headers as Record<string, string>)).toEqual(JSON.parse(request.body));
    }
  });
});
