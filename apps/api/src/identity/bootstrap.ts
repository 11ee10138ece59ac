import type { Db } from "@hub/db";
import type { Logger } from "@hub/shared";

/**
 * Creates the first admin from HUB_ADMIN_EMAIL / HUB_ADMIN_PASSWORD when both are set and no user
 * has that e-mail yet (CONTRACT §2).
 */
export async function ensureFirstAdmin(_db: Db, _email: string | undefined, _password: string | undefined, _logger: Logger): Promise<void> {
  // Filled in by the identity module.
}
