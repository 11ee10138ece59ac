import { z } from "zod";
import { apiKeys } from "@hub/db";
import { queryBool, uuid } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";
import { USER_API_KEY_PREFIX, USER_API_KEY_SHOWN_PREFIX_LENGTH } from "./secret-keys";
import { distinctIds } from "./identity.schemas";

/** Longest and default lifetime of a key, in days (CONTRACT §6.10). */
export const API_KEY_MAX_DAYS = 365;
export const API_KEY_DEFAULT_DAYS = 90;

export const apiKeyIdParams = z.object({ api_key_id: uuid() });

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100).describe("What the key is for (the program using it); need not be unique"),
    expires_in_days: z.int().min(1).max(API_KEY_MAX_DAYS).default(API_KEY_DEFAULT_DAYS).describe("The key stops working this many days from now"),
    automation_ids: distinctIds("automation id")
      .nullable()
      .default(null)
      .describe(
        "Scope, fixed for the key's life: the key reaches only these automations (1–100 distinct ids, each within what its user reaches); null: everything its user reaches",
      ),
    read_only: z.boolean().default(false).describe("Scope: only GET (streams included) and DELETE of the key itself; anything else → 403"),
    role: z
      .enum(["employee"])
      .nullable()
      .default(null)
      .describe(
        "\"employee\": an admin's key that acts as an employee, with its user's sector_ids; null acts with its user's role. An employee's key takes no role",
      ),
  })
  .meta({ id: "CreateApiKeyRequest" });
export type CreateApiKeyBody = z.output<typeof createApiKeyBody>;

export const createdApiKeyResponse = z
  .object({
    id: z.uuid(),
    key: z.string().describe("`hub_…`: send it as `Authorization: Bearer <key>`. Shown only in this response"),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: "CreatedApiKey" });
export type CreatedApiKey = z.infer<typeof createdApiKeyResponse>;

const SHOWN_PREFIX = new RegExp(`^(?:${USER_API_KEY_PREFIX})?[A-Za-z0-9_-]{${USER_API_KEY_SHOWN_PREFIX_LENGTH}}$`);

export const listApiKeysQuery = z.object({
  user_id: uuid().optional().describe("Admins: that user's keys. Anyone else: only their own id"),
  all: queryBool().default(false).describe("Admins: every user's keys"),
  prefix: z
    .string()
    .regex(SHOWN_PREFIX, `the ${USER_API_KEY_SHOWN_PREFIX_LENGTH} characters after "${USER_API_KEY_PREFIX}", with or without "${USER_API_KEY_PREFIX}"`)
    .transform((prefix) => prefix.slice(prefix.length - USER_API_KEY_SHOWN_PREFIX_LENGTH))
    .optional()
    .describe(
      `The key whose first ${USER_API_KEY_SHOWN_PREFIX_LENGTH} characters after "${USER_API_KEY_PREFIX}" these are (a leaked key). Admins search every user's keys unless user_id is given`,
    ),
  ...pageQueryShape(),
});
export type ListApiKeysQuery = z.output<typeof listApiKeysQuery>;

export const apiKeyRecord = z
  .object({
    id: z.uuid(),
    user_id: z.uuid(),
    name: z.string(),
    prefix: z.string().describe(`The first ${USER_API_KEY_SHOWN_PREFIX_LENGTH} characters after "${USER_API_KEY_PREFIX}"`),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime().describe("Expired keys stay listed (and refused) until deleted"),
    last_used_at: z.iso
      .datetime()
      .nullable()
      .describe(`Written by the first use after ${apiKeys.API_KEY_LAST_USED_RESOLUTION_SECONDS} s or more, so up to that far behind`),
    automation_ids: z.array(z.uuid()).nullable().describe("The automations the key reaches; null: everything its user reaches"),
    read_only: z.boolean(),
    role: z.enum(["employee"]).nullable().describe('"employee": an admin\'s key acting as an employee'),
  })
  .meta({ id: "ApiKey", description: "A user's api key as listed: never the key, only its prefix" });
export type ApiKeyRecord = z.infer<typeof apiKeyRecord>;
