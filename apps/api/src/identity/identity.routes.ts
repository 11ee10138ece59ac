import { defineRoute } from "../http/route";
import { loginFormBody, loginJsonBody, passwordBodies, tokenResponse, userRecord } from "./identity.schemas";
import { login } from "./login.service";
import { changeOwnPassword, toUserRecord } from "./users.service";

/** Sign-in and the caller's own account, for the configured minimum password length. */
export const identityRoutes = (passwordMinLength: number) => [
  defineRoute({
    method: "post",
    path: "/identity/token",
    operationId: "logIn",
    summary: "Log in: exchange an e-mail and password for an access token",
    description:
      "Answers a JWT access token valid for `expires_in` seconds (HUB_ACCESS_TOKEN_TTL_SECONDS), to send as `Authorization: Bearer …`. Takes JSON `{email, password}` or the OAuth2 password form (`username`, `password`), which is what /docs's Authorize sends. A wrong e-mail, a wrong password and a deactivated user all answer the same 401; after 10 failures for one e-mail within 5 minutes it answers 429 with Retry-After.",
    tag: "identity",
    auth: "none",
    body: loginJsonBody,
    example: { email: "ana@example.com", password: "correct horse battery staple" },
    formBody: loginFormBody,
    responses: {
      200: { description: "An access token", schema: tokenResponse },
      401: { description: "Incorrect email or password (also for a deactivated user)" },
      429: { description: "Too many failed attempts for this e-mail; see Retry-After" },
    },
    handler: async ({ body, ctx }) => ({ status: 200, body: await login(ctx, body) }),
  }),
  defineRoute({
    method: "get",
    path: "/identity/me",
    operationId: "getCurrentUser",
    summary: "The caller's user record",
    description:
      "The user the credentials belong to: id, e-mail, role and whether it is active.",
    tag: "identity",
    auth: "user",
    responses: { 200: { description: "The caller", schema: userRecord } },
    handler: async ({ caller }) => ({ status: 200, body: toUserRecord(caller.user) }),
  }),
  defineRoute({
    method: "put",
    path: "/identity/me/password",
    operationId: "changeOwnPassword",
    summary: "Change your own password",
    description:
      "With a login token (an api key → 403). Checks `current_password` (wrong → 403), sets `new_password` and answers a new access token: every earlier login token of the caller stops working at once; api keys go on. Writes user.password_changed {user_id}.",
    tag: "identity",
    auth: "user-login-token",
    body: passwordBodies(passwordMinLength).changeOwnPassword,
    example: { current_password: "correct horse battery staple", new_password: "a new long passphrase" },
    responses: {
      200: { description: "A token of the new credential generation", schema: tokenResponse },
      403: { description: "Current password is incorrect (or an api key was sent)" },
    },
    handler: async ({ body, caller, ctx }) => ({ status: 200, body: await changeOwnPassword(ctx, caller.user.id, body) }),
  }),
];
