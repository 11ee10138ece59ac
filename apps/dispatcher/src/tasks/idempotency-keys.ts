/** Idempotency keys past their window are forgotten (every 10 minutes). */
import { idempotencyKeys } from "@hub/db";
import type { DispatcherContext } from "../config";

export const FORGET_IDEMPOTENCY_KEYS_INTERVAL_MS = 600_000;

export function createIdempotencyKeySweeper({ database }: DispatcherContext) {
  return async function forgetOldIdempotencyKeys(): Promise<void> {
    // In bounded statements: after a long outage there may be days of them.
    for (;;) {
      const forgotten = await idempotencyKeys.forgetExpired(database.pool, idempotencyKeys.IDEMPOTENCY_KEYS_FORGET_BATCH);
      if (forgotten < idempotencyKeys.IDEMPOTENCY_KEYS_FORGET_BATCH) return;
    }
  };
}
