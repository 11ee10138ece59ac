import { LATENCY_BUCKETS_SECONDS, metricsOn } from "@hub/shared";
import type { Registry } from "prom-client";

/**
 * What an operator needs to see of jobs from the API side: how many are created and claimed, how
 * long jobs wait for a worker and run, how long claims hold a connection, which worker calls the
 * lease fence refuses, and whether the Redis side of dispatch is keeping up.
 */
export function createJobMetrics(registry: Registry) {
  const metric = metricsOn(registry);
  return {
    created: metric.counter("hub_jobs_created_total", "Jobs created through POST /jobs (idempotent replays not counted)"),
    claims: metric.counter("hub_job_claims_total", "Answered POST /jobs/claim calls by outcome: claimed (200) or empty (204)", ["outcome"]),
    claimDuration: metric.histogram(
      "hub_job_claim_duration_seconds",
      "Time a POST /jobs/claim call took, long-poll wait included, by outcome",
      LATENCY_BUCKETS_SECONDS,
      ["outcome"],
    ),
    claimStatements: metric.counter(
      "hub_job_claim_statements_total",
      "Claim statements sent to PostgreSQL by outcome: claimed, none (room but nothing claimable), blocked (no room, paused, inactive)",
      ["outcome"],
    ),
    claimsWaiting: metric.gauge("hub_job_claims_waiting", "POST /jobs/claim calls currently long-polling in this process"),
    queueWait: metric.histogram(
      "hub_job_queue_wait_seconds",
      "Time from when a job became claimable (its available_at: creation, run_at or the end of a retry back-off) to its claim by a worker",
      LATENCY_BUCKETS_SECONDS,
    ),
    runDuration: metric.histogram(
      "hub_job_run_duration_seconds",
      "Time from claim to the worker's final report, by outcome (completed, failed)",
      LATENCY_BUCKETS_SECONDS,
      ["outcome"],
    ),
    workerCallsRefused: metric.counter(
      "hub_job_worker_calls_refused_total",
      "Worker heartbeat/complete/fail/logs calls refused by the lease fence, by call and reason (not_found, not_leased)",
      ["call", "reason"],
    ),
    logLines: metric.counter("hub_job_log_lines_total", "Log lines stored from workers' POST /jobs/{id}/logs (the limit's marker line not counted)"),
    logBytes: metric.counter("hub_job_log_bytes_total", "UTF-8 bytes of the log messages stored from workers"),
    logLinesDropped: metric.counter("hub_job_log_lines_dropped_total", "Log lines dropped because their job's log reached HUB_JOB_LOG_MAX_BYTES"),
    signalDelay: metric.histogram(
      "hub_signal_delay_seconds",
      "Time from the commit that took a running job from its worker to the cancel signal's write on that worker's signals stream",
      LATENCY_BUCKETS_SECONDS,
    ),
    dispatchSignalFailures: metric.counter(
      "hub_job_dispatch_signal_failures_total",
      "Redis dispatch signals after a commit that failed or timed out (the dispatcher's reconciler repairs them)",
      ["operation"],
    ),
  };
}

export type JobMetrics = ReturnType<typeof createJobMetrics>;
