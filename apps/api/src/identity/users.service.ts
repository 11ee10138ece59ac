import { isUniqueViolation, type KeysetPage, type KeysetPageRequest, events, loginThrottle, users, withTransaction, type Executor } from "@hub/db";
import { ConflictError, ForbiddenError, InvalidBearerTokenError, NotFoundError, RequestValidationError } from "../http/http-errors";
import type { AppContext } from "../context";
import type { ChangeOwnPasswordInput, ChangeUserInput, CreateUserInput, UserRecord } from "./identity.schemas";
import { countLoginAttempt, issueAccessToken, type IssuedToken } from "./login.service";
import { hashPassword, verifyPassword } from "./passwords";

export function toUserRecord(user: users.PublicUser): UserRecord {
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    is_active: user.isActive,
    created_at: user.createdAt.toISOString(),
    sector_ids: user.sectorIds ?? null,
  };
}

/** 422 `value_error` at `["body","sector_ids",k]` for every `sector_ids[k]` that names no sector. */
async function assertSectorsExist(db: Executor, sectorIds: readonly string[] | null | undefined): Promise<void> {
  if (!sectorIds) return;
  const unknown = new Set(await users.unknownSectorIds(db, sectorIds));
  if (unknown.size === 0) return;
  throw new RequestValidationError(
    sectorIds.flatMap((id, index) =>
      unknown.has(id) ? [{ loc: ["body", "sector_ids", index], msg: "Value error, sector not found", type: "value_error" }] : [],
    ),
  );
}

const sameSectors = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((id, index) => id.toLowerCase() === b[index]!.toLowerCase());

/** What an account change needs: the database, and the tokens and caches it invalidates. */
type AccountContext = Pick<AppContext, "database" | "env" | "tokens" | "auth" | "metrics">;

const USER_NOT_FOUND = "User not found";
const LAST_ADMIN = "The hub must keep at least one active admin";

/**
 * Creates a user and its `user.created` event in one transaction. `input.email` is already
 * lower-case; `actorId` is null when the hub itself creates the user (first admin).
 * Throws {@link ConflictError} when the e-mail is taken, by an active or a deactivated user (then
 * naming the reactivation that brings it back, CONTRACT §6.11).
 */
export async function createUser(db: Executor, input: CreateUserInput, actorId: string | null): Promise<string> {
  await assertSectorsExist(db, input.sector_ids);
  // Hashed before the transaction: ~60 ms of bcrypt must not hold a connection and its locks.
  const passwordHash = await hashPassword(input.password);
  try {
    return await withTransaction(db, async (tx) => {
      const { id } = await users.insert(tx, { email: input.email, passwordHash, role: input.role, sectorIds: input.sector_ids ?? null });
      await events.record(tx, { eventType: "user.created", aggregateId: id, actorId, payload: { email: input.email, role: input.role } });
      return id;
    });
  } catch (error) {
    if (!isUniqueViolation(error, "users_email_key")) throw error;
    const holder = await users.findByEmail(db, input.email);
    if (holder && !holder.isActive) {
      throw new ConflictError(`A deactivated user has this e-mail: reactivate it with POST /identity/users/${holder.id}/reactivate`);
    }
    throw new ConflictError(`A user with e-mail '${input.email}' already exists`);
  }
}

/** One page of the active users, oldest first; of every user with `includeInactive`. */
export async function listUsers(db: Executor, page: KeysetPageRequest, includeInactive: boolean): Promise<KeysetPage<UserRecord>> {
  const { items, next } = await users.listPage(db, page, { includeInactive });
  return { items: items.map(toUserRecord), next };
}

/** An active user; deactivated users are gone from lookups (INTERFACE §3). */
export async function getUser(db: Executor, id: string): Promise<UserRecord> {
  const user = await users.findActiveUser(db, id);
  if (!user) throw new NotFoundError(USER_NOT_FOUND);
  return toUserRecord(user);
}

