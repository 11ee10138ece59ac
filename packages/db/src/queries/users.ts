/** Data access for hub users. Every function takes the connection or transaction first. */
import { and, count, eq, sql } from "drizzle-orm";
import type { Role } from "@hub/shared";
import type { DbOrTx } from "../client";
import { users, type User } from "../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "./pagination";

/** The columns a user may be shown with: never the password hash. */
const publicColumns = {
  id: users.id,
  email: users.email,
  role: users.role,
  isActive: users.isActive,
  createdAt: users.createdAt,
};

export type PublicUser = Pick<User, "id" | "email" | "role" | "isActive" | "createdAt">;

/** Inserts a user; the caller hashes the password and lower-cases the e-mail. Throws on a taken e-mail. */
export async function insertUser(db: DbOrTx, user: { email: string; passwordHash: string; role: Role }): Promise<{ id: string }> {
  const [row] = await db.insert(users).values(user).returning({ id: users.id });
  if (!row) throw new Error("insert into users returned no row");
  return row;
}

/** The login view of a user (with the hash), active or not; `email` must already be lower-case. */
export async function findUserCredentialsByEmail(db: DbOrTx, email: string) {
  const [row] = await db
    .select({ id: users.id, role: users.role, isActive: users.isActive, passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.email, email));
  return row;
}

/** Whether any user, active or not, holds `email` (lower-case). */
export async function emailIsTaken(db: DbOrTx, email: string): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return row !== undefined;
}

export async function findActiveUser(db: DbOrTx, id: string): Promise<PublicUser | undefined> {
  const [row] = await db
    .select(publicColumns)
    .from(users)
    .where(and(eq(users.id, id), eq(users.isActive, true)));
  return row;
}

/** GET /identity/users: oldest first by (created_at, id). */
export const USERS_LIST_ORDER: KeysetOrder = { createdAt: users.createdAt, id: users.id, direction: "oldest first" };

/** One page of the active users. */
export async function listActiveUsers(db: DbOrTx, page: KeysetPageRequest): Promise<KeysetPage<PublicUser>> {
  return keysetPage(
    USERS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select(publicColumns)
        .from(users)
        .where(and(eq(users.isActive, true), after))
        .orderBy(...orderBy)
        .limit(limit),
    (user) => user,
  );
}

/**
 * Marks an active user inactive; undefined when the user is unknown or already inactive. The
 * row lock makes concurrent deactivations of one user succeed exactly once.
 */
export async function deactivateActiveUser(db: DbOrTx, id: string): Promise<{ email: string; role: Role } | undefined> {
  const [row] = await db
    .update(users)
    .set({ isActive: false, deactivatedAt: sql`now()` })
    .where(and(eq(users.id, id), eq(users.isActive, true)))
    .returning({ email: users.email, role: users.role });
  return row;
}

/**
 * Serialises admin deactivations until the transaction ends (a transaction-level advisory lock),
 * so two admins deactivating each other at once cannot both see the other still active.
 */
export async function lockAdminDeactivations(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('hub:admin-deactivation'))`);
}

/** Active admins as of this statement (read committed: it sees deactivations committed before it). */
export async function countActiveAdmins(tx: DbOrTx): Promise<number> {
  const [row] = await tx
    .select({ admins: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), eq(users.isActive, true)));
  return row?.admins ?? 0;
}
