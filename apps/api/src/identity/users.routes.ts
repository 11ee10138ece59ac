import { z } from "zod";
import { createdIdResponse } from "../http/common-schemas";
import { defineRoute } from "../http/route";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { changeUserBody, listUsersQuery, passwordBodies, userIdParams, userRecord } from "./identity.schemas";
import { changeUser, createUser, deactivateUser, getUser, listUsers, reactivateUser, resetPassword } from "./users.service";

/** The users' routes, for the configured minimum password length (HUB_PASSWORD_MIN_LENGTH). */
export const userRoutes = (passwordMinLength: number) => [
  defineRoute({
    method: "post",
    path: "/identity/users",
    operationId: "createUser",
    summary: "Create a user",
    description:
      "Admins, with a login token (an api key → 403). The e-mail is stored lower-case and is unique (409 when taken; when a deactivated user has it, the 409 names its reactivation); the password has at least HUB_PASSWORD_MIN_LENGTH characters and at most 72 UTF-8 bytes (bcrypt's limit; never silently cut) and is kept only as a bcrypt hash. Writes a user.created event.",
    tag: "identity",
    auth: "admin-login-token",
    body: passwordBodies(passwordMinLength).createUser,
    example: { email: "ana@example.com", password: "correct horse battery staple", role: "employee" },
    responses: { 201: { description: "Created", schema: createdIdResponse }, 409: { description: "E-mail taken, by an active or a deactivated user" } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createUser(ctx.database.pool, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/identity/users",
    operationId: "listUsers",
    summary: "List users",
    description: "Admins only. Active users, oldest first, a page at a time (follow the `Link` header); deactivated users only with `include_inactive=true`.",
    tag: "identity",
    auth: "admin",
    query: listUsersQuery,
    paginated: true,
    responses: { 200: { description: `Users, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(userRecord) } },
    handler: async ({ query, after, ctx }) => {
      const page = await listUsers(ctx.database.pool, { limit: query.limit, after }, query.include_inactive);
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/identity/users/{user_id}",
    operationId: "getUser",
    summary: "Get an active user",
    description: "Admins only. 404 for an unknown or a deactivated user.",
    tag: "identity",
    auth: "admin",
    params: userIdParams,
    responses: { 200: { description: "The user", schema: userRecord }, 404: { description: "Unknown or deactivated user" } },
    handler: async ({ params, ctx }) => ({ status: 200, body: await getUser(ctx.database.pool, params.user_id) }),
  }),
  defineRoute({
    method: "delete",
    path: "/identity/users/{user_id}",
    operationId: "deactivateUser",
    summary: "Deactivate a user",
    description:
      "Admins, with a login token. The user's tokens and api keys stop working at once; the record stays, and events still name it (POST /identity/users/{user_id}/reactivate brings it back). An admin cannot deactivate their own account (403) nor the last active admin (409).",
    tag: "identity",
    auth: "admin-login-token",
    params: userIdParams,
    responses: {
      204: { description: "Deactivated; the user's tokens stop working at once" },
      403: { description: "An admin cannot deactivate their own account" },
      404: { description: "Unknown or already deactivated user" },
      409: { description: "It would leave the hub without an active admin" },
    },
    handler: async ({ params, caller, ctx }) => {
      await deactivateUser(ctx.database.pool, params.user_id, caller.user.id);
      ctx.auth.forgetCredentials();
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "patch",
    path: "/identity/users/{user_id}",
    operationId: "changeUserRole",
    summary: "Change a user's role or sectors",
    description:
      "Admins, with a login token. Takes `role` and/or `sector_ids` (neither → 422). A new role: the user's login tokens of the old role stop working at once (they sign in again); its api keys go on with the new role; writes user.role_changed {user_id, from, to}. " +
      "New sectors: what the user reaches narrows or widens from this answer on, on every API process within 1 s, open streams included, and no credential stops working; writes user.sectors_changed {user_id, from, to}. " +
      "What the user already has → 200, nothing changes, no event.",
    tag: "identity",
    auth: "admin-login-token",
    params: userIdParams,
    body: changeUserBody,
    example: { role: "employee", sector_ids: ["3f1e8c2a-9d11-4d4e-8d51-0b7a4a3e9f57"] },
    responses: {
      200: { description: "The user, with its role and sectors", schema: userRecord },
      403: { description: "An admin cannot change their own role or sectors" },
      404: { description: "Unknown or deactivated user" },
      409: { description: "The demotion would leave the hub without an active admin" },
    },
    handler: async ({ params, body, caller, ctx }) => ({ status: 200, body: await changeUser(ctx, params.user_id, body, caller.user.id) }),
  }),
  defineRoute({
    method: "put",
    path: "/identity/users/{user_id}/password",
    operationId: "resetUserPassword",
    summary: "Reset a user's password",
    description:
      "Admins, with a login token. Sets another user's password; that user's login tokens stop working at once (api keys go on). Writes user.password_reset {user_id}.",
    tag: "identity",
    auth: "admin-login-token",
    params: userIdParams,
    body: passwordBodies(passwordMinLength).resetPassword,
    example: { new_password: "a new long passphrase" },
    responses: {
      204: { description: "Reset" },
      403: { description: "Your own password: use PUT /identity/me/password" },
      404: { description: "Unknown or deactivated user" },
    },
    handler: async ({ params, body, caller, ctx }) => {
      await resetPassword(ctx, params.user_id, body.new_password, caller.user.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/identity/users/{user_id}/reactivate",
    operationId: "reactivateUser",
    summary: "Reactivate a deactivated user",
    description:
      "Admins, with a login token. The user signs in again with the password it had; its login tokens from before the deactivation stay refused; its api keys work again unless expired or deleted. Writes user.reactivated {user_id}.",
    tag: "identity",
    auth: "admin-login-token",
    params: userIdParams,
    responses: {
      200: { description: "The user, active", schema: userRecord },
      404: { description: "Unknown user" },
      409: { description: "The user is already active" },
    },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await reactivateUser(ctx, params.user_id, caller.user.id) }),
  }),
];
