import { z } from "zod";
import { MAX_JOBS_PER_BATCH, WAITING_REASONS } from "@hub/db";
import { isoDateTime, JOB_STATUSES, jsonObject, pydanticIssue, uuid, type JobStatus } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";
/** Longest a claim may long-poll (CONTRACT §3 "Worker protocol"). */
export const CLAIM_MAX_WAIT_SECONDS = 30;
export const FAILURE_ERROR_MAX_LENGTH = 10_000;

export const jobIdParams = z.object({ job_id: uuid() });

export const createJobBody = z.object({
  automation_id: uuid(),
  context: jsonObject().default({}).describe("Checked against the automation's context_schema"),
});
export type CreateJobBody = z.output<typeof createJobBody>;

/** Most jobs one POST /jobs/batch creates (CONTRACT §6.6). */
export const JOB_BATCH_MAX_JOBS = MAX_JOBS_PER_BATCH;

export const createJobBatchBody = z.object({
  jobs: z
    .array(createJobBody)
    .min(1)
    .max(JOB_BATCH_MAX_JOBS)
    .describe("Created all or none, in this order; each item is checked as a POST /jobs body"),
});
export type CreateJobBatchBody = z.output<typeof createJobBatchBody>;

export const createdJobBatchResponse = z.object({ ids: z.array(z.uuid()).describe("The new jobs' ids, in input order") });

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

export const createJobHeaders = z.object({
  // `abort`: one issue per bad key (an empty key is too short, not also a pattern mismatch), as in pydantic.
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .min(1, { abort: true })
    .max(255, { abort: true })
    .regex(/^[\x21-\x7e]+$/, "visible ASCII characters only")
    .optional()
    .describe("The same key from the same user within 24 h returns the first request's id(s) (200) and creates nothing"),
});

/**
 * One status or a comma-separated list (`failed,cancelled`), each checked (422 `enum`); repeated
 * parameters (`status=failed&status=cancelled`) count as one list. Parsed to the distinct statuses.
 */
const statusList = () =>
  z
    .preprocess((value) => (Array.isArray(value) && value.every((v) => typeof v === "string") ? value.join(",") : value), z.string())
    .transform((text, ctx) => {
      const statuses: JobStatus[] = [];
      for (const part of text.split(",").map((status) => status.trim())) {
        if (isJobStatus(part)) statuses.push(part);
        // Located at ["query","status"], one issue per unknown status, as pydantic reports an enum.
        else ctx.addIssue({ code: "invalid_value", values: [...JOB_STATUSES], input: part });
      }
      return [...new Set(statuses)];
    })
    // What a client sends: text, not the list it is parsed into.
    .meta({ type: "string", description: `One status or a comma-separated list of ${JOB_STATUSES.join(", ")}` });

function isJobStatus(value: string): value is JobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value);
}

export const listJobsQuery = z.object({
  automation_id: uuid().optional(),
  status: statusList().optional(),
  created_after: isoDateTime().optional().describe("Inclusive lower bound on created_at (RFC 3339)"),
  created_before: isoDateTime().optional().describe("Exclusive upper bound on created_at (RFC 3339)"),
  ...pageQueryShape(),
});
export type ListJobsQuery = z.output<typeof listJobsQuery>;

export const jobRecord = z.object({
  id: z.uuid(),
  automation_id: z.uuid(),
  status: z.enum(JOB_STATUSES),
  context: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  attempts: z.int(),
  created_by: z.uuid().nullable(),
  created_at: z.iso.datetime(),
  started_at: z.iso.datetime().nullable(),
  finished_at: z.iso.datetime().nullable(),
  lease_expires_at: z.iso.datetime().nullable(),
  waiting_reason: z
    .enum(WAITING_REASONS)
    .nullable()
    .describe(
      "While queued, why the job is not running yet, the first that applies: development_mode (dispatch paused), " +
        "no_worker (none registered), worker_offline (registered but not seen within HUB_WORKER_TTL_SECONDS), " +
        "scheduled (available_at ahead, never attempted), scheduled_retry (available_at ahead after an attempt: back-off), " +
        "concurrency_limit (the running jobs, plus the due jobs ahead of it, fill max_concurrent_jobs), " +
        "next_in_line (a slot is free for it: one of the next claims hands it out). Null when not queued.",
    ),
  queue_position: z
    .int()
    .min(1)
    .nullable()
    .describe(
      "In GET /jobs/{job_id}: 1 + the automation's due queued jobs ahead of it in claim order (priority desc, available_at, creation). " +
        "Null when not queued, while its own available_at is ahead, and in lists.",
    ),
  available_at: z.iso
    .datetime()
    .describe("When the job may be handed out (creation, or later while it waits out a retry back-off); PostgreSQL's clock"),
  retry_of: z.uuid().nullable().describe("The failed or cancelled job this one retries (POST /jobs/{job_id}/retry); null otherwise"),
});
export type JobRecord = z.infer<typeof jobRecord>;

