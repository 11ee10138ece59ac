/**
 * POST /identity/token: checks an e-mail and password and issues an access token, behind the
 * login throttle of CONTRACT §6.15, whose counts live in PostgreSQL (@hub/db login-throttle):
 *
 * - {@link admitLoginRequest}: at most HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE requests per client
 *   address in any minute, successes included, before the body is even read;
 * - {@link countLoginAttempt}: before the password is checked, the attempt is added to the
 *   failures of its (e-mail, address) pair and of its e-mail, atomically, or refused when either
 *   is full. A right password then takes it back ({@link CountedLoginAttempt.succeeded}).
 *
 * Anything else that checks a password a caller typed (a `current_password`) calls
 * {@link countLoginAttempt} the same way, so it is no side door for guessing.
 */
import { loginThrottle, users } from "@hub/db";
import { HttpError, RateLimitedError, UnauthorizedError } from "../http/http-errors";
import type { AppContext } from "../context";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../http/http-errors";
import type { LoginInput } from "./identity.schemas";
import { LOGIN_HASH_MAX_WAIT_MS, PasswordHashingBusyError, verifyPassword } from "./passwords";
import type { AccessTokenClaims } from "./tokens";

/** Failures count for this long (a sliding window, by PostgreSQL's clock). */
export const LOGIN_FAILURE_WINDOW_SECONDS = 300;
/** The per-address request limit's window. */
export const LOGIN_ADDRESS_WINDOW_SECONDS = 60;
/** An address that signed in as an e-mail within this many days is never refused by that e-mail's limit. */
export const LOGIN_KNOWN_ADDRESS_DAYS = 30;

export const TOO_MANY_LOGIN_ATTEMPTS = "Too many login attempts; try again later";
const INCORRECT_CREDENTIALS = "Incorrect email or password";

/** Which limit refused a login: the label of hub_login_throttled_total. */
export type LoginLimit = "address" | "email_address" | "email";

export interface IssuedToken {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
}

type LoginDeps = Pick<AppContext, "database" | "env" | "tokens" | "metrics">;

function refuse(deps: LoginDeps, limit: LoginLimit, retryAfterSeconds: number): never {
  deps.metrics.loginThrottled.inc({ limit });
  throw new RateLimitedError(TOO_MANY_LOGIN_ATTEMPTS, retryAfterSeconds);
}

/**
 * Counts one request to POST /identity/token for `address` (from {@link clientAddress}) and
 * throws 429 when it would be more than HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE within a minute.
 */
export async function admitLoginRequest(deps: LoginDeps, address: string): Promise<void> {
  const max = deps.env.HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE;
  if (max === 0) return;
  const admission = await loginThrottle.addLoginAttempt(deps.database.pool, [
    { subject: loginThrottle.loginThrottleSubjects.address(address), max, windowSeconds: LOGIN_ADDRESS_WINDOW_SECONDS, enforced: true },
  ]);
  if (!admission.admitted) refuse(deps, "address", admission.retryAfterSeconds);
}

/** An attempt counted as a failure until the password proves right. */
export interface CountedLoginAttempt {
  /** The password was right: takes the attempt back, clears the pair's failures and remembers the address. */
  succeeded(): Promise<void>;
}

/**
 * Adds an attempt to sign in as `email` from `address` to the failures of the pair and of the
 * e-mail, before any password is checked; throws 429 (and adds nothing) when that would pass
 * HUB_LOGIN_MAX_FAILURES for the pair or HUB_LOGIN_MAX_FAILURES_PER_EMAIL for the e-mail. The
 * e-mail's limit spares an address that signed in as it within {@link LOGIN_KNOWN_ADDRESS_DAYS}
 * days, so nobody can lock an account's owner out. Unknown e-mails count like known ones.
 */
export async function countLoginAttempt(deps: LoginDeps, email: string, address: string): Promise<CountedLoginAttempt> {
  const { HUB_LOGIN_MAX_FAILURES: pairMax, HUB_LOGIN_MAX_FAILURES_PER_EMAIL: emailMax } = deps.env;
  const normalized = email.trim().toLowerCase();
  const pair = loginThrottle.loginThrottleSubjects.pair(normalized, address);
  const emailSubject = loginThrottle.loginThrottleSubjects.email(normalized);
  const knownAddress = emailMax > 0 && (await loginThrottle.signedInFrom(deps.database.pool, normalized, address, LOGIN_KNOWN_ADDRESS_DAYS));
  const admission = await loginThrottle.addLoginAttempt(deps.database.pool, [
    { subject: pair, max: pairMax, windowSeconds: LOGIN_FAILURE_WINDOW_SECONDS, enforced: true },
    { subject: emailSubject, max: emailMax, windowSeconds: LOGIN_FAILURE_WINDOW_SECONDS, enforced: !knownAddress },
  ]);
  await loginThrottle.pruneLoginThrottle(deps.database.pool, LOGIN_FAILURE_WINDOW_SECONDS, LOGIN_KNOWN_ADDRESS_DAYS);
  if (!admission.admitted) refuse(deps, admission.subject === pair ? "email_address" : "email", admission.retryAfterSeconds);
  return {
    succeeded: async () => {
      await loginThrottle.removeLoginAttempt(deps.database.pool, emailSubject, admission.at);
      await loginThrottle.clearLoginAttempts(deps.database.pool, [pair]);
      await loginThrottle.recordLoginAddress(deps.database.pool, normalized, address);
    },
  };
}

/** Signs in from `address` (already reduced by clientAddress); the per-address limit was applied before the body was read. */
export async function login(deps: LoginDeps, input: LoginInput, address: string): Promise<IssuedToken> {
  if (!deps.env.HUB_PASSWORD_LOGIN) throw new HttpError(403, `Password sign-in is turned off: sign in with ${deps.env.HUB_OIDC_NAME}`);
  const email = input.email.trim().toLowerCase();
  const attempt = await countLoginAttempt(deps, email, address);

  const user = await users.findCredentialsByEmail(deps.database.pool, email);
  // Always one bcrypt compare, whoever the user is: the answer's timing tells nothing.
  const passwordMatches = await verifyPasswordForLogin(deps, input.password, user?.passwordHash ?? null);
  if (!user || !user.isActive || !passwordMatches) throw new UnauthorizedError(INCORRECT_CREDENTIALS);

  await attempt.succeeded();
  return issueAccessToken(deps.tokens, { userId: user.id, role: user.role, generation: user.credentialGeneration });
}

/** The body of a token answer: a login's, or a password change's (CONTRACT §6.11). */
export async function issueAccessToken(tokens: AppContext["tokens"], claims: AccessTokenClaims): Promise<IssuedToken> {
  return { access_token: await tokens.issue(claims), token_type: "bearer", expires_in: tokens.ttlSeconds };
}

/**
 * {@link verifyPassword} for a login: it waits at most {@link LOGIN_HASH_MAX_WAIT_MS} for a
 * hashing slot, then answers 503 with Retry-After (the attempt stays counted: it was made).
 */
export async function verifyPasswordForLogin(deps: Pick<AppContext, "metrics">, password: string, storedHash: string | null): Promise<boolean> {
  try {
    return await verifyPassword(password, storedHash, { maxWaitMs: LOGIN_HASH_MAX_WAIT_MS });
  } catch (error) {
    if (!(error instanceof PasswordHashingBusyError)) throw error;
    deps.metrics.loginOverloaded.inc();
    throw new HttpError(503, "Service temporarily unavailable", { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) });
  }
}
