import { defineRoute } from "../http/route";
import { loginFormBody, loginJsonBody, tokenResponse, userRecord } from "./identity.schemas";
import { login } from "./login.service";
import { toUserRecord } from "./users.service";

export const identityRoutes = [
  defineRoute({
    method: "post",
    path: "/identity/token",
    summary: "Log in: exchange an e-mail and password for an access token",
    tag: "identity",
    auth: "none",
    body: loginJsonBody,
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
    summary: "The caller's user record",
    tag: "identity",
    auth: "user",
    responses: { 200: { description: "The caller", schema: userRecord } },
    handler: async ({ caller }) => ({ status: 200, body: toUserRecord(caller.user) }),
  }),
];
