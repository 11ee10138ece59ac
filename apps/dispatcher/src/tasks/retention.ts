/**
 * The retention sweep (docs/operations.md "Retention"): every HUB_RETENTION_INTERVAL_MS each dispatcher runs
 * it; the first batch that finds the retention lock held by another dispatcher ends that
 * dispatcher's sweep, so replicas take turns rather than scanning the same rows. A sweep removes,
 * batch after batch until a batch finds less than a full one:
 * 1. webhook delivery records (delivered or failed) created more than HUB_RETENTION_DAYS ago;
 * 2. jobs that finished more than HUB_RETENTION_DAYS ago, with their events;
 * 3. events of the types the catalogue marks `age` (`schedule.skipped`, `worker.status_changed`)
 *    older than that.
 * Each batch is one short transaction of its own (packages/db/src/sql/retention/remove-expired.ts), and the
 * sweep pauses after each as long as it took: a sweep catching up a large backlog works half the
 * time, leaving PostgreSQL to the hub's own work the other half (docs/CAPACITY.md "Retention"). With
 * HUB_RETENTION_DAYS=0 nothing is ever removed.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type Database, retention } from "@hub/db";
import { EVENT_TYPES_REMOVED_BY_AGE, type Logger } from "@hub/shared";
import type { DispatcherMetrics } from "../metrics";

export interface RetentionSettings {
  /** HUB_RETENTION_DAYS: 0 keeps everything. */
  retentionDays: number;
  /** HUB_RETENTION_BATCH_SIZE: most jobs, events or deliveries one transaction picks. */
  batchSize: number;
}

/** The tables a sweep removes rows from, as the metric's `table` label names them. */
export type RetentionTable = "jobs" | "events" | "webhook_deliveries" | "alert_history";

/** How a sweep ended: it ran to the end, another dispatcher was sweeping, or the dispatcher is stopping. */
export type SweepOutcome = "completed" | "lock_taken" | "stopped" | "disabled";

export interface SweepReport {
  outcome: SweepOutcome;
  removed: Record<RetentionTable, number>;
  batches: number;
  seconds: number;
}

export function createRetentionSweeper(deps: { database: Database; logger: Logger; metrics: DispatcherMetrics; settings: RetentionSettings }) {
  const { database, logger, metrics, settings } = deps;
  let stopping = false;
  /** Ends the pause between batches early when the dispatcher stops. */
  const stopped = new AbortController();

  async function sweep(): Promise<SweepReport> {
    const started = performance.now();
    const startedAt = new Date();
    const removed: Record<RetentionTable, number> = { jobs: 0, events: 0, webhook_deliveries: 0, alert_history: 0 };
    let batches = 0;
    const options = { retentionDays: settings.retentionDays, batchSize: settings.batchSize };

    /** Runs `batch` until it picks less than a full batch; resolves with an outcome when the sweep must end early. */
    const drain = async (batch: () => Promise<retention.RetentionBatch | null>): Promise<SweepOutcome | undefined> => {
      for (;;) {
        if (stopping) return "stopped";
        const begun = performance.now();
        const outcome = await batch();
        if (outcome === null) return "lock_taken";
        const tookMs = performance.now() - begun;
        batches += 1;
        const { jobs, events, webhookDeliveries, alertHistory } = outcome.removed;
        removed.jobs += jobs;
        removed.events += events;
        removed.webhook_deliveries += webhookDeliveries;
        removed.alert_history += alertHistory;
        metrics.retentionRowsRemoved.inc({ table: "jobs" }, jobs);
        metrics.retentionRowsRemoved.inc({ table: "events" }, events);
        metrics.retentionRowsRemoved.inc({ table: "webhook_deliveries" }, webhookDeliveries);
        metrics.retentionRowsRemoved.inc({ table: "alert_history" }, alertHistory);
        if (outcome.picked < settings.batchSize) return undefined;
        await sleep(tookMs, undefined, { signal: stopped.signal }).catch(() => undefined);
      }
    };

    let outcome: SweepOutcome = "completed";
    if (settings.retentionDays === 0) outcome = "disabled";
    else {
      const steps: Array<() => Promise<retention.RetentionBatch | null>> = [
        () => retention.removeExpiredWebhookDeliveries(database.pool, options),
        () => retention.removeExpiredAlertHistory(database.pool, options),
        () => retention.removeExpiredJobs(database.pool, options),
        ...EVENT_TYPES_REMOVED_BY_AGE.map((eventType) => () => retention.removeExpiredEventsOfType(database.pool, eventType, options)),
      ];
      for (const step of steps) {
        const ended = await drain(step);
        if (ended) {
          outcome = ended;
          break;
        }
      }
    }

    const seconds = (performance.now() - started) / 1000;
    metrics.retentionSweeps.inc({ outcome });
    if (outcome === "completed") {
      metrics.retentionSweepDuration.observe(seconds);
      metrics.retentionLastSweep.set(Date.now() / 1000);
    }
    const report: SweepReport = { outcome, removed, batches, seconds };
    const total = removed.jobs + removed.events + removed.webhook_deliveries + removed.alert_history;
    // Times in the log line let an operator (and the system test) place the sweep against other work.
    const details = { ...report, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString() };
    if (total > 0) logger.info(details, "retention sweep removed old rows");
    else logger.debug(details, "retention sweep found nothing to remove");
    return report;
  }

  return {
    sweep,
    /** Makes a sweep in progress end after its current batch (shutdown: a long sweep must not hold it up). */
    stop(): void {
      stopping = true;
      stopped.abort();
    },
  };
}

export type RetentionSweeper = ReturnType<typeof createRetentionSweeper>;
