/**
 * POST /identity/token: checks an e-mail and password and issues an access token. Failed attempts
 * are counted per e-mail in Redis so that one account cannot be guessed at full speed.
 */
import { createHash } from "node:crypto";
import { RateLimitedError, UnauthorizedError } from "@hub/shared";
import type { AppContext } from "../context";
import type { LoginInput } from "./identity.schemas";
import { verifyPassword } from "./passwords";
import type { AccessTokenClaims } from "./tokens";
import { findUserCredentialsByEmail } from "@hub/db";

/** Failed attempts allowed per e-mail within {@link LOGIN_FAILURE_WINDOW_SECONDS}; the next is 429. */
export const LOGIN_MAX_FAILURES = 10;
/** The window opens at the first failure and is not extended by later ones. */
export const LOGIN_FAILURE_WINDOW_SECONDS = 300;

const INCORRECT_CREDENTIALS = "Incorrect email or password";

export interface IssuedToken {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
}

type LoginDeps = Pick<AppContext, "db" | "redis" | "keys" | "tokens">;

export async function login(deps: LoginDeps, input: LoginInput): Promise<IssuedToken> {
  const email = input.email.toLowerCase();
  const attemptsKey = deps.keys.loginAttempts(attemptSubject(email));
  await assertNotThrottled(deps, attemptsKey);

  const user = await findUserCredentialsByEmail(deps.db, email);
  // Always one bcrypt compare, whoever the user is: the answer's timing tells nothing.
  const passwordMatches = await verifyPassword(input.password, user?.passwordHash ?? null);
  if (!user || !user.isActive || !passwordMatches) {
    await recordFailure(deps, attemptsKey);
    throw new UnauthorizedError(INCORRECT_CREDENTIALS);
  }

  await deps.redis.del(attemptsKey);
  return issueAccessToken(deps.tokens, { userId: user.id, role: user.role, generation: user.credentialGeneration });
}

/** The body of a token answer: a login's, or a password change's (CONTRACT §6.11). */
export async function issueAccessToken(tokens: AppContext["tokens"], claims: AccessTokenClaims): Promise<IssuedToken> {
  return { access_token: await tokens.issue(claims), token_type: "bearer", expires_in: tokens.ttlSeconds };
}

/** A fixed-length key part that keeps e-mail addresses out of Redis key names. */
function attemptSubject(email: string): string {
  return createHash("sha256").update(email, "utf8").digest("hex");
}

async function assertNotThrottled(deps: LoginDeps, attemptsKey: string): Promise<void> {
  const failures = Number((await deps.redis.get(attemptsKey)) ?? 0);
  if (failures < LOGIN_MAX_FAILURES) return;
  const remainingMs = await deps.redis.pttl(attemptsKey);
  const retryAfterSeconds = Math.max(1, Math.ceil(remainingMs / 1000));
  throw new RateLimitedError("Too many failed login attempts for this e-mail; try again later", retryAfterSeconds);
}

async function recordFailure(deps: LoginDeps, attemptsKey: string): Promise<void> {
  // Concurrent failures may each pass the check above before counting: the limit can be
  // overshot by the number of requests in flight at once, which is fine for throttling.
  await deps.redis.multi().incr(attemptsKey).expire(attemptsKey, LOGIN_FAILURE_WINDOW_SECONDS, "NX").exec();
}
