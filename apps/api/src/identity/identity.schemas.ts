import { z } from "zod";
import { queryBool, ROLES, uuid } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";
import { passwordField } from "./password-rules";

/** RFC 5321's limit on a forward path; longer input is not an e-mail address. */
const EMAIL_MAX_LENGTH = 254;

/** A valid e-mail address, lower-cased: the login identifier is case-insensitive. */
export const emailField = () =>
  z
    .email()
    .max(EMAIL_MAX_LENGTH)
    .transform((email) => email.toLowerCase());

export const userIdParams = z.object({ user_id: uuid() });

export const listUsersQuery = z.object({
  ...pageQueryShape(),
  include_inactive: queryBool().default(false).describe("Also list deactivated users (`is_active: false`)"),
});

/** Most ids in a user's `sector_ids` or a key's `automation_ids` (CONTRACT §6.22). */
export const SCOPE_IDS_MAX = 100;

/**
 * 1–{@link SCOPE_IDS_MAX} distinct uuids: a repeated id is a `value_error` at its own index (the
 * second occurrence), found with the shape problems; unknown ids are checked against the data later.
 */
export const distinctIds = (what: string) =>
  z
    .array(z.uuid())
    .min(1)
    .max(SCOPE_IDS_MAX)
    .superRefine((ids, ctx) => {
      const seen = new Set<string>();
      ids.forEach((id, index) => {
        const key = id.toLowerCase();
        if (seen.has(key)) ctx.addIssue({ code: "custom", path: [index], message: `${what} is repeated` });
        seen.add(key);
      });
    });

/** `sector_ids`: null (every sector) or the sectors an employee reaches. */
export const sectorIdsField = () =>
  distinctIds("sector id")
    .nullable()
    .describe("The sectors an employee reaches: null (every sector) or 1–100 distinct sector ids. Stored for admins too; admins reach every sector");

/** The request bodies that set a password, for a minimum length (HUB_PASSWORD_MIN_LENGTH). */
function buildPasswordBodies(passwordMinLength: number) {
  return {
    createUser: z
      .object({
        email: emailField(),
        password: passwordField(passwordMinLength),
        role: z.enum(ROLES),
        sector_ids: sectorIdsField().default(null),
      })
      .meta({ id: "CreateUserRequest" }),
    changeOwnPassword: z
      .object({
        current_password: z.string().describe("The password the caller signs in with now"),
        new_password: passwordField(passwordMinLength),
      })
      .meta({ id: "ChangeOwnPasswordRequest" }),
    resetPassword: z
      .object({
        new_password: passwordField(passwordMinLength),
      })
      .meta({ id: "ResetPasswordRequest" }),
  };
}

export type PasswordBodies = ReturnType<typeof buildPasswordBodies>;
const passwordBodiesByMinLength = new Map<number, PasswordBodies>();

/** The password-setting bodies for this minimum length, built once per length. */
export function passwordBodies(passwordMinLength: number): PasswordBodies {
  let bodies = passwordBodiesByMinLength.get(passwordMinLength);
  if (!bodies) {
    bodies = buildPasswordBodies(passwordMinLength);
    passwordBodiesByMinLength.set(passwordMinLength, bodies);
  }
  return bodies;
}

export type CreateUserInput = z.output<PasswordBodies["createUser"]>;
export type ChangeOwnPasswordInput = z.output<PasswordBodies["changeOwnPassword"]>;

export const changeUserBody = z
  .object({
    role: z.enum(ROLES).optional().describe("The new role; the same role is a no-op"),
    sector_ids: sectorIdsField().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.role === undefined && body.sector_ids === undefined) ctx.addIssue({ code: "custom", path: [], message: "give role, sector_ids or both" });
  })
  .meta({ id: "ChangeUserRequest" });
export type ChangeUserInput = z.output<typeof changeUserBody>;

/** POST /identity/token as JSON. Login takes any string: a malformed e-mail simply never matches. */
export const loginJsonBody = z
  .object({
    email: z.string(),
    password: z.string(),
  })
  .meta({ id: "LoginRequest" });
export type LoginInput = z.output<typeof loginJsonBody>;

/**
 * POST /identity/token as the OAuth2 password form (what Swagger UI's "Authorize" sends). As in
 * FastAPI's OAuth2PasswordRequestForm, an empty `grant_type` counts as absent.
 */
export const loginFormBody = z
  .object({
    username: z.string(),
    password: z.string(),
    grant_type: z.preprocess(
      (value) => (value === "" ? undefined : value),
      z
        .string()
        .regex(/^password$/)
        .optional(),
    ),
  })
  .transform(({ username, password }): LoginInput => ({ email: username, password }))
  .meta({ id: "LoginForm", description: "The OAuth2 password form: the e-mail as username" });

export const tokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_in: z.int().describe("Seconds until the token expires"),
  })
  .meta({ id: "AccessToken" });

export const userRecord = z
  .object({
    id: z.uuid(),
    email: z.string(),
    role: z.enum(ROLES),
    is_active: z.boolean(),
    created_at: z.iso.datetime(),
    sector_ids: z.array(z.uuid()).nullable().describe("The sectors an employee reaches; null: every sector"),
  })
  .meta({ id: "User", description: "A hub user; never a password or its hash" });
export type UserRecord = z.infer<typeof userRecord>;
