/** Arrange helpers for the api key tests (CONTRACT §6.10). */
import { eq, sql } from "drizzle-orm";
import { schema } from "@hub/db";
import type { TestHub } from "./harness";

export interface CreatedKey {
  id: string;
  key: string;
  expires_at: string;
}

let sequence = 0;

/** POST /identity/api-keys that must succeed, as the holder of `token`. */
export async function createApiKey(hub: TestHub, token: string, body: Record<string, unknown> = {}): Promise<CreatedKey> {
  sequence += 1;
  const created = await hub.client.post<CreatedKey>("/identity/api-keys", { name: `program ${sequence}`, ...body }, { token });
  if (created.status !== 201) throw new Error(`api key not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body;
}

/** The key's row as stored. */
export async function storedApiKey(hub: TestHub, id: string) {
  const [row] = await hub.api.ctx.database.db.select().from(schema.apiKeys).where(eq(schema.apiKeys.id, id));
  if (!row) throw new Error(`no api key ${id}`);
  return row;
}

/**
 * Moves a key's expiry into the past, as if its days had run out. The API may have the key cached:
 * the change's `hub_credentials_changed` notification empties that cache a moment later, on its own
 * connection (credential-changes.test.ts tests that path), so this empties it now, as the
 * notification will, and the next request reads the key again.
 */
export async function expireApiKey(hub: TestHub, id: string): Promise<void> {
  await hub.api.ctx.database.db
    .update(schema.apiKeys)
    .set({ expiresAt: sql`now() - interval '1 second'` })
    .where(eq(schema.apiKeys.id, id));
  hub.api.ctx.auth.forgetCredentials();
}
