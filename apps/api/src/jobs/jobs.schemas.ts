import { z } from "zod";
import { jobs } from "@hub/db";
import { waitingReasonSchema } from "./waiting.schemas";
import { jobContextField, jobResultField } from "../http/payload-limits";
import {
  CANCELLABLE_JOB_STATUSES,
  IDEMPOTENCY_WINDOW_HOURS,
  isJobStatus,
  int32,
  isoDateTime,
  JOB_PRIORITY_DEFAULT,
  JOB_PRIORITY_MAX,
  JOB_PRIORITY_MIN,
  JOB_STATUSES,
  pydanticIssue,
  queryBool,
  queryInt,
  RETRYABLE_JOB_STATUSES,
  RUN_AT_MAX_DAYS_AHEAD,
  uuid,
  type JobStatus,
} from "@hub/shared";
import { pageQueryShape } from "../http/pagination";
import { jobProgress, progressReport } from "./progress.schemas";
import { CONTEXT_FILTERS_MAX } from "./context-filters";
import { approvalRecord, approvalStatusList, requiresApprovalField } from "../approvals/approvals.schemas";
import {
  ALWAYS,
  checkBatchReferences,
  checkSingleJobReferences,
  dependencyBodyFields,
  dependencyRecordFields,
  jobDependencies,
  withDependentsField,
} from "./dependencies.schemas";

/** Longest `error_contains` of GET /jobs (CONTRACT §6.14). */
export const ERROR_CONTAINS_MAX_CHARS = 100;
/** Longest a claim may long-poll (CONTRACT §3 "Worker protocol"). */
export const CLAIM_MAX_WAIT_SECONDS = 30;
export const FAILURE_ERROR_MAX_LENGTH = 10_000;

export const jobIdParams = z.object({ job_id: uuid() });

const MS_PER_DAY = 86_400_000;
const RUN_AT_EXAMPLE = "2026-12-24T06:00:00Z";

/**
 * `run_at` (CONTRACT §6.8): an RFC 3339 time, at most {@link RUN_AT_MAX_DAYS_AHEAD} days ahead of
 * this API process's clock (a `value_error` otherwise); a past time means now.
 */
const runAt = () =>
  isoDateTime([RUN_AT_EXAMPLE, "2026-12-24T07:00:00+01:00"]).superRefine((date, ctx) => {
    // Not a date when the text did not parse: that issue is reported already.
    if (!(date instanceof Date)) return;
    if (date.getTime() > Date.now() + RUN_AT_MAX_DAYS_AHEAD * MS_PER_DAY) {
      ctx.addIssue({
        code: "custom",
        input: date,
        ...pydanticIssue("value_error", `Value error, run_at may be at most ${RUN_AT_MAX_DAYS_AHEAD} days ahead`),
      });
    }
  });

/** `priority` (CONTRACT §6.8): higher is handed out first. */
const priority = () => z.int().min(JOB_PRIORITY_MIN).max(JOB_PRIORITY_MAX);

/** `priority` with its default, for requests that may omit it (a schedule's, CONTRACT §6.9). */
export const jobPriority = () =>
  priority().default(JOB_PRIORITY_DEFAULT).describe("Claim order: −100 to 100, higher first (then the earliest available_at, then creation order)");

/** A job to create, as POST /jobs takes it and each item of POST /jobs/batch. */
const createJobFields = z
  .object({
    automation_id: uuid(),
    context: jobContextField()
      .default({})
      .describe("Checked against the automation's context_schema; at most HUB_JOB_CONTEXT_MAX_BYTES (65536) bytes as compact JSON"),
    run_at: runAt()
      .nullable()
      .optional()
      .describe(
        `Run the job no earlier than this time (RFC 3339, at most ${RUN_AT_MAX_DAYS_AHEAD} days ahead). ` +
          "Omitted, null or past: as soon as possible. Until then the job is queued with waiting_reason scheduled.",
      ),
    priority: priority()
      .default(JOB_PRIORITY_DEFAULT)
      .describe(
        `${JOB_PRIORITY_MIN} to ${JOB_PRIORITY_MAX}: among due jobs, higher priorities are handed out first, then earlier available_at, then creation order`,
      )
      .meta({ examples: [10] }),
    requires_approval: requiresApprovalField(),
    ...dependencyBodyFields,
  })
  .meta({ id: "CreateJobBatchItem" });
