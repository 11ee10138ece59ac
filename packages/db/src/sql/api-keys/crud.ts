/**
 * Users' api keys (CONTRACT §6.10). Every function takes the connection or transaction first;
 * the lookup behind `Authorization: Bearer hub_…` is a prepared statement like the token path's.
 */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { apiKeys, users, type ApiKey } from "../../schema";
import * as events from "../events/crud";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";

/** `last_used_at` is written by the first use after this many seconds or more, never on every request. */
export const API_KEY_LAST_USED_RESOLUTION_SECONDS = 60;

/** Whether the key's `last_used_at` is due to be written (PostgreSQL's clock, as every write of it). */
const lastUsedIsStale = sql`(${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < now() - ${sql.raw(`interval '${API_KEY_LAST_USED_RESOLUTION_SECONDS} seconds'`)})`;

/**
 * The lookup behind a request authenticated by an api key, as a named prepared statement: the
 * key's unique digest index, joined with its user. A key answers while not revoked and its user is
 * active, expired or not: the API refuses an expired one with its own message (CONTRACT §6.11). The API keeps what it found only while PostgreSQL's
 * `hub_credentials_changed` notifications (migration 0010) can tell it of a revocation or a
 * deactivation, and uses a kept key only until its `expiresAt`; `lastUsedAt` tells it when
 * {@link touchLastUsed} is due.
 */
export function prepareLookup(executor: Executor) {
  const db = queryBuilder(executor);
  return db
    .select({
      apiKeyId: apiKeys.id,
      expiresAt: apiKeys.expiresAt,
      lastUsedAt: apiKeys.lastUsedAt,
      keyAutomationIds: apiKeys.automationIds,
      readOnly: apiKeys.readOnly,
      actsAsRole: apiKeys.actsAsRole,
      id: users.id,
      email: users.email,
      role: users.role,
      isActive: users.isActive,
      createdAt: users.createdAt,
      sectorIds: users.sectorIds,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(
      and(
        eq(apiKeys.digest, sql.placeholder("digest")),
        isNull(apiKeys.revokedAt),
        // An expired key is found too: the caller refuses it with its own answer ("Api key expired").
        eq(users.isActive, true),
      ),
    )
    .prepare("auth_api_key_by_digest");
}

export type ApiKeyLookup = ReturnType<typeof prepareLookup>;

/**
 * Sets `last_used_at` to now unless it was written less than
 * {@link API_KEY_LAST_USED_RESOLUTION_SECONDS} ago. Of many requests racing here, the first
 * writes; the others wait for its row lock, re-check the condition against the new value and
 * write nothing. True when this call wrote.
 */
export async function touchLastUsed(executor: Executor, id: string): Promise<boolean> {
  const db = queryBuilder(executor);
  const rows = await db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.id, id), lastUsedIsStale))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}

/** What a list shows of a key: never its digest. */
export type ApiKeyListing = Pick<
  ApiKey,
  "id" | "userId" | "name" | "prefix" | "createdAt" | "expiresAt" | "lastUsedAt" | "automationIds" | "readOnly" | "actsAsRole"
>;

const listingColumns = {
  id: apiKeys.id,
  userId: apiKeys.userId,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  createdAt: apiKeys.createdAt,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  automationIds: apiKeys.automationIds,
  readOnly: apiKeys.readOnly,
  actsAsRole: apiKeys.actsAsRole,
};

export interface NewApiKey {
  userId: string;
  name: string;
  prefix: string;
  digest: string;
  /** The key expires this many days after its creation (PostgreSQL's clock). */
  expiresInDays: number;
  /** Scopes, fixed for the key's life (CONTRACT §6.22); the caller checked them against its user's reach. */
  automationIds?: readonly string[] | null | undefined;
  readOnly?: boolean | undefined;
  actsAsRole?: "employee" | null | undefined;
}

/** Inserts a key and its `api_key.created` event; `actorId` is the user creating it. */
export async function insert(executor: Executor, key: NewApiKey, actorId: string): Promise<{ id: string; expiresAt: Date }> {
  const tx = queryBuilder(executor);
  const [row] = await tx
    .insert(apiKeys)
    .values({
      userId: key.userId,
      name: key.name,
      prefix: key.prefix,
      digest: key.digest,
      expiresAt: sql`now() + make_interval(days => ${key.expiresInDays}::int)`,
      automationIds: key.automationIds ? [...key.automationIds] : null,
      readOnly: key.readOnly ?? false,
      actsAsRole: key.actsAsRole ?? null,
    })
    .returning({ id: apiKeys.id, expiresAt: apiKeys.expiresAt });
  if (!row) throw new Error("insert into api_keys returned no row");
  await events.record(executor, {
    eventType: "api_key.created",
    aggregateId: row.id,
    actorId,
    payload: { user_id: key.userId, name: key.name, prefix: key.prefix },
  });
  return row;
}

/**
 * Revokes a key that is not revoked yet, with its `api_key.revoked` event; `ownerId` (when given)
 * must own it. Undefined when no such key: unknown, already revoked, or another user's. The row
 * lock makes concurrent revocations of one key succeed exactly once.
 */
export async function revoke(executor: Executor, target: { id: string; ownerId?: string | undefined }, actorId: string): Promise<ApiKeyListing | undefined> {
  const tx = queryBuilder(executor);
  const [row] = await tx
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.id, target.id), isNull(apiKeys.revokedAt), target.ownerId === undefined ? undefined : eq(apiKeys.userId, target.ownerId)))
    .returning(listingColumns);
  if (!row) return undefined;
  await events.record(executor, {
    eventType: "api_key.revoked",
    aggregateId: row.id,
    actorId,
    payload: { user_id: row.userId, name: row.name, prefix: row.prefix },
  });
  return row;
}

/** GET /identity/api-keys: newest first by (created_at, id). */
export const API_KEYS_LIST_ORDER: KeysetOrder = { createdAt: apiKeys.createdAt, id: apiKeys.id, direction: "newest first" };

/** Which keys a list shows; every filter given must hold. Revoked keys are never listed; expired ones are. */
export interface ApiKeyFilter {
  userId?: string | undefined;
  prefix?: string | undefined;
  /** One key only (a caller authenticated by that key). */
  id?: string | undefined;
}

/** One page of the keys matching `filter`. */
export async function listPage(executor: Executor, filter: ApiKeyFilter, page: KeysetPageRequest): Promise<KeysetPage<ApiKeyListing>> {
  const db = queryBuilder(executor);
  const conditions: SQL[] = [isNull(apiKeys.revokedAt)];
  if (filter.userId !== undefined) conditions.push(eq(apiKeys.userId, filter.userId));
  if (filter.prefix !== undefined) conditions.push(eq(apiKeys.prefix, filter.prefix));
  if (filter.id !== undefined) conditions.push(eq(apiKeys.id, filter.id));
  return keysetPage(
    API_KEYS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select(listingColumns)
        .from(apiKeys)
        .where(and(...conditions, after))
        .orderBy(...orderBy)
        .limit(limit),
    (key) => key,
  );
}