/**
 * After a demotion or a deactivation of an admin, in its transaction: refuses (409) if no active
 * admin is left. Under the admin-removal lock, and after the change, so of two admins demoting or
 * deactivating each other at once the second sees the first's committed change and is refused.
 */
async function assertAnAdminRemains(tx: Executor): Promise<void> {
  await users.lockAdminDeactivations(tx);
  if ((await users.countActiveAdmins(tx)) === 0) throw new ConflictError(LAST_ADMIN);
}

/**
 * Deactivates `targetId` with its `user.deactivated` event and a new credential generation; an
 * admin cannot deactivate themself, and the hub always keeps one active admin (409, CONTRACT §6.1).
 */
export async function deactivateUser(db: Executor, targetId: string, actorId: string): Promise<void> {
  if (targetId === actorId) throw new ForbiddenError("You cannot deactivate your own account");
  await withTransaction(db, async (tx) => {
    const user = await users.deactivateActiveUser(tx, targetId);
    if (!user) throw new NotFoundError(USER_NOT_FOUND);
    if (user.role === "admin") await assertAnAdminRemains(tx);
    await events.record(tx, { eventType: "user.deactivated", aggregateId: targetId, actorId, payload: { email: user.email, role: user.role } });
  });
}

/**
 * PUT /identity/me/password: checks the caller's current password, sets the new one and starts a
 * new credential generation (every earlier login token refused), and answers a token of it. The
 * check counts as a login attempt from `address` (CONTRACT §6.15): 429 before the password is
 * compared once the throttle is full, and a wrong one is a failed login, so a stolen token is no
 * side door for guessing the password.
 */
export async function changeOwnPassword(
  ctx: AccountContext,
  caller: { id: string; email: string },
  input: ChangeOwnPasswordInput,
  address: string,
): Promise<IssuedToken> {
  const userId = caller.id;
  const attempt = await countLoginAttempt(ctx, caller.email, address);
  const user = await users.findCredentialsById(ctx.database.pool, userId);
  if (!user || !user.isActive) throw new InvalidBearerTokenError();
  if (!(await verifyPassword(input.current_password, user.passwordHash))) throw new ForbiddenError("Current password is incorrect");
  await attempt.succeeded();
  const passwordHash = await hashPassword(input.new_password);
  const changed = await withTransaction(ctx.database.pool, async (tx) => {
    // Only over the generation whose password was just checked: a reset or role change that
    // committed meanwhile has refused the caller's token already.
    const row = await users.setActiveUserPassword(tx, userId, passwordHash, user.credentialGeneration);
    if (!row) throw new InvalidBearerTokenError();
    await events.record(tx, { eventType: "user.password_changed", aggregateId: userId, actorId: userId, payload: { user_id: userId } });
    return row;
  });
  ctx.auth.forgetCredentials();
  return issueAccessToken(ctx.tokens, { userId, role: changed.role, generation: changed.credentialGeneration });
}

/** PUT /identity/users/{id}/password: an admin sets another active user's password (a reset). */
export async function resetPassword(ctx: AccountContext, targetId: string, newPassword: string, actorId: string): Promise<void> {
  if (targetId === actorId) throw new ForbiddenError("Use PUT /identity/me/password to change your own password");
  const passwordHash = await hashPassword(newPassword);
  await withTransaction(ctx.database.pool, async (tx) => {
    const reset = await users.setActiveUserPassword(tx, targetId, passwordHash);
    if (!reset) throw new NotFoundError(USER_NOT_FOUND);
    // A reset ends the e-mail's login throttle (CONTRACT §6.15): its owner signs in at once.
    await loginThrottle.clearLoginFailuresForEmail(tx, reset.email);
    await events.record(tx, { eventType: "user.password_reset", aggregateId: targetId, actorId, payload: { user_id: targetId } });
  });
  ctx.auth.forgetCredentials();
}