export const createJobBody = createJobFields.superRefine(checkSingleJobReferences, ALWAYS).meta({ id: "CreateJobRequest" });
export type CreateJobBody = z.output<typeof createJobFields>;

/** Most jobs one POST /jobs/batch creates (CONTRACT §6.6). */
export const JOB_BATCH_MAX_JOBS = jobs.MAX_JOBS_PER_BATCH;

export const createJobBatchBody = z
  .object({
    jobs: z.array(createJobFields).min(1).max(JOB_BATCH_MAX_JOBS).describe("Created all or none, in this order; each item is checked as a POST /jobs body"),
  })
  .superRefine(checkBatchReferences, ALWAYS)
  .meta({ id: "CreateJobBatchRequest" });
export type CreateJobBatchBody = z.output<typeof createJobBatchBody>;

export const createdJobBatchResponse = z.object({ ids: z.array(z.uuid()).describe("The new jobs' ids, in input order") }).meta({ id: "CreatedJobBatch" });

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

export const createJobHeaders = z.object({
  // `abort`: one issue per bad key (an empty key is too short, not also a pattern mismatch), as in pydantic.
  [IDEMPOTENCY_KEY_HEADER]: z
    .string()
    .min(1, { abort: true })
    .max(255, { abort: true })
    .regex(/^[\x21-\x7e]+$/, "visible ASCII characters only")
    .optional()
    .describe(`The same key from the same user within ${IDEMPOTENCY_WINDOW_HOURS} h returns the first request's id(s) (200) and creates nothing`),
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
    // What a client sends: a list, comma-separated in one parameter (style form, explode false).
    .meta({
      type: "array",
      items: { type: "string", enum: [...JOB_STATUSES] },
      description: `One status or a comma-separated list of ${JOB_STATUSES.join(", ")}`,
    });

export const listJobsQuery = z.object({
  automation_id: uuid().optional(),
  status: statusList().optional(),
  approval: approvalStatusList().optional(),
  created_after: isoDateTime().optional().describe("Inclusive lower bound on created_at (RFC 3339)"),
  created_before: isoDateTime().optional().describe("Exclusive upper bound on created_at (RFC 3339)"),
  priority_min: queryInt({ min: JOB_PRIORITY_MIN, max: JOB_PRIORITY_MAX })
    .optional()
    .describe("Only jobs whose priority is at least this")
    .meta({ examples: [10] }),
  scheduled: queryBool().optional().describe("true: only queued jobs whose available_at is still ahead (a run_at or a retry back-off); false: every other job"),
  schedule_id: uuid().optional().describe("Only the jobs this schedule created"),
  depends_on: uuid().optional().describe("Only the jobs that list this job in their depends_on: its dependents"),
  created_by: uuid().optional().describe("Only the jobs this user created"),
  retry_of: uuid().optional().describe("Only the retries of this job (POST /jobs/{job_id}/retry or bulk-retry): the jobs whose retry_of is this id"),
  finished_after: isoDateTime().optional().describe("Inclusive lower bound on finished_at (RFC 3339); unfinished jobs never match"),
  finished_before: isoDateTime().optional().describe("Exclusive upper bound on finished_at (RFC 3339); unfinished jobs never match"),
  error_contains: z
    .string()
    .min(1)
    .max(ERROR_CONTAINS_MAX_CHARS)
    .optional()
    .describe(`Only jobs whose error contains this text, ignoring case (1–${ERROR_CONTAINS_MAX_CHARS} characters)`),
  // Filled from the context.<name> / context[<name>] parameters by contextFilterQuery (route.ts's patternQuery).
  context: z
    .custom<jobs.ContextFilter[]>((value) => Array.isArray(value))
    .optional()
    .meta({
      type: "object",
      additionalProperties: { type: "string" },
      description:
        `Context filters, up to ${CONTEXT_FILTERS_MAX}, and-ed: \`context[<name>]=<value>\` (or \`context.<name>=<value>\`) keeps the jobs whose context ` +
        "has the top-level key <name> (1–100 characters; never checked against the automation's parameters) with the string <value>, " +
        "case-sensitive; numbers, booleans and objects never match",
      examples: [{ invoice_id: "inv-1042" }],
    }),
  ...pageQueryShape(),
});
export type ListJobsQuery = z.output<typeof listJobsQuery>;

export const jobRecord = z
  .object({
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
    waiting_reason: waitingReasonSchema,
    queue_position: z
      .int()
      .min(1)
      .nullable()
      .describe(
        "In GET /jobs/{job_id}: 1 + the automation's due queued jobs ahead of it in claim order (priority desc, available_at, creation); " +
          "with a concurrency_key, only those of its key value (it does not predict the order across values, which fair sharing decides). " +
          "Null when not queued, while its own available_at is ahead, and in lists.",
      ),
    resumes_at: z.iso
      .datetime()
      .nullable()
      .describe(
        "In GET /jobs/{job_id} of a queued job that maintenance windows hold: when they end (the latest end among those in effect, overlapping ones followed to the last); " +
          "null otherwise and in lists",
      ),
    available_at: z.iso
      .datetime()
      .describe(
        "When the job may be handed out: the later of run_at and its creation (or of a reschedule), later while it waits out a retry back-off; PostgreSQL's clock. " +
          "In GET /jobs/{job_id} of a rate_limited job: when the rate limit's window next allows a start (computed when read; lists show the stored value)",
      ),
    retry_of: z.uuid().nullable().describe("The failed or cancelled job this one retries (POST /jobs/{job_id}/retry); null otherwise"),
    run_at: z.iso.datetime().nullable().describe("The time the job was asked to run at, as sent (POST /jobs or a reschedule); null when none was given"),
    priority: z.int().describe(`${JOB_PRIORITY_MIN} to ${JOB_PRIORITY_MAX}; among due jobs, higher priorities are handed out first`),
    schedule_id: z.uuid().nullable().describe("The schedule whose fire created the job; null for jobs created by a request"),
    fire_time: z.iso.datetime().nullable().describe("The schedule's fire time this job was created for; null otherwise"),
    progress: jobProgress
      .nullable()
      .describe("The worker's last reported progress (a heartbeat's `progress`); null until reported, and again once the job is queued again"),
    approval: approvalRecord.nullable().describe("The job's approval (CONTRACT §6.17); null for a job that needs none"),
    ...dependencyRecordFields,
  })
  .meta({ id: "Job", description: "One run of an automation with a context, from queued to completed, failed or cancelled" });
export type JobRecord = z.infer<typeof jobRecord>;

/** A job as the endpoints that hand one out show it: with its attempt's trace context (CONTRACT §6.20). */
export const claimedJobRecord = jobRecord
  .extend({
    traceparent: z
      .string()
      .nullable()
      .describe(
        "W3C traceparent of this attempt's `job.run <automation slug>` span, in the trace of the request that created the job: run the job as its child " +
          "(send it as the `traceparent` header of your calls about the job). Null when the hub does not trace",
      ),
    tracestate: z.string().nullable().describe("W3C tracestate to send with traceparent; null when there is none"),
    dependencies: jobDependencies,
  })
  .meta({ id: "ClaimedJob" });
export type ClaimedJobRecord = z.output<typeof claimedJobRecord>;

/** POST /jobs/{job_id}/reschedule: a new run_at, a new priority, or both (CONTRACT §6.8). */
export const rescheduleJobBody = z
  .object({
    run_at: runAt()
      .nullable()
      .optional()
      .describe("The new time to run the job at; null = now. available_at becomes the later of it and now. Omitted: the time stays as it is"),
    priority: priority()
      .optional()
      .describe("The new priority; omitted: it stays as it is")
      .meta({ examples: [50] }),
  })
  .superRefine((body, ctx) => {
    if (body.run_at === undefined && body.priority === undefined) {
      ctx.addIssue({ code: "custom", input: body, ...pydanticIssue("value_error", "Value error, give run_at, priority or both") });
    }
  })
  .meta({ id: "RescheduleJobRequest" });
export type RescheduleJobBody = z.output<typeof rescheduleJobBody>;

/** POST /jobs/{job_id}/retry (CONTRACT §6.14): an optional body; with `context`, the retry runs with it. An absent body means `{}`. */
export const retryJobBody = z
  .object({
    context: jobContextField()
      .optional()
      .describe(
        "The new job's context instead of the old one's, checked against the automation's parameters as POST /jobs checks it; " +
          "at most HUB_JOB_CONTEXT_MAX_BYTES (65536) bytes as compact JSON. Omitted: the old context",
      ),
    with_dependents: withDependentsField,
  })
  .default({})
  .meta({ id: "RetryJobRequest" });
export type RetryJobBody = z.output<typeof retryJobBody>;

/** An absent body means `{}`: a worker may POST /jobs/claim with no body at all. */
export const claimJobBody = z
  .object({
    wait_seconds: z.int().min(0).max(CLAIM_MAX_WAIT_SECONDS).default(0).describe("Long-poll: how long to wait for a job before answering 204"),
  })
  .default({ wait_seconds: 0 })
  .meta({ id: "ClaimJobRequest" });

/**
 * Optional fence on the attempt: the `attempts` value of the job as claimed. A worker that sends it
 * cannot have a late call of an earlier attempt of the same job accepted (409 instead).
 */
export const attemptFence = int32().min(1).optional().describe("The job's `attempts` as claimed; when given, a call for another attempt is refused with 409");

export const completeJobBody = z
  .object({ result: jobResultField().describe("At most HUB_JOB_RESULT_MAX_BYTES (262144) bytes as compact JSON"), attempt: attemptFence })
  .meta({ id: "CompleteJobRequest" });

/** POST /jobs/{job_id}/complete-and-claim: a complete's body, and how long to wait for the next job. */
export const completeAndClaimJobBody = z
  .object({
    result: jobResultField().describe("At most HUB_JOB_RESULT_MAX_BYTES (262144) bytes as compact JSON"),
    attempt: attemptFence,
    wait_seconds: z
      .int()
      .min(0)
      .max(CLAIM_MAX_WAIT_SECONDS)
      .default(0)
      .describe("Long-poll for the next job once the result is recorded: how long to wait before answering with `next: null`"),
  })
  .meta({ id: "CompleteAndClaimJobRequest" });

export const completeAndClaimJobResponse = z
  .object({
    job: jobRecord.describe("The job whose result was recorded, now completed"),
    next: claimedJobRecord
      .nullable()
      .describe("The worker's next job, now running under a lease, as POST /jobs/claim hands it out; null when none came within wait_seconds"),
  })
  .meta({ id: "CompletedAndClaimedJobs" });

export const failJobBody = z
  .object({
    error: z.string().min(1).max(FAILURE_ERROR_MAX_LENGTH),
    retryable: z.boolean().default(false).describe("Re-queue the job while attempts remain"),
    attempt: attemptFence,
  })
  .meta({ id: "FailJobRequest" });

/** An absent body means `{}`. */
export const heartbeatJobBody = z.object({ attempt: attemptFence, progress: progressReport.optional() }).default({}).meta({ id: "HeartbeatJobRequest" });

export const heartbeatResponse = z.object({ lease_expires_at: z.iso.datetime() }).meta({ id: "Lease" });

/** The two bulk actions (CONTRACT §6.5) and the statuses each applies to. */
export const BULK_ACTION_STATUSES = {
  cancel: CANCELLABLE_JOB_STATUSES,
  retry: RETRYABLE_JOB_STATUSES,
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
      limit: z.int().min(1).max(BULK_ACTION_MAX_LIMIT).default(1000).describe("Most jobs the action selects, oldest first by (created_at, id)"),
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

export const bulkCancelBody = bulkActionBody("cancel").meta({ id: "BulkCancelRequest" });
export const bulkRetryBody = bulkActionBody("retry").meta({ id: "BulkRetryRequest" });
export type BulkActionBody = z.output<typeof bulkCancelBody> | z.output<typeof bulkRetryBody>;

export const bulkActionResponse = z
  .object({
    matched: z.int().min(0).describe("Jobs the filters selected (at most `limit`) in a status the action applies to"),
    affected: z.int().min(0).describe("Jobs the action changed; 0 on a dry run. Jobs that changed state meanwhile are skipped"),
    job_ids: z.array(z.uuid()).describe(`Up to ${BULK_ACTION_LISTED_IDS} of the affected jobs (of the matched ones on a dry run), oldest first`),
  })
  .meta({ id: "BulkActionResult" });
export type BulkActionResponse = z.infer<typeof bulkActionResponse>;
