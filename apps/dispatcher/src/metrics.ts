import { createMetricsRegistry, metricsOn } from "@hub/shared";

export function createDispatcherMetrics() {
  const registry = createMetricsRegistry("dispatcher");
  const metric = metricsOn(registry);
  return {
    registry,
    jobsOffered: metric.counter(
      "hub_dispatcher_jobs_offered_total",
      "Jobs made claimable, by path (queue = from BullMQ, requeue = after a lapsed lease or timeout, due = a delayed job came due, schedule = made by a schedule's fire, reconcile = re-offered from PostgreSQL, horizon = put in the delayed set from PostgreSQL as it nears its available_at)",
      ["path"],
    ),
    leasesExpired: metric.counter("hub_dispatcher_leases_expired_total", "Running jobs whose lease lapsed, by outcome", ["outcome"]),
    jobsTimedOut: metric.counter(
      "hub_dispatcher_jobs_timed_out_total",
      "Running jobs that exceeded their automation's timeout_seconds, by outcome (requeued or failed)",
      ["outcome"],
    ),
    workersStopped: metric.counter("hub_dispatcher_workers_stopped_total", "Workers marked stopped after HUB_WORKER_TTL_SECONDS of silence"),
    reconciliations: metric.counter(
      "hub_dispatcher_reconciliations_total",
      "Full PostgreSQL → Redis reconciliation passes, by trigger (interval or redis_lost)",
      ["trigger"],
    ),
    scheduleFires: metric.counter(
      "hub_dispatcher_schedule_fires_total",
      "Schedule fires this dispatcher made, by outcome (created = a job, overlap or invalid_context = skipped)",
      ["outcome"],
    ),
    retentionRowsRemoved: metric.counter(
      "hub_dispatcher_retention_rows_removed_total",
      "Rows the retention sweep removed (HUB_RETENTION_DAYS), by table (jobs, events, webhook_deliveries, alert_history)",
      ["table"],
    ),
    retentionSweeps: metric.counter(
      "hub_dispatcher_retention_sweeps_total",
      "Retention sweeps this dispatcher ran, by outcome (completed, lock_taken = another dispatcher was sweeping, stopped = shutdown)",
      ["outcome"],
    ),
    retentionSweepDuration: metric.histogram(
      "hub_dispatcher_retention_sweep_duration_seconds",
      "Duration of this dispatcher's completed retention sweeps",
      [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
    ),
    retentionLastSweep: metric.gauge(
      "hub_dispatcher_retention_last_sweep_timestamp_seconds",
      "Unix time at which this dispatcher last completed a retention sweep (0 = not yet)",
    ),
    alertEvaluations: metric.counter(
      "hub_dispatcher_alert_evaluations_total",
      "Alert evaluation rounds this dispatcher ran (CONTRACT §6.19; one round across all dispatchers per HUB_ALERTS_EVALUATION_INTERVAL_MS)",
    ),
    alertTransitions: metric.counter("hub_dispatcher_alert_transitions_total", "Alert transitions this dispatcher's rounds wrote, by to (firing or resolved)", [
      "to",
    ]),
    approvalsExpired: metric.counter("hub_dispatcher_approvals_expired_total", "Jobs cancelled because their approval request expired (CONTRACT §6.17)"),
    taskErrors: metric.counter("hub_dispatcher_task_errors_total", "Failed runs of a periodic task (retried on its next tick)", ["task"]),
  };
}

export type DispatcherMetrics = ReturnType<typeof createDispatcherMetrics>;
