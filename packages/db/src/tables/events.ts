/**
 * The outbox of events, and the webhook subscriptions and deliveries the relay makes of it. The
 * README of packages/db says what these declarations are for.
 */
import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./identity";
import { createdAt, tz } from "./columns";

export const events = pgTable(
  "events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Insertion order; the relay publishes by it (per-aggregate order follows, see event-relay). */
    position: bigint("position", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    aggregateId: uuid("aggregate_id").notNull(),
    eventType: text("event_type").notNull(),
    actorId: uuid("actor_id"),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    dispatchedAt: tz("dispatched_at"),
  },
  (t) => [
    uniqueIndex("events_position_key").on(t.position),
    // The relay's query: undispatched events in insertion order.
    index("events_undispatched_idx")
      .on(t.position)
      .where(sql`${t.dispatchedAt} is null`),
    // GET /events filters, each ordered by (created_at, id).
    index("events_created_idx").on(t.createdAt, t.id),
    index("events_aggregate_created_idx").on(t.aggregateId, t.createdAt, t.id),
    index("events_type_created_idx").on(t.eventType, t.createdAt, t.id),
  ],
);

/**
 * Webhook subscriptions (CONTRACT §6.7). The signing secret is stored encrypted (AES-256-GCM with
 * HUB_WEBHOOK_ENCRYPTION_KEY, see @hub/shared/webhook-secrets), never in clear and never hashed:
 * the relay needs it to sign. A deleted subscription keeps its row (and its delivery log) with
 * `deleted_at` set; the API no longer shows it.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    url: text("url").notNull(),
    /** Catalogue event types, or `{*}` for every type. */
    eventTypes: text("event_types").array().notNull(),
    description: text("description").notNull().default(""),
    secretCiphertext: text("secret_ciphertext").notNull(),
    /** The secret replaced by the last rotation: deliveries are signed with it too until `previous_secret_expires_at`. */
    previousSecretCiphertext: text("previous_secret_ciphertext"),
    previousSecretExpiresAt: tz("previous_secret_expires_at"),
    createdBy: uuid("created_by").references(() => users.id),
    createdAt: createdAt(),
    /** Set when its deliveries had failed for 24 h (`webhook.disabled`); nothing is delivered after. */
    disabledAt: tz("disabled_at"),
    deletedAt: tz("deleted_at"),
    /** The body delivered (CONTRACT §6.19): `standard` the event record, `slack` `{"text": …}` for incoming webhooks. */
    format: text("format", { enum: ["standard", "slack"] })
      .notNull()
      .default("standard"),
    /** First failed attempt since the last delivered one; null while deliveries succeed. */
    failingSince: tz("failing_since"),
    /** Failed attempts in a row (the failure streak metric). */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  },
  // GET /webhooks: subscriptions not deleted, oldest first, keyset-paged.
  (t) => [
    index("webhooks_listed_idx")
      .on(t.createdAt, t.id)
      .where(sql`${t.deletedAt} is null`),
    check("webhooks_format_check", sql`${t.format} in ('standard','slack')`),
  ],
);

/**
 * One event to deliver to one subscription, created by the event relay in the statement that
 * stamps the event's `dispatched_at` (so exactly the committed events get one), sent by the
 * relay's delivery loop. A delivery is sent only while no earlier pending delivery of the same
 * subscription and aggregate exists (`event_position` order), and only under a lease.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    webhookId: uuid("webhook_id")
      .notNull()
      .references(() => webhooks.id),
    eventId: uuid("event_id")
      .notNull()
      .references(() => events.id),
    /** Copied from the event: per-aggregate order without a join. */
    aggregateId: uuid("aggregate_id").notNull(),
    eventPosition: bigint("event_position", { mode: "number" }).notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    /** Every attempt ever made, redeliveries included. */
    attempts: integer("attempts").notNull().default(0),
    /** Attempts since the delivery was created or last redelivered: the step of the retry schedule. */
    scheduleStep: integer("schedule_step").notNull().default(0),
    /** When the next attempt is due; null once delivered or failed. */
    nextAttemptAt: tz("next_attempt_at").defaultNow(),
    /** A relay sending it holds it until then; a relay that died loses it then. */
    leaseExpiresAt: tz("lease_expires_at"),
    /** Names the claim: only the holder of the current lease records the attempt's outcome. */
    leaseToken: uuid("lease_token"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    deliveredAt: tz("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_webhook_event_key").on(t.webhookId, t.eventId),
    // The delivery loop: a subscription's pending deliveries in event order; also the order check.
    index("webhook_deliveries_pending_idx")
      .on(t.webhookId, t.eventPosition)
      .where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_pending_aggregate_idx")
      .on(t.webhookId, t.aggregateId, t.eventPosition)
      .where(sql`${t.status} = 'pending'`),
    // The delivery loop's in-flight count per subscription: only leased deliveries, however long
    // the backlog of pending ones behind them.
    index("webhook_deliveries_leased_idx")
      .on(t.webhookId, t.leaseExpiresAt)
      .where(sql`${t.status} = 'pending' and ${t.leaseExpiresAt} is not null`),
    // GET /webhooks/{id}/deliveries: newest first, keyset-paged.
    index("webhook_deliveries_list_idx").on(t.webhookId, t.createdAt, t.id),
    // An event's deliveries: retention checks that none is pending before removing the event, and
    // the foreign key's check on each removed event reads it (without it, a sequential scan each).
    index("webhook_deliveries_event_idx").on(t.eventId),
    check("webhook_deliveries_status_check", sql`${t.status} in ('pending','delivered','failed')`),
  ],
);
