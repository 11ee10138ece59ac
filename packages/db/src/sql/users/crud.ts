/** Data access for hub users. Every function takes the connection or transaction first. */
import { and, count, eq, sql } from "drizzle-orm";
import type { Role } from "@hub/shared";
import { users, type User } from "../../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";

/** The columns a user may be shown with: never the password hash. */
const publicColumns = {
  id: users.id,
  email: users.email,
  role: users.role,
  isActive: users.isActive,
  createdAt: users.createdAt,
  sectorIds: users.sectorIds,
};

export type PublicUser = Pick<User, "id" | "email" | "role" | "isActive" | "createdAt" | "sectorIds">;

/** Inserts a user; the caller hashes the password and lower-cases the e-mail. Throws on a taken e-mail. */
export async function insert(
  executor: Executor,
  user: { email: string; passwordHash: string; role: Role; sectorIds?: readonly string[] | null | undefined },
): Promise<{ id: string }> {
  const db = queryBuilder(executor);
  const [row] = await db
    .insert(users)
    .values({ ...user, sectorIds: user.sectorIds ? [...user.sectorIds] : null })
    .returning({ id: users.id });
  if (!row) throw new Error("insert into users returned no row");
  return row;
}

/** What signing in needs of a user: its hash, whether it may sign in, what its token carries. */
const credentialColumns = {
  id: users.id,
  role: users.role,
  isActive: users.isActive,
  passwordHash: users.passwordHash,
  credentialGeneration: users.credentialGeneration,
};

/** The login view of a user (with the hash), active or not; `email` must already be lower-case. */
export async function findCredentialsByEmail(executor: Executor, email: string) {
  const db = queryBuilder(executor);
  const [row] = await db.select(credentialColumns).from(users).where(eq(users.email, email));
  return row;
}

/** The login view of a user by id, active or not. */
export async function findCredentialsById(executor: Executor, id: string) {
  const db = queryBuilder(executor);
  const [row] = await db.select(credentialColumns).from(users).where(eq(users.id, id));
  return row;
}

/** A user, active or not (`email` lower-case). */
export async function findByEmail(executor: Executor, email: string): Promise<PublicUser | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db.select(publicColumns).from(users).where(eq(users.email, email));
  return row;
}

/** A user, active or not. */
export async function find(executor: Executor, id: string): Promise<PublicUser | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db.select(publicColumns).from(users).where(eq(users.id, id));
  return row;
}

/**
 * An active user, its row locked until the transaction ends: a role change reads the role it
 * replaces under the same lock that deactivations take on the row.
 */
export async function lockActiveUser(executor: Executor, id: string): Promise<PublicUser | undefined> {
  const tx = queryBuilder(executor);
  const [row] = await tx
    .select(publicColumns)
    .from(users)
    .where(and(eq(users.id, id), eq(users.isActive, true)))
    .for("update");
  return row;
}

/** Adds 1 to the credential generation: every login token issued before is refused (CONTRACT §6.11). */
const nextCredentialGeneration = sql`${users.credentialGeneration} + 1`;

/**
 * Replaces an active user's password hash and starts a new credential generation; undefined when
 * the user is unknown or deactivated, or (given `fromGeneration`) has moved past that generation.
 * The new generation is returned for the token to carry.
 */
export async function setActiveUserPassword(
  executor: Executor,
  id: string,
  passwordHash: string,
  fromGeneration?: number,
): Promise<{ email: string; role: Role; credentialGeneration: number } | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db
    .update(users)
    .set({ passwordHash, credentialGeneration: nextCredentialGeneration })
    .where(and(eq(users.id, id), eq(users.isActive, true), fromGeneration === undefined ? undefined : eq(users.credentialGeneration, fromGeneration)))
    .returning({ email: users.email, role: users.role, credentialGeneration: users.credentialGeneration });
  return row;
}

/**
 * The break-glass reset (`reset-password`): replaces the password of the user with this e-mail,
 * active or not, and starts a new credential generation; undefined for an unknown e-mail.
 */
export async function setPasswordByEmail(executor: Executor, email: string, passwordHash: string): Promise<{ id: string; isActive: boolean } | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db
    .update(users)
    .set({ passwordHash, credentialGeneration: nextCredentialGeneration })
    .where(eq(users.email, email))
    .returning({ id: users.id, isActive: users.isActive });
  return row;
}

