/**
 * Webhook signing secrets at rest: AES-256-GCM under HUB_WEBHOOK_ENCRYPTION_KEY (32 bytes, given
 * as base64 or hex). The relay must sign with the secret itself, so it cannot be hashed like an api
 * key; encrypted, a copy of the database (a backup, a replica, a leaked dump) does not give the
 * secrets away without the key, which lives only in the environment of the API and the relays.
 *
 * Form: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id (the first 8
 * characters of the key's SHA-256) tells a wrong key apart from damaged data. The subscription's
 * id is the additional authenticated data, so a ciphertext copied onto another row does not
 * decrypt there.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;
const KEY_BYTES = 32;

/** Parses HUB_WEBHOOK_ENCRYPTION_KEY: 32 bytes as base64 (44 characters) or hex (64); undefined when it is neither. */
export function parseWebhookEncryptionKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed, trimmed.includes("-") || trimmed.includes("_") ? "base64url" : "base64");
    if (key.length === KEY_BYTES) return key;
  }
  return undefined;
}

export class WebhookSecretDecryptionError extends Error {
  constructor(reason: string) {
    super(`the webhook secret cannot be decrypted: ${reason}`);
    this.name = "WebhookSecretDecryptionError";
  }
}

/** Encrypts and decrypts the signing secrets of subscriptions with one key. */
export class WebhookSecretBox {
  private readonly keyId: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`a webhook encryption key has ${KEY_BYTES} bytes`);
    this.keyId = createHash("sha256").update(key).digest("base64url").slice(0, 8);
  }

  seal(webhookId: string, secret: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(webhookId));
    const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return [VERSION, this.keyId, iv.toString("base64url"), ciphertext.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
  }

  open(webhookId: string, sealed: string): string {
    const [version, keyId, iv, ciphertext, tag, ...rest] = sealed.split(".");
    if (version !== VERSION || !keyId || !iv || !ciphertext || !tag || rest.length > 0) throw new WebhookSecretDecryptionError("unknown format");
    if (keyId !== this.keyId) throw new WebhookSecretDecryptionError("it was encrypted with another HUB_WEBHOOK_ENCRYPTION_KEY");
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(webhookId));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      throw new WebhookSecretDecryptionError("the data or its subscription does not match");
    }
  }
}
