/** Single sign-on with OpenID Connect (CONTRACT §6.22): the browser's two legs and the console's code exchange. */
import { z } from "zod";
import type { Request } from "express";
import { defineRoute } from "../../http/route";
import { HttpError, NotFoundError } from "../../http/http-errors";
import type { AppContext } from "../../context";
import { tokenResponse } from "../identity.schemas";
import { DISCOVERY_RETRY_AFTER_SECONDS } from "./provider";
import { beginLogin, finishLogin, redeemCode, STATE_COOKIE, STATE_TTL_SECONDS } from "./sign-in";

const NOT_CONFIGURED = "Single sign-on is not configured";
const COOKIE_PATH = "/identity/oidc";

/** The state cookie: HttpOnly, sent back only to the callback's path, Secure when the hub is served over https. */
function stateCookie(ctx: AppContext, value: string, maxAgeSeconds: number): string {
  const secure = ctx.env.HUB_PUBLIC_URL?.startsWith("https:") ? "; Secure" : "";
  return `${STATE_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

function readStateCookie(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === STATE_COOKIE) return rest.join("=") || undefined;
  }
  return undefined;
}

function providerOf(ctx: AppContext) {
  if (!ctx.oidc) throw new NotFoundError(NOT_CONFIGURED);
  return ctx.oidc;
}

const optionalParam = (description: string) => z.string().max(4096).optional().describe(description);

export const signInOptions = z
  .object({
    password_login: z.boolean().describe("Whether POST /identity/token takes passwords (HUB_PASSWORD_LOGIN)"),
    sso: z
      .object({ name: z.string().describe('HUB_OIDC_NAME: the console says "Sign in with <name>"') })
      .nullable()
      .describe("Single sign-on, or null when it is not configured"),
  })
  .meta({ id: "SignInOptions" });

export const oidcRoutes = [
  defineRoute({
    method: "get",
    path: "/identity/oidc/options",
    operationId: "getSignInOptions",
    summary: "How one signs in to this hub",
    description: "Public: whether passwords are taken and whether single sign-on is configured, with its name. The console's login page reads it.",
    tag: "identity",
    auth: "none",
    responses: { 200: { description: "The sign-in options", schema: signInOptions } },
    handler: async ({ ctx }) => ({
      status: 200,
      body: { password_login: ctx.env.HUB_PASSWORD_LOGIN, sso: ctx.oidc ? { name: ctx.oidc.settings.name } : null },
    }),
  }),
  defineRoute({
    method: "get",
    path: "/identity/oidc/login",
    operationId: "startSingleSignOn",
    summary: "Start single sign-on: redirect to the identity provider",
    description: `Answers 302 to the provider's authorization endpoint (authorization code with PKCE S256, scope \`openid email\`, a state and a nonce), and sets an HttpOnly cookie binding that state to this browser for ${STATE_TTL_SECONDS / 60} minutes, once. 404 when single sign-on is not configured; 503 with Retry-After until the provider has been discovered.`,
    tag: "identity",
    auth: "none",
    responses: {
      302: { description: "To the identity provider (Location)" },
      404: { description: NOT_CONFIGURED },
      503: { description: "The identity provider has not been reached yet: see Retry-After" },
    },
    handler: async ({ ctx }) => {
      const provider = providerOf(ctx);
      const discovered = provider.current;
      if (!discovered)
        throw new HttpError(503, "The identity provider is not reachable yet; try again shortly", { "Retry-After": String(DISCOVERY_RETRY_AFTER_SECONDS) });
      const { location, binding } = await beginLogin(ctx, provider, discovered);
      return { status: 302, headers: { Location: location, "Set-Cookie": stateCookie(ctx, binding, STATE_TTL_SECONDS), "Cache-Control": "no-store" } };
    },
  }),
  defineRoute({
    method: "get",
    path: "/identity/oidc/callback",
    operationId: "finishSingleSignOn",
    summary: "The identity provider's redirect back to the hub",
    description:
      "Register `<HUB_PUBLIC_URL>/identity/oidc/callback` at the provider. Exchanges the code, verifies the ID token (the issuer's JWKS, iss, aud, exp, nonce) and takes its e-mail only when `email_verified` is true. An active user → 303 to `/console/#sso_code=<code>` (a one-time code for POST /identity/oidc/token, valid 60 s); otherwise 303 to `/console/?sso_error=<reason>`: `email_unverified`, `unknown_user`, `deactivated`, `invalid_request` (a missing, used, expired or foreign state, or a provider error) or `invalid_token`.",
    tag: "identity",
    auth: "none",
    query: z.object({
      code: optionalParam("The authorization code"),
      state: optionalParam("The state GET /identity/oidc/login sent"),
      error: optionalParam("The provider's error code"),
      error_description: optionalParam("The provider's explanation"),
      error_uri: optionalParam("The provider's error page"),
      iss: optionalParam("The issuer (RFC 9207)"),
      session_state: optionalParam("The provider's session (some providers send it)"),
      scope: optionalParam("The granted scopes (some providers send them)"),
      authuser: optionalParam("Sent by Google"),
      hd: optionalParam("Sent by Google"),
      prompt: optionalParam("Sent by Google"),
    }),
    responses: {
      303: { description: "To the console, with a one-time code in the fragment or the reason it failed" },
      404: { description: NOT_CONFIGURED },
    },
    handler: async ({ ctx, query, req }) => {
      const provider = providerOf(ctx);
      const outcome = await finishLogin(ctx, provider, query, readStateCookie(req));
      if ("error" in outcome) ctx.logger.info({ reason: outcome.error, provider_error: query.error }, "single sign-on refused");
      const location = "code" in outcome ? `/console/#sso_code=${outcome.code}` : `/console/?sso_error=${outcome.error}`;
      return { status: 303, headers: { Location: location, "Set-Cookie": stateCookie(ctx, "", 0), "Cache-Control": "no-store" } };
    },
  }),
  defineRoute({
    method: "post",
    path: "/identity/oidc/token",
    operationId: "redeemSingleSignOnCode",
    secretInResponse: "token",
    summary: "Exchange a single sign-on code for an access token",
    description:
      "The console sends the `sso_code` of its URL's fragment. Answers what POST /identity/token answers, once per code, within 60 s of the sign-in; any other code → 400.",
    tag: "identity",
    auth: "none",
    body: z.object({ code: z.string().min(1).max(200) }),
    example: { code: "Vd1b…" },
    responses: {
      200: { description: "An access token", schema: tokenResponse },
      400: { description: "Unknown, used or expired code" },
      404: { description: NOT_CONFIGURED },
    },
    handler: async ({ ctx, body }) => {
      providerOf(ctx);
      const issued = await redeemCode(ctx, body.code);
      if (!issued) throw new HttpError(400, "Unknown, used or expired single sign-on code");
      return { status: 200, body: issued };
    },
  }),
];
