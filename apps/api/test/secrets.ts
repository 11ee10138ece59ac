/** Assertions that nothing secret leaks into a response body, an event or a log line. */
import { expect } from "vitest";

/** A bcrypt hash anywhere in a text ("$2b$10$…"). */
const BCRYPT_HASH = /\$2[aby]?\$\d{2}\$[./A-Za-z0-9]{53}/;

/** Fails when `value`, serialised, contains any of `secrets`, a bcrypt hash or a password-ish key. */
export function expectNoSecrets(value: unknown, secrets: string[] = []): void {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  for (const secret of secrets) expect(text, "a secret leaked").not.toContain(secret);
  expect(text, "a bcrypt hash leaked").not.toMatch(BCRYPT_HASH);
  expect(text, "a password field leaked").not.toMatch(/"(password|password_hash|passwordHash|api_key_hash|apiKeyHash)"\s*:/);
}
