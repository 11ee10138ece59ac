import { z } from "zod";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import {
  createWebhookBody,
  listWebhookDeliveriesQuery,
  listWebhooksQuery,
  webhookDeliveryParams,
  webhookDeliveryRecord,
  webhookIdParams,
  webhookRecord,
  webhookSecretResponse,
} from "./webhooks.schemas";
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, redeliver, rotateSecret } from "./webhooks.service";

const NOT_CONFIGURED = { description: "HUB_WEBHOOK_ENCRYPTION_KEY is not set on this hub" };

export const webhookRoutes = [
  defineRoute({
    method: "post",
    path: "/webhooks",
    operationId: "createWebhook",
    secretInResponse: "key",
    summary: "Subscribe an endpoint to events",
    description:
      'Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). The secret is shown in this answer only. A URL that is not https://, or whose host resolves to a loopback, private or link-local address, is a 422 on ["body","url"] (unless the hub allows them for development).',
    tag: "webhooks",
    auth: "admin",
    body: createWebhookBody,
    example: { url: "https://hooks.example.com/hub", event_types: ["job.failed", "worker.status_changed"], description: "Alert the on-call channel" },
    responses: { 201: { description: "Created; keep the secret", schema: webhookSecretResponse }, 503: NOT_CONFIGURED },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: await createWebhook(ctx, body, caller.user.id) }),
  }),
  defineRoute({
    method: "get",
    path: "/webhooks",
    operationId: "listWebhooks",
    summary: "List webhook subscriptions",
    description: "Every subscription not deleted, active or disabled; never a secret.",
    tag: "webhooks",
    auth: "admin",
    query: listWebhooksQuery,
    paginated: true,
    responses: { 200: { description: `Subscriptions, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(webhookRecord) } },
    handler: async ({ query, after, ctx }) => {
      const page = await listWebhooks(ctx, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/webhooks/{webhook_id}",
    operationId: "getWebhook",
    summary: "Get a webhook subscription",
    description: "One subscription: its URL, event types, status and failure streak; never its secret.",
    tag: "webhooks",
    auth: "admin",
    params: webhookIdParams,
    responses: { 200: { description: "The subscription", schema: webhookRecord }, 404: { description: "Unknown or deleted subscription" } },
    handler: async ({ params, ctx }) => ({ status: 200, body: await getWebhook(ctx, params.webhook_id) }),
  }),
  defineRoute({
    method: "delete",
    path: "/webhooks/{webhook_id}",
    operationId: "deleteWebhook",
    summary: "Delete a webhook subscription",
    description: "Nothing more is delivered to it; its pending deliveries end failed. Writes webhook.deleted.",
    tag: "webhooks",
    auth: "admin",
    params: webhookIdParams,
    responses: { 204: { description: "Deleted" }, 404: { description: "Unknown or already deleted subscription" } },
    handler: async ({ params, caller, ctx }) => {
      await deleteWebhook(ctx, params.webhook_id, caller.user.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/webhooks/{webhook_id}/secret",
    operationId: "rotateWebhookSecret",
    secretInResponse: "key",
    summary: "Rotate a webhook's signing secret",
    description:
      "Answers the new secret, once. For 24 h every delivery carries two signatures (new and replaced secret, space-separated in webhook-signature), so the receiver can switch without losing a delivery.",
    tag: "webhooks",
    auth: "admin",
    params: webhookIdParams,
    responses: {
      200: { description: "The new secret", schema: webhookSecretResponse },
      404: { description: "Unknown or deleted subscription" },
      503: NOT_CONFIGURED,
    },
    handler: async ({ params, ctx }) => ({ status: 200, body: await rotateSecret(ctx, params.webhook_id) }),
  }),
  defineRoute({
    method: "get",
    path: "/webhooks/{webhook_id}/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "A webhook's delivery log",
    description:
      "Deliveries to this subscription, newest first, a page at a time: status (pending, delivered, failed), attempts, the last status code or error, and when the next attempt is due.",
    tag: "webhooks",
    auth: "admin",
    params: webhookIdParams,
    query: listWebhookDeliveriesQuery,
    paginated: true,
    responses: {
      200: { description: `Deliveries, newest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(webhookDeliveryRecord) },
      404: { description: "Unknown or deleted subscription" },
    },
    handler: async ({ params, query, after, ctx }) => {
      const page = await listDeliveries(ctx, params.webhook_id, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "post",
    path: "/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
    operationId: "redeliverWebhookDelivery",
    summary: "Deliver again",
    description:
      "The delivery becomes pending and due now, its retry schedule starting over (attempts keep counting); it still waits for earlier pending deliveries of the same aggregate.",
    tag: "webhooks",
    auth: "admin",
    params: webhookDeliveryParams,
    responses: {
      202: { description: "Queued for delivery" },
      404: { description: "Unknown subscription or delivery" },
      409: { description: "The subscription is disabled" },
    },
    handler: async ({ params, ctx }) => {
      await redeliver(ctx, params.webhook_id, params.delivery_id);
      return { status: 202 };
    },
  }),
];
