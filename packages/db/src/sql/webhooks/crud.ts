/**
 * Webhook subscriptions (CONTRACT §6.7). Every function takes the connection or transaction
 * first; a change and its `webhook.*` event share one transaction, the subscription's row written
 * first (its lock orders the subscription's events, see events.record).
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { webhookDeliveries, webhooks, type Webhook } from "../../schema";
import * as events from "../events/crud";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";

/** `last_error` of the deliveries a deletion ended. */
export const WEBHOOK_DELETED_REASON = "the webhook was deleted";
/** `last_error` of the deliveries a disabling ended. */
export const WEBHOOK_DISABLED_REASON = "the webhook was disabled after its deliveries failed for 24 h";

/** How long deliveries are signed with the secret a rotation replaced as well (CONTRACT §6.7). */
export const WEBHOOK_SECRET_OVERLAP_HOURS = 24;

export interface NewWebhook {
  /** Chosen by the caller: the sealed secret is bound to it. */
  id: string;
  url: string;
  eventTypes: string[];
  description: string;
  /** The body delivered (CONTRACT §6.19); default `standard`. */
  format?: "standard" | "slack";
  secretCiphertext: string;
  createdBy: string;
}

/** The payload of every `webhook.*` event. */
function webhookEventPayload(webhook: Pick<Webhook, "url" | "eventTypes">) {
  return { url: webhook.url, event_types: webhook.eventTypes };
}

/** Inserts a subscription and its `webhook.created` event. */
export async function insert(executor: Executor, input: NewWebhook): Promise<void> {
  const tx = queryBuilder(executor);
  await tx.insert(webhooks).values(input);
  await events.record(executor, { eventType: "webhook.created", aggregateId: input.id, actorId: input.createdBy, payload: webhookEventPayload(input) });
}

/** GET /webhooks: oldest first by (created_at, id). */
export const WEBHOOKS_LIST_ORDER: KeysetOrder = { createdAt: webhooks.createdAt, id: webhooks.id, direction: "oldest first" };

/** One page of the subscriptions that are not deleted. */
export async function listPage(executor: Executor, page: KeysetPageRequest): Promise<KeysetPage<Webhook>> {
  const db = queryBuilder(executor);
  return keysetPage(
    WEBHOOKS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(webhooks)
        .where(and(isNull(webhooks.deletedAt), after))
        .orderBy(...orderBy)
        .limit(limit),
    (webhook) => webhook,
  );
}

/** A subscription that is not deleted. */
export async function find(executor: Executor, id: string): Promise<Webhook | undefined> {
  const db = queryBuilder(executor);
  const [webhook] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), isNull(webhooks.deletedAt)));
  return webhook;
}

/**
 * Deletes a subscription (the row stays, with its delivery log, for the record): nothing more is
 * delivered to it, its pending deliveries end `failed`, and `webhook.deleted` is written.
 * Returns false when it was unknown or already deleted.
 */
export async function markDeleted(executor: Executor, id: string, actorId: string): Promise<boolean> {
  const tx = queryBuilder(executor);
  const [deleted] = await tx
    .update(webhooks)
    .set({ deletedAt: sql`now()` })
    .where(and(eq(webhooks.id, id), isNull(webhooks.deletedAt)))
    .returning();
  if (!deleted) return false;
  await failPendingDeliveries(executor, id, WEBHOOK_DELETED_REASON);
  await events.record(executor, { eventType: "webhook.deleted", aggregateId: id, actorId, payload: webhookEventPayload(deleted) });
  return true;
}

/**
 * Ends every pending delivery of a subscription as `failed` with `reason` (deleted or disabled).
 * Attempts in flight lose their lease token, so their late outcome is not recorded.
 */
export async function failPendingDeliveries(executor: Executor, webhookId: string, reason: string): Promise<void> {
  const tx = queryBuilder(executor);
  await tx
    .update(webhookDeliveries)
    .set({ status: "failed", lastError: reason, nextAttemptAt: null, leaseExpiresAt: null, leaseToken: null })
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.status, "pending")));
}

/**
 * Rotation: `newSecretCiphertext` becomes the secret; the one it replaces keeps signing too for
 * {@link WEBHOOK_SECRET_OVERLAP_HOURS} (a secret replaced earlier is dropped). One statement, so
 * two rotations at once each replace the secret the other left. Returns false when the
 * subscription is unknown or deleted.
 */
export async function rotateSecret(executor: Executor, id: string, newSecretCiphertext: string): Promise<boolean> {
  const db = queryBuilder(executor);
  const rotated = await db
    .update(webhooks)
    .set({
      previousSecretCiphertext: sql`${webhooks.secretCiphertext}`,
      previousSecretExpiresAt: sql`now() + make_interval(hours => ${WEBHOOK_SECRET_OVERLAP_HOURS})`,
      secretCiphertext: newSecretCiphertext,
    })
    .where(and(eq(webhooks.id, id), isNull(webhooks.deletedAt)))
    .returning({ id: webhooks.id });
  return rotated.length > 0;
}
