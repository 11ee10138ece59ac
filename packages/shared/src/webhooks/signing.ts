/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, CONTRACT §6.7): the secret is
 * `whsec_` + base64 of 32 random bytes; a delivery's `webhook-signature` is `v1,` + base64
 * HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the secret's decoded
 * bytes; several signatures (during a rotation) are separated by spaces.
 */
import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

/** A new signing secret, `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** One `v1,<base64>` signature of a delivery. */
export function signWebhookPayload(secret: string, message: { id: string; timestamp: number; body: string }): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
  const digest = createHmac("sha256", key).update(`${message.id}.${message.timestamp}.${message.body}`).digest("base64");
  return `v1,${digest}`;
}

/** The `webhook-signature` header: one signature per secret, space-separated (newest secret first). */
export function webhookSignatureHeader(secrets: readonly string[], message: { id: string; timestamp: number; body: string }): string {
  return secrets.map((secret) => signWebhookPayload(secret, message)).join(" ");
}
