/** Forgetting Idempotency-Key bindings past their window (the dispatcher's housekeeping). */
import type { Executor } from "../../executor";
import { IDEMPOTENCY_WINDOW } from "../jobs/insert";

/** Most bindings one {@link forgetExpired} statement removes. */
export const IDEMPOTENCY_KEYS_FORGET_BATCH = 1000;

/**
 * Forgets up to `limit` Idempotency-Key bindings past their window, oldest first (the dispatcher
 * calls it until it returns less than `limit`): a bounded statement, so a dispatcher that was down
 * for a week does not remove a week of bindings in one transaction. Bindings a request is
 * refreshing at that moment are skipped, not waited for.
 */
export async function forgetExpired(db: Executor, limit = IDEMPOTENCY_KEYS_FORGET_BATCH): Promise<number> {
  const result = await db.query({
    name: "idempotency_keys_forget_expired",
    text: `delete from idempotency_keys k
 using (select user_id, key from idempotency_keys where created_at <= now() - ${IDEMPOTENCY_WINDOW}
         order by created_at limit $1 for update skip locked) expired
 where k.user_id = expired.user_id and k.key = expired.key and k.created_at <= now() - ${IDEMPOTENCY_WINDOW}`,
    values: [limit],
  });
  return result.rowCount ?? 0;
}
