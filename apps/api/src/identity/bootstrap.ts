import { users, type Executor } from "@hub/db";
import { validate, type Logger } from "@hub/shared";
import { z } from "zod";
import { ConflictError } from "../http/http-errors";
import { emailField } from "./identity.schemas";
import { DEFAULT_PASSWORD_MIN_LENGTH, passwordField } from "./password-rules";
import { warmUpPasswordHashing } from "./passwords";
import { createUser } from "./users.service";

const adminCredentials = (passwordMinLength: number) => z.object({ HUB_ADMIN_EMAIL: emailField(), HUB_ADMIN_PASSWORD: passwordField(passwordMinLength) });

/** Raised for an admin e-mail or password the hub could not log in with; names the variable. */
export class AdminCredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AdminCredentialsError";
  }
}

export type FirstAdminOutcome = "created" | "exists" | "not-configured";

/**
 * Creates the first admin from HUB_ADMIN_EMAIL / HUB_ADMIN_PASSWORD when both are set and no user
 * has that e-mail yet (CONTRACT §2), with its `user.created` event (actor null). Safe when several
 * API processes start at once: the unique e-mail lets exactly one insert win.
 */
export async function ensureFirstAdmin(
  db: Executor,
  email: string | undefined,
  password: string | undefined,
  logger: Logger,
  passwordMinLength = DEFAULT_PASSWORD_MIN_LENGTH,
): Promise<FirstAdminOutcome> {
  // Start-up is the moment to pay for the dummy hash that failed logins compare against.
  const warmUp = warmUpPasswordHashing();
  try {
    if (email === undefined || password === undefined) return "not-configured";
    const parsed = validate(adminCredentials(passwordMinLength), { HUB_ADMIN_EMAIL: email, HUB_ADMIN_PASSWORD: password }, []);
    if (!parsed.ok) {
      const [issue] = parsed.issues;
      throw new AdminCredentialsError(`Configuration error: ${String(issue?.loc[0])} is invalid: ${issue?.msg ?? "bad value"}`);
    }
    const admin = { email: parsed.value.HUB_ADMIN_EMAIL, password: parsed.value.HUB_ADMIN_PASSWORD, role: "admin" as const, sector_ids: null };
    // Checked first so that an ordinary restart spends no bcrypt hash.
    if (await users.emailIsTaken(db, admin.email)) return "exists";
    try {
      await createUser(db, admin, null);
    } catch (error) {
      if (error instanceof ConflictError) return "exists"; // another process created it first
      throw error;
    }
    logger.info({ email: admin.email }, "first admin created");
    return "created";
  } finally {
    await warmUp;
  }
}
