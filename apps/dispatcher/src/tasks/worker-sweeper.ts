/** Workers silent for HUB_WORKER_TTL_SECONDS become `stopped`. */
import { workers } from "@hub/db";
import type { DispatcherContext } from "../config";

export function createWorkerSweeper({ database, logger, settings, metrics, outbox }: DispatcherContext) {
  return async function sweepWorkers(): Promise<void> {
    const stopped = await workers.stopSilent(database.pool, settings.workerTtlSeconds);
    if (stopped > 0) {
      outbox.nudge();
      metrics.workersStopped.inc(stopped);
      logger.info({ stopped }, "silent workers marked stopped");
    }
  };
}