/**
 * PATCH /identity/users/{id}: another role and/or other sectors for an active user. A new role
 * starts a new credential generation (tokens of the old role refused); new sectors do not — they
 * govern from this answer here (the caches are emptied before it) and within 1 s on every other
 * process (migration 0026's trigger). What the user already has changes nothing and writes no event.
 * A demotion that would leave no active admin is refused (409) under the same lock as a
 * deactivation's check.
 */
export async function changeUser(ctx: AccountContext, targetId: string, change: ChangeUserInput, actorId: string): Promise<UserRecord> {
  if (targetId === actorId) throw new ForbiddenError("You cannot change your own role or sectors");
  await assertSectorsExist(ctx.database.pool, change.sector_ids);
  const outcome = await withTransaction(ctx.database.pool, async (tx) => {
    // The row lock first, as a deactivation's UPDATE takes it, then the admin-removal lock.
    const before = await users.lockActiveUser(tx, targetId);
    if (!before) throw new NotFoundError(USER_NOT_FOUND);
    let user = before;
    let changed = false;
    if (change.role !== undefined && before.role !== change.role) {
      const after = await users.setActiveUserRole(tx, targetId, change.role);
      if (!after) throw new NotFoundError(USER_NOT_FOUND);
      if (before.role === "admin") await assertAnAdminRemains(tx);
      await events.record(tx, {
        eventType: "user.role_changed",
        aggregateId: targetId,
        actorId,
        payload: { user_id: targetId, from: before.role, to: change.role },
      });
      user = after;
      changed = true;
    }
    if (change.sector_ids !== undefined && !sameSectors(before.sectorIds, change.sector_ids)) {
      const after = await users.setActiveUserSectors(tx, targetId, change.sector_ids);
      if (!after) throw new NotFoundError(USER_NOT_FOUND);
      await events.record(tx, {
        eventType: "user.sectors_changed",
        aggregateId: targetId,
        actorId,
        payload: { user_id: targetId, from: before.sectorIds, to: change.sector_ids },
      });
      user = after;
      changed = true;
    }
    return { user, changed };
  });
  if (outcome.changed) ctx.auth.forgetCredentials();
  return toUserRecord(outcome.user);
}

/**
 * POST /identity/users/{id}/reactivate: a deactivated user becomes active again with its password
 * and credential generation unchanged (its tokens from before stay refused; its api keys work again).
 */
export async function reactivateUser(ctx: Pick<AppContext, "database" | "auth">, targetId: string, actorId: string): Promise<UserRecord> {
  const user = await withTransaction(ctx.database.pool, async (tx) => {
    const reactivated = await users.reactivateInactiveUser(tx, targetId);
    if (!reactivated) {
      if (await users.find(tx, targetId)) throw new ConflictError("The user is already active");
      throw new NotFoundError(USER_NOT_FOUND);
    }
    await events.record(tx, { eventType: "user.reactivated", aggregateId: targetId, actorId, payload: { user_id: targetId } });
    return reactivated;
  });
  ctx.auth.forgetCredentials();
  return toUserRecord(user);
}

/**
 * The break-glass reset (`reset-password`, CONTRACT §6.11): sets the password of the user with this
 * e-mail (lower-case), active or not, with a new credential generation and `user.password_reset`
 * written by no one (actor null). Undefined for an unknown e-mail. `is_active` stays as it is.
 */
export async function resetPasswordByEmail(db: Executor, email: string, newPassword: string): Promise<{ id: string; isActive: boolean } | undefined> {
  const passwordHash = await hashPassword(newPassword);
  return withTransaction(db, async (tx) => {
    const user = await users.setPasswordByEmail(tx, email, passwordHash);
    if (!user) return undefined;
    await loginThrottle.clearLoginFailuresForEmail(tx, email);
    await events.record(tx, { eventType: "user.password_reset", aggregateId: user.id, actorId: null, payload: { user_id: user.id } });
    return user;
  });
}
