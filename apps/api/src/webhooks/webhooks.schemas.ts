import { z } from "zod";
import { EVENT_TYPES, pydanticIssue, uuid } from "@hub/shared";
import { WEBHOOK_FORMATS, WEBHOOK_URL_MAX_LENGTH } from "@hub/shared/webhooks";
import { pageQueryShape } from "../http/pagination";

export const webhookIdParams = z.object({ webhook_id: uuid() });
export const webhookDeliveryParams = z.object({ webhook_id: uuid(), delivery_id: uuid() });

export const listWebhooksQuery = z.object(pageQueryShape());
export const listWebhookDeliveriesQuery = z.object(pageQueryShape());

/** Every event type of the catalogue (CONTRACT §4), or `*` alone. */
export const WEBHOOK_ALL_EVENTS = "*";

export const createWebhookBody = z
  .object({
    url: z
      .string()
      .min(1)
      .max(WEBHOOK_URL_MAX_LENGTH)
      .describe(
        "https:// URL (http:// only with HUB_WEBHOOKS_ALLOW_INSECURE), no user name or password; its host must resolve to public addresses only (HUB_WEBHOOKS_ALLOW_PRIVATE lifts that). Checked after the other fields.",
      ),
    event_types: z
      .array(z.enum([WEBHOOK_ALL_EVENTS, ...EVENT_TYPES]))
      .min(1)
      .superRefine((types, ctx) => {
        if (types.includes(WEBHOOK_ALL_EVENTS) && types.length > 1) {
          ctx.addIssue({ code: "custom", ...pydanticIssue("value_error", 'Value error, "*" (every event type) stands alone') });
        }
      })
      .transform((types) => [...new Set(types)])
      .describe('Catalogue event types to deliver, or ["*"] for all of them; duplicates are ignored'),
    description: z.string().max(1000).default(""),
    format: z
      .enum(WEBHOOK_FORMATS)
      .default("standard")
      .describe(
        'standard (the default): the event record of GET /events; slack: {"text": <sentence>}, which Slack, Mattermost and Microsoft Teams incoming webhooks take (an alert\'s message for alert.*, one line for every other event). Signed the same way either way.',
      ),
  })
  .meta({ id: "CreateWebhookRequest" });
export type CreateWebhookBody = z.output<typeof createWebhookBody>;

export const webhookSecretResponse = z
  .object({
    id: z.uuid(),
    secret: z.string().describe("`whsec_` + base64 of 32 random bytes: shown this once, never again. Verify deliveries with it (Standard Webhooks)."),
  })
  .meta({ id: "WebhookSecret" });

export const webhookRecord = z
  .object({
    id: z.uuid(),
    url: z.string(),
    event_types: z.array(z.string()),
    description: z.string(),
    format: z.enum(WEBHOOK_FORMATS).describe('The body delivered: standard (the event record) or slack ({"text": …})'),
    status: z.enum(["active", "disabled"]).describe("`disabled` once its deliveries had failed for 24 h: nothing is delivered to it any more"),
    created_at: z.iso.datetime(),
    disabled_at: z.iso.datetime().nullable(),
    failing_since: z.iso.datetime().nullable().describe("First failed attempt since the last delivered one; null while deliveries succeed"),
    previous_secret_expires_at: z.iso
      .datetime()
      .nullable()
      .describe("After a rotation, until when deliveries are also signed with the replaced secret; null when none is"),
  })
  .meta({ id: "Webhook", description: "A subscription: events of these types are delivered to this URL, signed" });
export type WebhookRecord = z.infer<typeof webhookRecord>;

export const webhookDeliveryRecord = z
  .object({
    id: z.uuid(),
    event_id: z.uuid(),
    event_type: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.int(),
    last_status_code: z.int().nullable(),
    last_error: z.string().nullable(),
    next_attempt_at: z.iso.datetime().nullable().describe("When the next attempt is due; null once delivered or failed"),
    delivered_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "WebhookDelivery", description: "One event to deliver to one subscription, and how its attempts went" });
export type WebhookDeliveryRecord = z.infer<typeof webhookDeliveryRecord>;
