/** Request and response shapes of the worker batch endpoints (CONTRACT §6.6); the single-job ones are in jobs.schemas.ts. */
import { z } from "zod";
import { jobResultField } from "../http/payload-limits";
import { uuid } from "@hub/shared";
import { CLAIM_MAX_WAIT_SECONDS, claimedJobRecord } from "../jobs/jobs.schemas";

export const CLAIM_BATCH_MAX_JOBS = 100;
export const CLAIM_BATCH_DEFAULT_JOBS = 10;
/** Most items of one complete-batch or heartbeat-batch call. */
export const WORKER_BATCH_MAX_ITEMS = 100;

const attemptFence = z.int().min(1).optional().describe("The job's `attempts` as claimed; when given, a call for another attempt is refused (conflict)");

/** An absent body means `{}`. */
export const claimBatchBody = z
  .object({
    max_jobs: z
      .int()
      .min(1)
      .max(CLAIM_BATCH_MAX_JOBS)
      .default(CLAIM_BATCH_DEFAULT_JOBS)
      .describe("At most this many jobs, and never beyond max_concurrent_jobs"),
    wait_seconds: z.int().min(0).max(CLAIM_MAX_WAIT_SECONDS).default(0).describe("Long-poll: how long to wait for a first job before answering 204"),
  })
  .default({ max_jobs: CLAIM_BATCH_DEFAULT_JOBS, wait_seconds: 0 })
  .meta({ id: "ClaimJobBatchRequest" });

export const claimBatchResponse = z
  .object({ jobs: z.array(claimedJobRecord).describe("Now running under leases, in claim order, each with the trace context to run it in") })
  .meta({ id: "ClaimedJobBatch" });

export const completeBatchBody = z
  .object({
    items: z
      .array(z.object({ id: uuid(), result: jobResultField(), attempt: attemptFence }))
      .min(1)
      .max(WORKER_BATCH_MAX_ITEMS),
  })
  .meta({ id: "CompleteJobBatchRequest" });

export const completeBatchResponse = z
  .object({
    results: z
      .array(
        z.object({
          id: z.uuid(),
          status: z.enum(["completed", "conflict", "not_found"]).describe("conflict: not running under this worker's lease (the 409 of a single complete)"),
        }),
      )
      .describe("One per item, in input order"),
  })
  .meta({ id: "CompleteJobBatchResult" });

export const heartbeatBatchBody = z.object({ ids: z.array(uuid()).min(1).max(WORKER_BATCH_MAX_ITEMS) }).meta({ id: "HeartbeatJobBatchRequest" });

export const heartbeatBatchResponse = z
  .object({
    results: z
      .array(
        z.object({
          id: z.uuid(),
          status: z.enum(["ok", "conflict", "not_found"]),
          lease_expires_at: z.iso.datetime().nullable().describe("The new lease expiry when ok, else null"),
        }),
      )
      .describe("One per id, in input order"),
  })
  .meta({ id: "HeartbeatJobBatchResult" });

export type CompleteBatchResponse = z.infer<typeof completeBatchResponse>;
export type HeartbeatBatchResponse = z.infer<typeof heartbeatBatchResponse>;
