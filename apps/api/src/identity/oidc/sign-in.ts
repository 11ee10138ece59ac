/**
 * The single sign-on flow (CONTRACT §6.22), its one-time values kept in Redis:
 *
 * - a login's state, nonce and PKCE verifier under `<prefix>:oidc:state:<state>` for 10 minutes,
 *   with the hash of a random binding whose value only the browser's HttpOnly cookie holds. The
 *   callback takes the record with GETDEL: a state is used once, by the browser that started it
 *   (another browser's cookie, or none, does not match), across every API process;
 * - a signed-in user's one-time code under `<prefix>:oidc:code:<sha256(code)>` for 60 s, taken by
 *   POST /identity/oidc/token with GETDEL, so the token itself never travels in a URL.
 *
 * Redis rather than PostgreSQL: both records are short-lived and worthless once used or expired,
 * GETDEL makes "once" atomic, and their TTL expires them with no sweeper. Losing them (a Redis
 * flush) costs a user one more click on "Sign in", never a wrong sign-in.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { users } from "@hub/db";
import type { AppContext } from "../../context";
import { ConflictError } from "../../http/http-errors";
import { issueAccessToken, type IssuedToken } from "../login.service";
import { createUser } from "../users.service";
import type { DiscoveredProvider, OidcProvider } from "./provider";

export const STATE_TTL_SECONDS = 600;
export const CODE_TTL_SECONDS = 60;
export const STATE_COOKIE = "hub_oidc";

export type SsoError = "email_unverified" | "unknown_user" | "deactivated" | "invalid_request" | "invalid_token";

type SignInContext = Pick<AppContext, "database" | "redis" | "env" | "tokens" | "logger">;

const random = () => randomBytes(32).toString("base64url");
const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");
const stateKey = (ctx: SignInContext, state: string) => `${ctx.env.HUB_REDIS_PREFIX}:oidc:state:${sha256(state)}`;
const codeKey = (ctx: SignInContext, code: string) => `${ctx.env.HUB_REDIS_PREFIX}:oidc:code:${sha256(code)}`;

interface PendingLogin {
  binding: string;
  nonce: string;
  verifier: string;
}

/** Starts a login: the authorization URL to send the browser to, and the cookie value binding it. */
export async function beginLogin(ctx: SignInContext, provider: OidcProvider, discovered: DiscoveredProvider): Promise<{ location: string; binding: string }> {
  const { url, request } = await provider.authorizationUrl(discovered);
  const binding = random();
  const pending: PendingLogin = { binding: sha256(binding), nonce: request.nonce, verifier: request.verifier };
  await ctx.redis.set(stateKey(ctx, request.state), JSON.stringify(pending), "EX", STATE_TTL_SECONDS);
  return { location: url.href, binding };
}

/** The parameters the provider's redirect brought back (all of them go to openid-client's checks). */
export interface CallbackInput extends Record<string, string | undefined> {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
}

/** Finishes a login: a one-time code for the console, or why not. */
export async function finishLogin(
  ctx: SignInContext,
  provider: OidcProvider,
  input: CallbackInput,
  binding: string | undefined,
): Promise<{ code: string } | { error: SsoError }> {
  if (!input.state) return { error: "invalid_request" };
  // Taken whatever follows: a state is tried once.
  const raw = await ctx.redis.getdel(stateKey(ctx, input.state));
  if (raw === null || binding === undefined) return { error: "invalid_request" };
  const pending = JSON.parse(raw) as PendingLogin;
  const expected = Buffer.from(pending.binding);
  const given = Buffer.from(sha256(binding));
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { error: "invalid_request" };
  if (input.error || !input.code) return { error: "invalid_request" };

  const discovered = provider.current;
  if (!discovered) return { error: "invalid_request" };
  const exchanged = await provider.exchangeCode(discovered, input, { state: input.state, nonce: pending.nonce, verifier: pending.verifier });
  if ("refusal" in exchanged) return { error: exchanged.refusal };
  const { claims } = exchanged;
  if (claims.email_verified !== true || typeof claims.email !== "string" || claims.email === "") return { error: "email_unverified" };

  const email = claims.email.trim().toLowerCase();
  let user = await users.findCredentialsByEmail(ctx.database.pool, email);
  if (!user && provider.settings.autoCreate) user = await createSsoEmployee(ctx, email, provider.settings.defaultSectorIds);
  if (!user) return { error: "unknown_user" };
  if (!user.isActive) return { error: "deactivated" };

  const code = random();
  await ctx.redis.set(codeKey(ctx, code), user.id, "EX", CODE_TTL_SECONDS);
  ctx.logger.info({ user_id: user.id }, "signed in with single sign-on");
  return { code };
}

/** An employee for a first sign-in; its password is random and never told (it signs in by the provider). */
async function createSsoEmployee(ctx: SignInContext, email: string, sectorIds: string[] | null) {
  try {
    await createUser(ctx.database.pool, { email, password: random(), role: "employee", sector_ids: sectorIds }, null);
  } catch (error) {
    // Created meanwhile by a concurrent sign-in (or an admin): the row read below decides.
    if (!(error instanceof ConflictError)) throw error;
  }
  return users.findCredentialsByEmail(ctx.database.pool, email);
}

/** POST /identity/oidc/token: a login token for a one-time code, once; undefined for any other code. */
export async function redeemCode(ctx: SignInContext, code: string): Promise<IssuedToken | undefined> {
  const userId = await ctx.redis.getdel(codeKey(ctx, code));
  if (userId === null) return undefined;
  const user = await users.findCredentialsById(ctx.database.pool, userId);
  if (!user?.isActive) return undefined;
  return issueAccessToken(ctx.tokens, { userId: user.id, role: user.role, generation: user.credentialGeneration });
}
