/**
 * Alert evaluation (CONTRACT §6.19), in every dispatcher, with no leader: each looks every half
 * interval whether a round is due, and the one that claims the evaluator row runs it (@hub/db
 * `alerts.evaluateRound`: measurements, transitions, their events through the outbox, all in one
 * transaction). Another dispatcher looking meanwhile skips the locked row at once, so a round
 * happens once per interval whatever their number, and one killed mid-round is redone by the next.
 * With no rule and no alert, a look is one probe of two empty tables.
 */
import { alerts, type Database } from "@hub/db";
import type { Logger } from "@hub/shared";
import type { DispatcherMetrics } from "../metrics";

export interface AlertEvaluatorDeps {
  database: Database;
  logger: Logger;
  metrics: DispatcherMetrics;
  intervalMs: number;
  /** Called after a round wrote events: the relays are nudged. */
  onEventsWritten?: () => void;
}

/** How often a dispatcher looks: twice per interval, so a round is at most 1.5 intervals after the last. */
export function alertLookIntervalMs(intervalMs: number): number {
  return Math.max(100, Math.floor(intervalMs / 2));
}

export function createAlertEvaluator({ database, logger, metrics, intervalMs, onEventsWritten }: AlertEvaluatorDeps) {
  return async (): Promise<void> => {
    const outcome = await alerts.evaluateRound(database.pool, intervalMs);
    if (!outcome.evaluated) return;
    metrics.alertEvaluations.inc();
    if (outcome.fired > 0) metrics.alertTransitions.inc({ to: "firing" }, outcome.fired);
    if (outcome.resolved > 0) metrics.alertTransitions.inc({ to: "resolved" }, outcome.resolved);
    if (outcome.fired + outcome.resolved > 0) {
      logger.info({ fired: outcome.fired, resolved: outcome.resolved }, "alerts changed");
      onEventsWritten?.();
    }
  };
}