/** Gives an active user another role and starts a new credential generation. */
export async function setActiveUserRole(executor: Executor, id: string, role: Role): Promise<PublicUser | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db
    .update(users)
    .set({ role, credentialGeneration: nextCredentialGeneration })
    .where(and(eq(users.id, id), eq(users.isActive, true)))
    .returning(publicColumns);
  return row;
}

/**
 * Gives an active user other sectors (CONTRACT §6.22); no new credential generation: the trigger of
 * migration 0026 empties every process's credential cache, so the new reach governs within 1 s.
 */
export async function setActiveUserSectors(executor: Executor, id: string, sectorIds: readonly string[] | null): Promise<PublicUser | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db
    .update(users)
    .set({ sectorIds: sectorIds ? [...sectorIds] : null })
    .where(and(eq(users.id, id), eq(users.isActive, true)))
    .returning(publicColumns);
  return row;
}

/** The ids of `ids` that name no sector (each once, in input order). */
export async function unknownSectorIds(executor: Executor, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await executor.query<{ id: string }>({ text: "select id::text from sectors where id = any($1::uuid[])", values: [[...ids]] });
  const known = new Set(rows.map((row) => row.id.toLowerCase()));
  return ids.filter((id) => !known.has(id.toLowerCase()));
}

/** The ids among `ids` of active users, lower-case (an automation's approvers, CONTRACT §6.17). */
export async function activeUserIdsAmong(executor: Executor, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await executor.query<{ id: string }>({ text: "select id::text from users where id = any($1::uuid[]) and is_active", values: [[...ids]] });
  return new Set(rows.map((row) => row.id.toLowerCase()));
}

/**
 * Makes a deactivated user active again, with its password and credential generation as they
 * were; undefined when the user is unknown or already active.
 */
export async function reactivateInactiveUser(executor: Executor, id: string): Promise<PublicUser | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db
    .update(users)
    .set({ isActive: true, deactivatedAt: null })
    .where(and(eq(users.id, id), eq(users.isActive, false)))
    .returning(publicColumns);
  return row;
}

/** Whether any user, active or not, holds `email` (lower-case). */
export async function emailIsTaken(executor: Executor, email: string): Promise<boolean> {
  const db = queryBuilder(executor);
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return row !== undefined;
}

export async function findActiveUser(executor: Executor, id: string): Promise<PublicUser | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db
    .select(publicColumns)
    .from(users)
    .where(and(eq(users.id, id), eq(users.isActive, true)));
  return row;
}

/** GET /identity/users: oldest first by (created_at, id). */
export const USERS_LIST_ORDER: KeysetOrder = { createdAt: users.createdAt, id: users.id, direction: "oldest first" };

/** One page of the active users, or of every user with `includeInactive`. */
export async function listPage(executor: Executor, page: KeysetPageRequest, options: { includeInactive: boolean }): Promise<KeysetPage<PublicUser>> {
  const db = queryBuilder(executor);
  return keysetPage(
    USERS_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select(publicColumns)
        .from(users)
        .where(options.includeInactive ? after : and(eq(users.isActive, true), after))
        .orderBy(...orderBy)
        .limit(limit),
    (user) => user,
  );
}

/**
 * Marks an active user inactive and starts a new credential generation (its tokens stay refused
 * after a reactivation); undefined when the user is unknown or already inactive. The row lock
 * makes concurrent deactivations of one user succeed exactly once.
 */
export async function deactivateActiveUser(executor: Executor, id: string): Promise<{ email: string; role: Role } | undefined> {
  const db = queryBuilder(executor);
  const [row] = await db
    .update(users)
    .set({ isActive: false, deactivatedAt: sql`now()`, credentialGeneration: nextCredentialGeneration })
    .where(and(eq(users.id, id), eq(users.isActive, true)))
    .returning({ email: users.email, role: users.role });
  return row;
}

/**
 * Serialises admin deactivations and demotions until the transaction ends (a transaction-level advisory lock),
 * so two admins deactivating each other at once cannot both see the other still active.
 */
export async function lockAdminDeactivations(executor: Executor): Promise<void> {
  const tx = queryBuilder(executor);
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('hub:admin-deactivation'))`);
}

/** Active admins as of this statement (read committed: it sees deactivations committed before it). */
export async function countActiveAdmins(executor: Executor): Promise<number> {
  const tx = queryBuilder(executor);
  const [row] = await tx
    .select({ admins: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), eq(users.isActive, true)));
  return row?.admins ?? 0;
}
