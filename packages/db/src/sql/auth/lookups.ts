/** The lookups behind authentication (apps/api/src/http/auth.ts). */
import { and, eq, isNull, or, sql } from "drizzle-orm";
import { users, workers } from "../../schema";
import { queryBuilder, type Executor } from "../../executor";

/**
 * The two lookups every authenticated request makes, as named prepared statements: built once,
 * parsed and planned once per connection instead of on every request.
 */
export function prepareLookups(executor: Executor) {
  const db = queryBuilder(executor);
  return {
    userById: db
      .select({
        id: users.id,
        email: users.email,
        role: users.role,
        isActive: users.isActive,
        createdAt: users.createdAt,
        credentialGeneration: users.credentialGeneration,
        sectorIds: users.sectorIds,
      })
      .from(users)
      .where(eq(users.id, sql.placeholder("id")))
      .prepare("auth_user_by_id"),
    workerByKeyHash: db
      .select({
        id: workers.id,
        automationId: workers.automationId,
        cloudInstanceId: workers.cloudInstanceId,
        status: workers.status,
        lastSeenAt: workers.lastSeenAt,
        apiKeyHash: workers.apiKeyHash,
        previousApiKeyHash: workers.previousApiKeyHash,
        previousApiKeyExpiresAt: workers.previousApiKeyExpiresAt,
      })
      .from(workers)
      // The current key, or the previous one of a rotation with overlap (its expiry is the caller's to check).
      .where(
        and(or(eq(workers.apiKeyHash, sql.placeholder("keyHash")), eq(workers.previousApiKeyHash, sql.placeholder("keyHash"))), isNull(workers.unregisteredAt)),
      )
      .prepare("auth_worker_by_key_hash"),
  };
}

export type AuthLookups = ReturnType<typeof prepareLookups>;