/** An absent body means `{}`: a worker may POST /jobs/claim with no body at all. */
export const claimJobBody = z
  .object({
    wait_seconds: z
      .int()
      .min(0)
      .max(CLAIM_MAX_WAIT_SECONDS)
      .default(0)
      .describe("Long-poll: how long to wait for a job before answering 204"),
  })
  .default({ wait_seconds: 0 });

/**
 * Optional fence on the attempt: the `attempts` value of the job as claimed. A worker that sends it
 * cannot have a late call of an earlier attempt of the same job accepted (409 instead).
 */
const attemptFence = z
  .int()
  .min(1)
  .optional()
  .describe("The job's `attempts` as claimed; when given, a call for another attempt is refused with 409");

export const completeJobBody = z.object({ result: jsonObject(), attempt: attemptFence });

export const failJobBody = z.object({
  error: z.string().min(1).max(FAILURE_ERROR_MAX_LENGTH),
  retryable: z.boolean().default(false).describe("Re-queue the job while attempts remain"),
  attempt: attemptFence,
});

/** An absent body means `{}`. */
export const heartbeatJobBody = z.object({ attempt: attemptFence }).default({});

export const heartbeatResponse = z.object({ lease_expires_at: z.iso.datetime() });

/** The two bulk actions (CONTRACT §6.5) and the statuses each applies to. */
export const BULK_ACTION_STATUSES = {
  cancel: ["queued", "running"],
  retry: ["failed", "cancelled"],
} as const satisfies Record<string, readonly JobStatus[]>;
export type BulkAction = keyof typeof BULK_ACTION_STATUSES;

/** Most jobs one bulk action selects, and how many of their ids the answer lists. */
export const BULK_ACTION_MAX_LIMIT = 10_000;
export const BULK_ACTION_LISTED_IDS = 1000;

const BULK_FILTERS = ["automation_id", "status", "created_after", "created_before"] as const;

/** The body of POST /jobs/bulk-cancel or /jobs/bulk-retry: filters (at least one), dry_run, limit. */
function bulkActionBody<A extends BulkAction>(action: A) {
  const statuses = BULK_ACTION_STATUSES[action];
  return z
    .object({
      automation_id: uuid().optional().describe("Only this automation's jobs"),
      status: z
        .array(z.enum(statuses))
        .min(1)
        .optional()
        .describe(`Only jobs in one of these statuses (${statuses.join(", ")}); all of them when omitted`),
      created_after: isoDateTime().optional().describe("Inclusive lower bound on created_at (RFC 3339)"),
      created_before: isoDateTime().optional().describe("Exclusive upper bound on created_at (RFC 3339)"),
      dry_run: z.boolean().default(false).describe("Count and list the matching jobs, change nothing"),
      limit: z
        .int()
        .min(1)
        .max(BULK_ACTION_MAX_LIMIT)
        .default(1000)
        .describe("Most jobs the action selects, oldest first by (created_at, id)"),
    })
    .superRefine((body, ctx) => {
      // Without a filter the action would sweep the whole job table: refused on ["body"].
      if (BULK_FILTERS.every((field) => body[field] === undefined)) {
        ctx.addIssue({
          code: "custom",
          input: body,
          ...pydanticIssue("value_error", `Value error, give at least one filter: ${BULK_FILTERS.join(", ")}`),
        });
      }
    });
}

export const bulkCancelBody = bulkActionBody("cancel");
export const bulkRetryBody = bulkActionBody("retry");
export type BulkActionBody = z.output<typeof bulkCancelBody> | z.output<typeof bulkRetryBody>;

export const bulkActionResponse = z.object({
  matched: z.int().min(0).describe("Jobs the filters selected (at most `limit`) in a status the action applies to"),
  affected: z.int().min(0).describe("Jobs the action changed; 0 on a dry run. Jobs that changed state meanwhile are skipped"),
  job_ids: z
    .array(z.uuid())
    .describe(`Up to ${BULK_ACTION_LISTED_IDS} of the affected jobs (of the matched ones on a dry run), oldest first`),
});
export type BulkActionResponse = z.infer<typeof bulkActionResponse>;
