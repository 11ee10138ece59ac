import client from "prom-client";

/** Seconds, from a fast claim to the longest long-poll (30 s) and jobs that wait or run for minutes. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/**
 * What an operator needs to see of jobs from the API side: how many are created and claimed, how
 * long jobs wait for a worker and run, how long claims hold a connection, which worker calls the
 * lease fence refuses, and whether the Redis side of dispatch is keeping up.
 */
export function createJobMetrics(registry: client.Registry) {
  const registers = [registry];
  return {
    created: new client.Counter({
      name: "hub_jobs_created_total",
      help: "Jobs created through POST /jobs (idempotent replays not counted)",
      registers,
    }),
    claims: new client.Counter({
      name: "hub_job_claims_total",
      help: "Answered POST /jobs/claim calls by outcome: claimed (200) or empty (204)",
      labelNames: ["outcome"] as const,
      registers,
    }),
    claimDuration: new client.Histogram({
      name: "hub_job_claim_duration_seconds",
      help: "Time a POST /jobs/claim call took, long-poll wait included, by outcome",
      labelNames: ["outcome"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    claimStatements: new client.Counter({
      name: "hub_job_claim_statements_total",
      help: "Claim statements sent to PostgreSQL by outcome: claimed, none (room but nothing claimable), blocked (no room, paused, inactive)",
      labelNames: ["outcome"] as const,
      registers,
    }),
    claimsWaiting: new client.Gauge({
      name: "hub_job_claims_waiting",
      help: "POST /jobs/claim calls currently long-polling in this process",
      registers,
    }),
    queueWait: new client.Histogram({
      name: "hub_job_queue_wait_seconds",
      help: "Time from a job's creation to its claim by a worker",
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    runDuration: new client.Histogram({
      name: "hub_job_run_duration_seconds",
      help: "Time from claim to the worker's final report, by outcome (completed, failed)",
      labelNames: ["outcome"] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    workerCallsRefused: new client.Counter({
      name: "hub_job_worker_calls_refused_total",
      help: "Worker heartbeat/complete/fail calls refused by the lease fence, by call and reason (not_found, not_leased)",
      labelNames: ["call", "reason"] as const,
      registers,
    }),
    dispatchSignalFailures: new client.Counter({
      name: "hub_job_dispatch_signal_failures_total",
      help: "Redis dispatch signals after a commit that failed or timed out (the dispatcher's reconciler repairs them)",
      labelNames: ["operation"] as const,
      registers,
    }),
  };
}

export type JobMetrics = ReturnType<typeof createJobMetrics>;
