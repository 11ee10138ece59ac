/**
 * The scan floor: a position below which no undispatched event exists or can still appear. Reads
 * start there instead of at the oldest entry of the partial index, which keeps the dead (stamped,
 * not yet vacuumed) entries below it out of every probe. Why it is safe: ../README.md, "Scan floor".
 */
import { type Executor, events } from "@hub/db";
import type { RelayMetrics } from "./metrics";

export interface ScanFloor {
  /** Every undispatched event, now or later, has a position ≥ this (0 until first computed). */
  position(): number;
  /**
   * Moves the floor up if a refresh is due. Throws on a database failure, which leaves the floor
   * where it was (always safe).
   */
  refreshIfDue(): Promise<void>;
}

export function createScanFloor(options: { db: Executor; refreshMs: number; metrics: RelayMetrics }): ScanFloor {
  const { db, metrics } = options;
  let floor = 0;
  let horizon: events.OutboxHorizon | undefined;
  let nextRefreshAt = 0;
  let enabled: boolean | undefined;

  /**
   * Two steps a refresh apart: read a horizon (the last position handed out and the transactions
   * running then); once they have all ended, no row at or below that position can still appear,
   * so the lowest undispatched one among them (or the position after) is the new floor.
   */
  async function refresh(): Promise<void> {
    enabled ??= await events.isPositionSequenceUncached(db);
    if (!enabled) return;
    // The floor is past the horizon: every position up to it is settled, and while no position
    // is handed out after it (the outbox is quiet) nothing can move the floor. One cheap read
    // then, not the three of a step (the running-transactions read joins pg_locks and pg_stat_activity).
    if (horizon && floor > horizon.lastPosition && (await events.lastOutboxPosition(db)) === horizon.lastPosition) return;
    if (horizon) {
      if (await events.isOutboxHorizonOpen(db, horizon)) return;
      const lowest = await events.lowestUndispatchedPosition(db, { from: floor, to: horizon.lastPosition });
      floor = lowest ?? horizon.lastPosition + 1;
      metrics.scanFloor.set(floor);
    }
    horizon = await events.readOutboxHorizon(db);
  }

  return {
    position: () => floor,
    async refreshIfDue() {
      if (Date.now() < nextRefreshAt) return;
      nextRefreshAt = Date.now() + options.refreshMs;
      await refresh();
    },
  };
}
