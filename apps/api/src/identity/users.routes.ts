import { z } from "zod";
import { createdIdResponse } from "../http/common-schemas";
import { defineRoute } from "../http/route";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { createUserBody, listUsersQuery, userIdParams, userRecord } from "./identity.schemas";
import { createUser, deactivateUser, getUser, listUsers } from "./users.service";

export const userRoutes = [
  defineRoute({
    method: "post",
    path: "/identity/users",
    operationId: "createUser",
    summary: "Create a user",
    description:
      "Admins only. The e-mail is stored lower-case and is unique (409 when taken); the password is 1–72 UTF-8 bytes (bcrypt's limit; never silently cut) and is kept only as a bcrypt hash. Writes a user.created event.",
    tag: "identity",
    auth: "admin",
    body: createUserBody,
    example: { email: "ana@example.com", password: "correct horse battery staple", role: "employee" },
    responses: { 201: { description: "Created", schema: createdIdResponse }, 409: { description: "E-mail taken" } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createUser(ctx.db, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/identity/users",
    operationId: "listUsers",
    summary: "List active users",
    description:
      "Admins only. Active users, oldest first, a page at a time (follow the `Link` header); deactivated users are left out.",
    tag: "identity",
    auth: "admin",
    query: listUsersQuery,
    paginated: true,
    responses: { 200: { description: `Active users, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(userRecord) } },
    handler: async ({ query, after, ctx }) => {
      const page = await listUsers(ctx.db, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/identity/users/{user_id}",
    operationId: "getUser",
    summary: "Get an active user",
    description:
      "Admins only. 404 for an unknown or a deactivated user.",
    tag: "identity",
    auth: "admin",
    params: userIdParams,
    responses: { 200: { description: "The user", schema: userRecord }, 404: { description: "Unknown or deactivated user" } },
    handler: async ({ params, ctx }) => ({ status: 200, body: await getUser(ctx.db, params.user_id) }),
  }),
  defineRoute({
    method: "delete",
    path: "/identity/users/{user_id}",
    operationId: "deactivateUser",
    summary: "Deactivate a user",
    description:
      "Admins only. The user's tokens stop working at once; the record stays, and events still name it. An admin cannot deactivate their own account (403) nor the last active admin (409).",
    tag: "identity",
    auth: "admin",
    params: userIdParams,
    responses: {
      204: { description: "Deactivated; the user's tokens stop working at once" },
      403: { description: "An admin cannot deactivate their own account" },
      404: { description: "Unknown or already deactivated user" },
      409: { description: "It would leave the hub without an active admin" },
    },
    handler: async ({ params, caller, ctx }) => {
      await deactivateUser(ctx.db, params.user_id, caller.user.id);
      ctx.auth.forgetCredentials();
      return { status: 204 };
    },
  }),
];
