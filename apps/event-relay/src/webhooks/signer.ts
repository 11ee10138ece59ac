/**
 * One attempt's request: the body (the event as `GET /events` serves it, or in the `slack` format
 * `{"text": …}`, CONTRACT §6.19) and the Standard Webhooks
 * headers, signed with the subscription's secret — and, during a rotation's overlap, with the
 * replaced one as well. Secrets are decrypted here, just before signing, and never leave this
 * function.
 */
import type { webhookDeliveries } from "@hub/db";
import { events } from "@hub/db";
import { slackWebhookBody, webhookSignatureHeader, type WebhookSecretBox } from "@hub/shared/webhooks";

export interface SignedWebhookRequest {
  body: string;
  headers: Record<string, string>;
}

export const WEBHOOK_USER_AGENT = "AutomationHub-Webhooks/1.0";

export function signWebhookRequest(delivery: webhookDeliveries.ClaimedWebhookDelivery, box: WebhookSecretBox, now: Date = new Date()): SignedWebhookRequest {
  const record = events.toEventRecordJson(delivery.event);
  const body = delivery.format === "slack" ? slackWebhookBody(record) : JSON.stringify(record);
  const secrets = [box.open(delivery.webhookId, delivery.secretCiphertext)];
  if (delivery.previousSecretCiphertext) secrets.push(box.open(delivery.webhookId, delivery.previousSecretCiphertext));
  const message = { id: delivery.event.id, timestamp: Math.floor(now.getTime() / 1000), body };
  return {
    body,
    headers: {
      "content-type": "application/json",
      "user-agent": WEBHOOK_USER_AGENT,
      "webhook-id": message.id,
      "webhook-timestamp": String(message.timestamp),
      "webhook-signature": webhookSignatureHeader(secrets, message),
    },
  };
}
