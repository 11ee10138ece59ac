import client from "prom-client";

export function createDispatcherMetrics() {
  const registry = new client.Registry();
  registry.setDefaultLabels({ app: "dispatcher" });
  client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    jobsOffered: new client.Counter({
      name: "hub_dispatcher_jobs_offered_total",
      help: "Jobs made claimable, by path (queue = from BullMQ, requeue = after a lapsed lease or timeout, due = a delayed job came due, reconcile = re-offered from PostgreSQL)",
      labelNames: ["path"] as const,
      registers: [registry],
    }),
    leasesExpired: new client.Counter({
      name: "hub_dispatcher_leases_expired_total",
      help: "Running jobs whose lease lapsed, by outcome",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    jobsTimedOut: new client.Counter({
      name: "hub_dispatcher_jobs_timed_out_total",
      help: "Running jobs that exceeded their automation's timeout_seconds, by outcome (requeued or failed)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    workersStopped: new client.Counter({
      name: "hub_dispatcher_workers_stopped_total",
      help: "Workers marked stopped after HUB_WORKER_TTL_SECONDS of silence",
      registers: [registry],
    }),
    reconciliations: new client.Counter({
      name: "hub_dispatcher_reconciliations_total",
      help: "Full PostgreSQL → Redis reconciliation passes, by trigger (interval or redis_lost)",
      labelNames: ["trigger"] as const,
      registers: [registry],
    }),
    taskErrors: new client.Counter({
      name: "hub_dispatcher_task_errors_total",
      help: "Failed runs of a periodic task (retried on its next tick)",
      labelNames: ["task"] as const,
      registers: [registry],
    }),
  };
}

export type DispatcherMetrics = ReturnType<typeof createDispatcherMetrics>;
