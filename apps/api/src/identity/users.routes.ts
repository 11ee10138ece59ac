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
    summary: "Create a user",
    tag: "identity",
    auth: "admin",
    body: createUserBody,
    responses: { 201: { description: "Created", schema: createdIdResponse }, 409: { description: "E-mail taken" } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createUser(ctx.db, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/identity/users",
    summary: "List active users",
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
    summary: "Get an active user",
    tag: "identity",
    auth: "admin",
    params: userIdParams,
    responses: { 200: { description: "The user", schema: userRecord }, 404: { description: "Unknown or deactivated user" } },
    handler: async ({ params, ctx }) => ({ status: 200, body: await getUser(ctx.db, params.user_id) }),
  }),
  defineRoute({
    method: "delete",
    path: "/identity/users/{user_id}",
    summary: "Deactivate a user",
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
      return { status: 204 };
    },
  }),
];
