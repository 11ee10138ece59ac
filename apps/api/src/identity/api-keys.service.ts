/**
 * Users' api keys for programs (CONTRACT §6.10): created with a login token, listed and revoked
 * by their user (admins: anyone's). How a key authenticates is in ../http/auth.ts.
 */
import { type KeysetPage, type KeysetPageRequest, apiKeys, automations, withTransaction, type Executor } from "@hub/db";
import type { ValidationIssue } from "@hub/shared";
import { ForbiddenError, NotFoundError, RequestValidationError } from "../http/http-errors";
import type { UserCaller } from "../http/auth";
import { hashApiKey, newSecretKey, shownPrefixOf, USER_API_KEY_PREFIX } from "./secret-keys";
import type { ApiKeyRecord, CreateApiKeyBody, CreatedApiKey, ListApiKeysQuery } from "./api-keys.schemas";

export function toApiKeyRecord(key: apiKeys.ApiKeyListing): ApiKeyRecord {
  return {
    id: key.id,
    user_id: key.userId,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    expires_at: key.expiresAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    automation_ids: key.automationIds ?? null,
    read_only: key.readOnly,
    role: key.actsAsRole ?? null,
  };
}

/**
 * The scopes' checks against stored data (CONTRACT §6.22): every automation must exist within what
 * the caller reaches, and only an admin's key may act as an employee. Every problem at once.
 */
async function scopeIssues(db: Executor, caller: UserCaller, input: CreateApiKeyBody): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  if (input.role !== null && caller.user.role !== "admin") {
    issues.push({ loc: ["body", "role"], msg: "Value error, only an admin's key can act as another role", type: "value_error" });
  }
  if (input.automation_ids) {
    const reached = await automations.reachedAmong(db, caller.reach, input.automation_ids);
    input.automation_ids.forEach((id, index) => {
      if (!reached.has(id.toLowerCase()))
        issues.push({ loc: ["body", "automation_ids", index], msg: "Value error, automation not found", type: "value_error" });
    });
  }
  return issues;
}

/** Mints a key for the caller with its scopes and its `api_key.created` event; the key is in this answer only. */
export async function createApiKey(db: Executor, caller: UserCaller, input: CreateApiKeyBody): Promise<CreatedApiKey> {
  const issues = await scopeIssues(db, caller, input);
  if (issues.length > 0) throw new RequestValidationError(issues);
  const userId = caller.user.id;
  const key = newSecretKey(USER_API_KEY_PREFIX);
  const created = await withTransaction(db, (tx) =>
    apiKeys.insert(
      tx,
      {
        userId,
        name: input.name,
        prefix: shownPrefixOf(key),
        digest: hashApiKey(key),
        expiresInDays: input.expires_in_days,
        automationIds: input.automation_ids?.map((id) => id.toLowerCase()) ?? null,
        readOnly: input.read_only,
        actsAsRole: input.role,
      },
      userId,
    ),
  );
  return { id: created.id, key, expires_at: created.expiresAt.toISOString() };
}

/**
 * One page of the keys the caller asked for and may see, newest first. Whose: the caller's own;
 * an admin's `user_id` names another user, `all` (or a `prefix` without `user_id`) every user.
 * A caller authenticated by an api key sees that key only, whatever it asks.
 */
export async function listApiKeys(db: Executor, caller: UserCaller, query: ListApiKeysQuery, page: KeysetPageRequest): Promise<KeysetPage<ApiKeyRecord>> {
  const isAdmin = caller.user.role === "admin";
  if (!isAdmin && query.user_id !== undefined && query.user_id !== caller.user.id) throw new ForbiddenError("Only admins may list another user's api keys");
  if (!isAdmin && query.all) throw new ForbiddenError("Only admins may list every user's api keys");
  const everyUser = isAdmin && (query.all || query.prefix !== undefined);
  const { items, next } = await apiKeys.listPage(
    db,
    { userId: query.user_id ?? (everyUser ? undefined : caller.user.id), prefix: query.prefix, id: caller.apiKeyId },
    page,
  );
  return { items: items.map(toApiKeyRecord), next };
}

/**
 * Revokes a key with its `api_key.revoked` event: the caller's own, or (admins) anyone's. Another
 * user's key, an unknown or an already revoked one → 404. With an api key, only that key (→ 403
 * for any other, before anything is looked up).
 */
export async function revokeApiKeyAsUser(db: Executor, caller: UserCaller, apiKeyId: string): Promise<void> {
  if (caller.apiKeyId !== undefined && caller.apiKeyId !== apiKeyId) throw new ForbiddenError("With an api key, only that same key can be deleted");
  const ownerId = caller.user.role === "admin" ? undefined : caller.user.id;
  const revoked = await withTransaction(db, (tx) => apiKeys.revoke(tx, { id: apiKeyId, ownerId }, caller.user.id));
  if (!revoked) throw new NotFoundError("API key not found");
}
