/**
 * Webhook deliveries (CONTRACT §6.7), the API's side: the delivery log and redelivery; and the
 * health figures of the relay's metrics. Deliveries are created by the relay's stamp of
 * `dispatched_at` (outbox.ts) and sent by its delivery loop (delivery-loop.ts), never here.
 */
import { and, eq, sql } from "drizzle-orm";
import { webhookDeliveries, type WebhookDelivery } from "../../schema";
import { type Executor, queryBuilder } from "../../executor";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";

/** GET /webhooks/{id}/deliveries: newest first by (created_at, id). */
export const WEBHOOK_DELIVERIES_LIST_ORDER: KeysetOrder = {
  createdAt: webhookDeliveries.createdAt,
  id: webhookDeliveries.id,
  direction: "newest first",
};

/** A delivery with the type of its event, as the delivery log shows it. */
export type WebhookDeliveryListed = WebhookDelivery & { eventType: string };

/** One page of a subscription's delivery log, newest first. */
export async function listPage(executor: Executor, webhookId: string, page: KeysetPageRequest): Promise<KeysetPage<WebhookDeliveryListed>> {
  const db = queryBuilder(executor);
  return keysetPage(
    WEBHOOK_DELIVERIES_LIST_ORDER,
    page,
    async ({ after, orderBy, limit }) => {
      const rows = await db
        .select({ delivery: webhookDeliveries, eventType: sql<string>`(select event_type from events where events.id = ${webhookDeliveries.eventId})` })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.webhookId, webhookId), after))
        .orderBy(...orderBy)
        .limit(limit);
      return rows.map((row) => ({ ...row.delivery, eventType: row.eventType }));
    },
    (delivery) => delivery,
  );
}

/**
 * Manual redelivery: the delivery is pending again, due now, with the retry schedule started
 * over (`attempts` keeps counting). An attempt in flight keeps its lease and records its outcome.
 * Returns false when the subscription has no such delivery.
 */
export async function redeliver(executor: Executor, webhookId: string, deliveryId: string): Promise<boolean> {
  const db = queryBuilder(executor);
  const updated = await db
    .update(webhookDeliveries)
    .set({ status: "pending", scheduleStep: 0, nextAttemptAt: sql`now()` })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
    .returning({ id: webhookDeliveries.id });
  return updated.length > 0;
}

/** The delivery backlog and failure streaks, for the relay's metrics. */
export interface WebhookDeliveryHealth {
  /** Pending deliveries of active subscriptions (due, waiting for a retry or in flight). */
  pending: number;
  /** Failed attempts in a row, per active subscription. */
  failureStreaks: Array<{ webhookId: string; consecutiveFailures: number }>;
}

const MEASURE_HEALTH = {
  name: "webhooks_measure_health",
  text: `select w.id as "webhookId", w.consecutive_failures as "consecutiveFailures",
       (select count(*)::int from webhook_deliveries d where d.webhook_id = w.id and d.status = 'pending') as pending
  from webhooks w
 where w.disabled_at is null and w.deleted_at is null`,
};

export async function measureHealth(db: Executor): Promise<WebhookDeliveryHealth> {
  const { rows } = await db.query<{ webhookId: string; consecutiveFailures: number; pending: number }>(MEASURE_HEALTH);
  return {
    pending: rows.reduce((sum, row) => sum + row.pending, 0),
    failureStreaks: rows.map(({ webhookId, consecutiveFailures }) => ({ webhookId, consecutiveFailures })),
  };
}
