import { z } from "zod";
import { jobs } from "@hub/db";

/** A job record's `waiting_reason` (CONTRACT §6.3, §6.21's order), described reason by reason for the OpenAPI document. */
export const waitingReasonSchema = z
  .enum(jobs.WAITING_REASONS)
  .nullable()
  .describe(
    "While queued, why the job is not running yet, the first that applies: dependencies (a job of depends_on has not finished), awaiting_approval (its approval is pending: POST /jobs/{job_id}/approve), development_mode (dispatch paused), " +
      "maintenance_window (a maintenance window of its automation, its sector or the whole hub is in effect, or with drain begins within the automation's timeout_seconds; see resumes_at), " +
      "scheduled (available_at ahead, never attempted), scheduled_retry (available_at ahead after an attempt: back-off), " +
      "no_worker (none registered), worker_offline (registered but not seen within HUB_WORKER_TTL_SECONDS), " +
      "rate_limited (the automation's rate_limit window, or its key value's with per_key, is full; GET /jobs/{job_id} then shows as available_at when it next allows a start), " +
      "concurrency_limit (the running jobs, plus the due jobs ahead of it, fill max_concurrent_jobs), " +
      "key_concurrency_limit (its concurrency_key value runs max_concurrent_per_key jobs, or the due jobs of that value ahead of it take the rest), " +
      "next_in_line (a slot is free for it: one of the next claims hands it out). Null when not queued.",
  );
