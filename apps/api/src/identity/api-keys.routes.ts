import { z } from "zod";
import { defineRoute } from "../http/route";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { apiKeyIdParams, apiKeyRecord, createApiKeyBody, createdApiKeyResponse, listApiKeysQuery } from "./api-keys.schemas";
import { createApiKey, listApiKeys, revokeApiKeyAsUser } from "./api-keys.service";

export const apiKeyRoutes = [
  defineRoute({
    method: "post",
    path: "/identity/api-keys",
    operationId: "createApiKey",
    secretInResponse: "key",
    summary: "Create an api key for a program",
    description:
      "A credential for a program (a CI pipeline, a script): `Authorization: Bearer hub_…` then acts as the caller, with the caller's role, on every bearer endpoint until the key expires (`expires_in_days`, 1–365, default 90) or is deleted, or the user is deactivated. The key is in this answer only; the hub keeps its SHA-256 digest. Needs a login token (an api key cannot create keys: 403). Writes `api_key.created`. " +
      'Optional scopes, fixed for the key\'s life: `automation_ids` (only those automations, within what the user reaches; any other → 422), `read_only` (only GET and streams, and DELETE of the key itself; anything else → 403 "This api key is read-only"), `role: "employee"` (an admin\'s key acting as an employee).',
    tag: "identity",
    auth: "user-login-token",
    body: createApiKeyBody,
    example: { name: "nightly invoice export", expires_in_days: 30 },
    responses: {
      201: { description: "The key, shown this once: only its SHA-256 digest is kept", schema: createdApiKeyResponse },
      403: { description: "Authenticated with an api key: keys are created with a login token" },
    },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: await createApiKey(ctx.database.pool, caller, body) }),
  }),
  defineRoute({
    method: "get",
    path: "/identity/api-keys",
    operationId: "listApiKeys",
    summary: "List api keys (never the keys themselves)",
    description:
      "The caller's keys, newest first, a page at a time; admins may add `user_id=`, `all=true`, and `prefix=` (the 8 characters after `hub_`) to find a leaked key. Authenticated with an api key, the list holds that key only.",
    tag: "identity",
    auth: "user",
    query: listApiKeysQuery,
    paginated: true,
    responses: {
      200: {
        description: `The caller's keys, newest first by (created_at, id); with an api key, that key only. Revoked keys are gone; expired ones stay until deleted. ${LINK_HEADER_DESCRIPTION}`,
        schema: z.array(apiKeyRecord),
      },
      403: { description: "An employee asked for another user's keys or every user's" },
    },
    handler: async ({ query, caller, after, ctx }) => {
      const page = await listApiKeys(ctx.database.pool, caller, query, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/identity/api-keys/{api_key_id}",
    operationId: "revokeApiKey",
    summary: "Revoke an api key",
    description:
      "Deletes one of the caller's keys (admins: anyone's); it stops working with the next request. Authenticated with an api key, only that same key may be deleted. Writes `api_key.revoked`.",
    tag: "identity",
    auth: "user",
    params: apiKeyIdParams,
    responses: {
      204: { description: "Revoked: the key stops working at once" },
      403: { description: "Authenticated with an api key, and this is another key" },
      404: { description: "Unknown, already deleted, or another user's key (admins may revoke any)" },
    },
    handler: async ({ params, caller, ctx }) => {
      await revokeApiKeyAsUser(ctx.database.pool, caller, params.api_key_id);
      ctx.auth.forgetCredentials();
      return { status: 204 };
    },
  }),
];
