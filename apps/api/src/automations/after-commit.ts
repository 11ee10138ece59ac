import type { Logger } from "@hub/shared";

/**
 * Runs a Redis-side dispatch step (offer, wake, clear) after its PostgreSQL change committed. The
 * change stands either way, so a Redis failure is logged, not answered as an error: claims check
 * PostgreSQL and drop stale offers, long-polls time out and retry, and the dispatcher's reconciler
 * re-offers every queued job.
 */
export async function afterCommit(logger: Logger, step: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    logger.warn({ err: error, step }, "dispatch step after commit failed; reconciliation will repair it");
  }
}
