/**
 * Webhook subscriptions and their delivery log (CONTRACT §6.7). The secret is generated here,
 * returned once, and stored only sealed (AES-256-GCM, HUB_WEBHOOK_ENCRYPTION_KEY). The URL is
 * checked (scheme, then every address its host resolves to) before anything is written; the relay
 * checks it again before every attempt.
 */
import { randomUUID } from "node:crypto";
import { type KeysetPage, type KeysetPageRequest, type Webhook, webhookDeliveries, webhooks, withTransaction } from "@hub/db";
import { checkWebhookUrl, generateWebhookSecret, resolveWebhookTarget, WebhookSecretBox } from "@hub/shared/webhooks";
import { ConflictError, HttpError, NotFoundError, RequestValidationError } from "../http/http-errors";
import type { AppContext } from "../context";
import type { CreateWebhookBody, WebhookDeliveryRecord, WebhookRecord } from "./webhooks.schemas";

const iso = (date: Date | null) => date?.toISOString() ?? null;

export function toWebhookRecord(webhook: Webhook, now: Date = new Date()): WebhookRecord {
  const overlapOpen = webhook.previousSecretExpiresAt !== null && webhook.previousSecretExpiresAt > now;
  return {
    id: webhook.id,
    url: webhook.url,
    event_types: webhook.eventTypes,
    description: webhook.description,
    format: webhook.format,
    status: webhook.disabledAt ? "disabled" : "active",
    created_at: webhook.createdAt.toISOString(),
    disabled_at: iso(webhook.disabledAt),
    failing_since: iso(webhook.failingSince),
    previous_secret_expires_at: overlapOpen ? iso(webhook.previousSecretExpiresAt) : null,
  };
}

export function toWebhookDeliveryRecord(delivery: webhookDeliveries.WebhookDeliveryListed): WebhookDeliveryRecord {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt_at: delivery.status === "pending" ? iso(delivery.nextAttemptAt) : null,
    delivered_at: iso(delivery.deliveredAt),
    created_at: delivery.createdAt.toISOString(),
  };
}

/** The box sealing secrets; 503 while HUB_WEBHOOK_ENCRYPTION_KEY is not configured. */
function secretBox(ctx: AppContext): WebhookSecretBox {
  const key = ctx.env.HUB_WEBHOOK_ENCRYPTION_KEY;
  if (!key) throw new HttpError(503, "Webhooks are not configured on this hub: HUB_WEBHOOK_ENCRYPTION_KEY is not set");
  return new WebhookSecretBox(key);
}

/** 422 on ["body","url"] unless the URL may receive webhooks now (scheme, then DNS). */
async function assertDeliverableUrl(ctx: AppContext, raw: string): Promise<void> {
  const policy = { allowInsecure: ctx.env.HUB_WEBHOOKS_ALLOW_INSECURE, allowPrivate: ctx.env.HUB_WEBHOOKS_ALLOW_PRIVATE };
  const form = checkWebhookUrl(raw, policy);
  const target = form.ok ? await resolveWebhookTarget(form.value, policy, ctx.webhookResolver) : form;
  if (!target.ok) throw new RequestValidationError([{ loc: ["body", "url"], msg: `Value error, ${target.reason}`, type: "value_error" }]);
}

export async function createWebhook(ctx: AppContext, input: CreateWebhookBody, actorId: string): Promise<{ id: string; secret: string }> {
  const box = secretBox(ctx);
  await assertDeliverableUrl(ctx, input.url);
  const id = randomUUID();
  const secret = generateWebhookSecret();
  await withTransaction(ctx.database.pool, (tx) =>
    webhooks.insert(tx, {
      id,
      url: input.url,
      eventTypes: input.event_types,
      description: input.description,
      format: input.format,
      secretCiphertext: box.seal(id, secret),
      createdBy: actorId,
    }),
  );
  return { id, secret };
}

export async function listWebhooks(ctx: AppContext, page: KeysetPageRequest): Promise<KeysetPage<WebhookRecord>> {
  const { items, next } = await webhooks.listPage(ctx.database.pool, page);
  const now = new Date();
  return { items: items.map((webhook) => toWebhookRecord(webhook, now)), next };
}

async function requireWebhook(ctx: AppContext, id: string): Promise<Webhook> {
  const webhook = await webhooks.find(ctx.database.pool, id);
  if (!webhook) throw new NotFoundError("Webhook not found");
  return webhook;
}

export async function getWebhook(ctx: AppContext, id: string): Promise<WebhookRecord> {
  return toWebhookRecord(await requireWebhook(ctx, id));
}

export async function deleteWebhook(ctx: AppContext, id: string, actorId: string): Promise<void> {
  const deleted = await withTransaction(ctx.database.pool, (tx) => webhooks.markDeleted(tx, id, actorId));
  if (!deleted) throw new NotFoundError("Webhook not found");
}

/** A new secret; the replaced one keeps signing deliveries for 24 h. */
export async function rotateSecret(ctx: AppContext, id: string): Promise<{ id: string; secret: string }> {
  const box = secretBox(ctx);
  const secret = generateWebhookSecret();
  if (!(await webhooks.rotateSecret(ctx.database.pool, id, box.seal(id, secret)))) throw new NotFoundError("Webhook not found");
  return { id, secret };
}

export async function listDeliveries(ctx: AppContext, webhookId: string, page: KeysetPageRequest): Promise<KeysetPage<WebhookDeliveryRecord>> {
  await requireWebhook(ctx, webhookId);
  const { items, next } = await webhookDeliveries.listPage(ctx.database.pool, webhookId, page);
  return { items: items.map(toWebhookDeliveryRecord), next };
}

/** Due again now, retry schedule from the start; a disabled subscription delivers nothing (409). */
export async function redeliver(ctx: AppContext, webhookId: string, deliveryId: string): Promise<void> {
  const webhook = await requireWebhook(ctx, webhookId);
  if (webhook.disabledAt) throw new ConflictError("Webhook is disabled: nothing is delivered to it");
  if (!(await webhookDeliveries.redeliver(ctx.database.pool, webhookId, deliveryId))) throw new NotFoundError("Delivery not found");
}
