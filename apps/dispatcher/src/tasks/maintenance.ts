/**
 * Maintenance windows (CONTRACT §6.18), in every dispatcher, with no leader: a timer that sleeps
 * until the next start or end of an occurrence (at most {@link MAINTENANCE_PROBE_MAX_MS}, so new and
 * changed windows are noticed), then
 * - writes `maintenance_window.started` / `.ended` of each occurrence that began or ended, each in
 *   the statement that stamps its row (@hub/db `maintenance.writeDueStarts` / `writeDueEnds`: rows
 *   locked SKIP LOCKED, the stamp re-checked under the lock), so each is written once, within about
 *   a second of its time, whatever the number of dispatchers; a dispatcher killed before its commit
 *   leaves the row unstamped and the next pass (any dispatcher's) writes it;
 * - after an end, wakes one waiting claim of each automation the occurrence held, so the held jobs
 *   start at once even where a claim was not told when to look again (the claims refused during the
 *   window already look again at its end by themselves);
 * - keeps every recurring window's occurrences filled 8 days ahead (`fillAhead`) and removes rows
 *   that ended more than a day ago (`pruneEnded`).
 * The claim itself never waits for this task: it reads the occurrence rows, which the API writes
 * in the transaction that creates or changes a window.
 */
import { type Database, maintenance } from "@hub/db";
import type { Logger } from "@hub/shared";
import { timetableFor } from "@hub/shared/cron";
import type { ReadyJobs } from "@hub/shared/dispatch";

/** Longest the timer sleeps between probes: how soon a new window's start is written when it begins at once. */
export const MAINTENANCE_PROBE_MAX_MS = 1000;
/** Occurrences one statement stamps; a full pass is followed by another at once. */
const EDGE_PASS_SIZE = 100;
/** Windows one fill pass takes. */
const FILL_PASS_SIZE = 50;
/** How often the fill and prune passes run (a window is filled again a day short of 8 days ahead). */
const UPKEEP_INTERVAL_MS = 60_000;

export interface MaintenanceTaskDeps {
  database: Database;
  ready: ReadyJobs;
  logger: Logger;
  /** Called after a pass wrote events: the relays are nudged. */
  onEventsWritten?: () => void;
}

export function createMaintenanceTask({ database, ready, logger, onEventsWritten }: MaintenanceTaskDeps) {
  let lastUpkeep = Number.NEGATIVE_INFINITY;

  async function wakeHeld(ended: readonly maintenance.OccurrenceEdge[]): Promise<void> {
    if (ended.length === 0) return;
    try {
      const automationIds = await maintenance.automationIdsInScope(database.pool, [...new Set(ended.map((edge) => edge.scopeId))]);
      if (automationIds.length > 0) await ready.wake(...automationIds);
    } catch (error) {
      logger.warn({ err: error }, "waking the claims a maintenance window held failed; they look again at its end by themselves");
    }
  }

  /** Writes what is due now; resolves with the milliseconds until the next tick. */
  async function tick(): Promise<number> {
    if (Date.now() - lastUpkeep >= UPKEEP_INTERVAL_MS) {
      while ((await maintenance.fillAhead(database.pool, FILL_PASS_SIZE, timetableFor)) === FILL_PASS_SIZE);
      await maintenance.pruneEnded(database.pool, 1000);
      lastUpkeep = Date.now();
    }
    for (;;) {
      const started = await maintenance.writeDueStarts(database.pool, EDGE_PASS_SIZE);
      const ended = await maintenance.writeDueEnds(database.pool, EDGE_PASS_SIZE);
      if (started.length + ended.length > 0) onEventsWritten?.();
      await wakeHeld(ended);
      if (started.length < EDGE_PASS_SIZE && ended.length < EDGE_PASS_SIZE) break;
    }
    const dueInMs = await maintenance.msUntilNextEdge(database.pool);
    if (dueInMs === null) return MAINTENANCE_PROBE_MAX_MS;
    return Math.max(0, Math.min(Math.ceil(dueInMs), MAINTENANCE_PROBE_MAX_MS));
  }

  return { tick };
}
