import { defineRoute } from "../http/route";
import { loginFormBody, loginJsonBody, passwordBodies, tokenResponse, userRecord } from "./identity.schemas";
import { clientAddress } from "../http/client-address";
import { admitLoginRequest, login, TOO_MANY_LOGIN_ATTEMPTS } from "./login.service";
import { changeOwnPassword, toUserRecord } from "./users.service";

/** Sign-in and the caller's own account, for the configured minimum password length. */
export const identityRoutes = (passwordMinLength: number) => [
  defineRoute({
    method: "post",
    path: "/identity/token",
    operationId: "logIn",
    secretInResponse: "token",
    summary: "Log in: exchange an e-mail and password for an access token",
    description:
      "Answers a JWT access token valid for `expires_in` seconds (HUB_ACCESS_TOKEN_TTL_SECONDS), to send as `Authorization: Bearer …`. Takes JSON `{email, password}` or the OAuth2 password form (`username`, `password`), which is what /docs's Authorize sends. A wrong e-mail, a wrong password and a deactivated user all answer the same 401. Throttled (429 with Retry-After, whatever the password): more than HUB_LOGIN_MAX_PER_ADDRESS_PER_MINUTE (30) requests from one client address in a minute; more than HUB_LOGIN_MAX_FAILURES (10) failures of one e-mail from one address, or HUB_LOGIN_MAX_FAILURES_PER_EMAIL (100) of one e-mail from addresses it has not signed in from within 30 days, in the last 5 minutes. 503 with Retry-After when the server is too busy hashing passwords to check this one within 2 s.",
    tag: "identity",
    auth: "none",
    body: loginJsonBody,
    example: { email: "ana@example.com", password: "correct horse battery staple" },
    formBody: loginFormBody,
    beforeBody: ({ req, ctx }) => admitLoginRequest(ctx, clientAddress(req)),
    responses: {
      200: { description: "An access token", schema: tokenResponse },
      401: { description: "Incorrect email or password (also for a deactivated user)" },
      429: { description: `${TOO_MANY_LOGIN_ATTEMPTS}: see Retry-After` },
      503: { description: "Too busy hashing passwords to check this one in time: see Retry-After" },
    },
    handler: async ({ body, ctx, req }) => ({ status: 200, body: await login(ctx, body, clientAddress(req)) }),
  }),
  defineRoute({
    method: "get",
    path: "/identity/me",
    operationId: "getCurrentUser",
    summary: "The caller's user record",
    description: "The user the credentials belong to: id, e-mail, role and whether it is active.",
    tag: "identity",
    auth: "user",
    responses: { 200: { description: "The caller", schema: userRecord } },
    handler: async ({ caller }) => ({ status: 200, body: toUserRecord(caller.user) }),
  }),
  defineRoute({
    method: "put",
    path: "/identity/me/password",
    operationId: "changeOwnPassword",
    secretInResponse: "token",
    summary: "Change your own password",
    description:
      "With a login token (an api key → 403). Checks `current_password` (wrong → 403, counted as a failed login of the caller's e-mail from this address: the login throttle's 429 with Retry-After applies), sets `new_password` and answers a new access token: every earlier login token of the caller stops working at once; api keys go on. Writes user.password_changed {user_id}.",
    tag: "identity",
    auth: "user-login-token",
    body: passwordBodies(passwordMinLength).changeOwnPassword,
    example: { current_password: "correct horse battery staple", new_password: "a new long passphrase" },
    responses: {
      200: { description: "A token of the new credential generation", schema: tokenResponse },
      403: { description: "Current password is incorrect (or an api key was sent)" },
      429: { description: `${TOO_MANY_LOGIN_ATTEMPTS}: see Retry-After` },
    },
    handler: async ({ body, caller, ctx, req }) => ({ status: 200, body: await changeOwnPassword(ctx, caller.user, body, clientAddress(req)) }),
  }),
];
