import {
  countActiveAdmins,
  deactivateActiveUser,
  findActiveUser,
  insertUser,
  isUniqueViolation,
  listActiveUsers,
  lockAdminDeactivations,
  recordEvent,
  type Db,
  type KeysetPage,
  type KeysetPageRequest,
  type PublicUser,
} from "@hub/db";
import { ConflictError, ForbiddenError, NotFoundError } from "@hub/shared";
import type { CreateUserInput, UserRecord } from "./identity.schemas";
import { hashPassword } from "./passwords";

export function toUserRecord(user: PublicUser): UserRecord {
  return { id: user.id, email: user.email, role: user.role, is_active: user.isActive, created_at: user.createdAt.toISOString() };
}

/**
 * Creates a user and its `user.created` event in one transaction. `input.email` is already
 * lower-case; `actorId` is null when the hub itself creates the user (first admin).
 * Throws {@link ConflictError} when the e-mail is taken, by an active or a deactivated user.
 */
export async function createUser(db: Db, input: CreateUserInput, actorId: string | null): Promise<string> {
  // Hashed before the transaction: ~60 ms of bcrypt must not hold a connection and its locks.
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.transaction(async (tx) => {
      const { id } = await insertUser(tx, { email: input.email, passwordHash, role: input.role });
      await recordEvent(tx, { eventType: "user.created", aggregateId: id, actorId, payload: { email: input.email, role: input.role } });
      return id;
    });
  } catch (error) {
    if (isUniqueViolation(error, "users_email_key")) throw new ConflictError(`A user with e-mail '${input.email}' already exists`);
    throw error;
  }
}

/** One page of the active users, oldest first. */
export async function listUsers(db: Db, page: KeysetPageRequest): Promise<KeysetPage<UserRecord>> {
  const { items, next } = await listActiveUsers(db, page);
  return { items: items.map(toUserRecord), next };
}

/** An active user; deactivated users are gone from lookups (INTERFACE §3). */
export async function getUser(db: Db, id: string): Promise<UserRecord> {
  const user = await findActiveUser(db, id);
  if (!user) throw new NotFoundError("User not found");
  return toUserRecord(user);
}

/**
 * Deactivates `targetId` with its `user.deactivated` event; an admin cannot deactivate themself,
 * and the hub always keeps one active admin (409, CONTRACT §6.1). The count runs after the update
 * and under the admin-deactivation lock, so of two admins deactivating each other at once, the
 * second sees the first's committed change and is refused.
 */
export async function deactivateUser(db: Db, targetId: string, actorId: string): Promise<void> {
  if (targetId === actorId) throw new ForbiddenError("You cannot deactivate your own account");
  await db.transaction(async (tx) => {
    const user = await deactivateActiveUser(tx, targetId);
    if (!user) throw new NotFoundError("User not found");
    if (user.role === "admin") {
      await lockAdminDeactivations(tx);
      if ((await countActiveAdmins(tx)) === 0) throw new ConflictError("The hub must keep at least one active admin");
    }
    await recordEvent(tx, { eventType: "user.deactivated", aggregateId: targetId, actorId, payload: { email: user.email, role: user.role } });
  });
}
