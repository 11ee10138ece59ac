import { z } from "zod";
import { jobs } from "@hub/db";
import { defineRoute } from "../http/route";
import { createdIdResponse } from "../http/common-schemas";
import { retriedJobResponse } from "./dependencies.schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import {
  bulkActionResponse,
  bulkCancelBody,
  bulkRetryBody,
  createdJobBatchResponse,
  createJobBatchBody,
  createJobBody,
  createJobHeaders,
  IDEMPOTENCY_KEY_HEADER,
  jobIdParams,
  jobRecord,
  listJobsQuery,
  rescheduleJobBody,
  retryJobBody,
} from "./jobs.schemas";
import { cancelJobAsUser, checkRetryAllowed, getJob, listJobs, retryJobAsUser, runBulkAction } from "./jobs.service";
import { createJob, createJobBatch } from "./create-jobs.service";
import { requestTrace } from "../http/request-trace";
import { rescheduleJobAsUser } from "./reschedule.service";
import { contextFilterQuery } from "./context-filters";

/** What POST /jobs and POST /jobs/batch say about run_at and priority (CONTRACT §6.8). */
const SCHEDULING_DESCRIPTION =
  "`run_at` (RFC 3339, at most 365 days ahead) holds the job back until then: it is queued with `waiting_reason` " +
  "`scheduled` and handed out within about a second after `available_at` (the later of `run_at` and the creation, " +
  "PostgreSQL's clock). `priority` (−100 to 100, default 0) orders the due jobs of an automation: higher first, " +
  "then earlier `available_at`, then creation order (a batch in input order).";

/** The jobs API of hub users (bearer). The worker's side is in ../worker-protocol/worker-protocol.routes.ts. */
export const jobRoutes = [
  defineRoute({
    method: "post",
    path: "/jobs",
    operationId: "createJob",
    summary: "Create a job",
    description:
      "Queues a job of an automation; its context is checked against the automation's context_schema (422 under body.context), and a deactivated automation refuses it (409). With an Idempotency-Key, a repeat by the same user within 24 h answers the first job's id with 200 and creates nothing: safe to retry after a timeout or a 503. " +
      SCHEDULING_DESCRIPTION,
    tag: "jobs",
    auth: "user",
    headers: createJobHeaders,
    body: createJobBody,
    example: { automation_id: "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c", context: { month: "2026-10" } },
    responses: {
      201: { description: "Created", schema: createdIdResponse },
      200: { description: "An earlier request with the same Idempotency-Key created this job; nothing new was created", schema: createdIdResponse },
      409: { description: "The automation is deactivated" },
    },
    handler: async ({ body, headers, caller, ctx, req }) => {
      const created = await createJob(ctx, caller.reach, caller.user, body, headers[IDEMPOTENCY_KEY_HEADER], requestTrace(req));
      return { status: created.replayed ? 200 : 201, body: { id: created.id } };
    },
  }),
  // A literal path, listed before every /jobs/{job_id} route.
  defineRoute({
    method: "post",
    path: "/jobs/batch",
    operationId: "createJobBatch",
    summary: "Create many jobs at once, all or none",
    description:
      "Up to 500 jobs, all or none: an invalid item is a 422 at body.jobs[i] (every problem at once) and a deactivated automation a 409, and then nothing is created. The ids come in input order; an Idempotency-Key covers the whole batch. Each item is checked as a POST /jobs body (its own run_at and priority). " +
      SCHEDULING_DESCRIPTION,
    tag: "jobs",
    auth: "user",
    headers: createJobHeaders,
    body: createJobBatchBody,
    example: {
      jobs: [
        { automation_id: "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c", context: { month: "2026-10" } },
        { automation_id: "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c", context: { month: "2026-11" } },
      ],
    },
    responses: {
      201: { description: "Created, ids in input order", schema: createdJobBatchResponse },
      200: { description: "An earlier request with the same Idempotency-Key created these jobs; nothing new was created", schema: createdJobBatchResponse },
      409: { description: "An automation is deactivated; nothing was created" },
    },
    handler: async ({ body, headers, caller, ctx, req }) => {
      const created = await createJobBatch(ctx, caller.reach, caller.user, body, headers[IDEMPOTENCY_KEY_HEADER], requestTrace(req));
      return { status: created.replayed ? 200 : 201, body: { ids: created.ids } };
    },
  }),
  // Literal paths, listed before every /jobs/{job_id} route (CONTRACT §6.5).
  defineRoute({
    method: "post",
    path: "/jobs/bulk-cancel",
    operationId: "bulkCancelJobs",
    summary: "Cancel queued or running jobs by filter",
    description:
      "Admins only. Selects up to `limit` queued or running jobs by automation, status and creation time (at least one filter), oldest first, and cancels them in batches of 500, each its own transaction; jobs that finished meanwhile are skipped. `dry_run` counts and lists them and changes nothing.",
    tag: "jobs",
    auth: "admin",
    body: bulkCancelBody,
    example: { automation_id: "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c", status: ["queued"], dry_run: true },
    responses: {
      200: {
        description:
          "What matched and what was cancelled; each cancelled job has its job.cancelled event (reason cancelled_by_user). " +
          `Works in batches of ${jobs.BULK_ACTION_BATCH_SIZE} jobs, each its own transaction; jobs that finished meanwhile are skipped`,
        schema: bulkActionResponse,
      },
      403: { description: "Only admins run bulk actions" },
    },
    handler: async ({ body, caller, ctx, req }) => ({
      status: 200,
      body: await runBulkAction(ctx, caller.reach, caller.user, "cancel", body, requestTrace(req)),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/bulk-retry",
    operationId: "bulkRetryJobs",
    summary: "Retry failed or cancelled jobs by filter",
    description:
      "Admins only. Selects up to `limit` failed or cancelled jobs by filters (at least one) and creates a new queued job for each, with the same automation and context and retry_of set; jobs whose status changed meanwhile, or whose automation is deactivated, are skipped. `dry_run` only counts and lists.",
    tag: "jobs",
    auth: "admin",
    body: bulkRetryBody,
    example: { automation_id: "3f6c2a9e-8d1b-4c5e-9a7f-2b4d6e8f0a1c", status: ["failed"], created_after: "2026-10-01T00:00:00Z" },
    responses: {
      200: {
        description:
          "What matched and which jobs were retried: each gets a new queued job with retry_of = its id and a job.created event. " +
          `Works in batches of ${jobs.BULK_ACTION_BATCH_SIZE} jobs; jobs whose status changed meanwhile, or whose automation is deactivated, are skipped`,
        schema: bulkActionResponse,
      },
      403: { description: "Only admins run bulk actions" },
    },
    handler: async ({ body, caller, ctx, req }) => ({
      status: 200,
      body: await runBulkAction(ctx, caller.reach, caller.user, "retry", body, requestTrace(req)),
    }),
  }),
  defineRoute({
    method: "get",
    path: "/jobs",
    operationId: "listJobs",
    summary: "List jobs, newest first",
    description:
      "Jobs of every automation newest first (`automation_id` narrows to one), filtered by one or more statuses, creation and finish time, creator, error text and context values, a page at a time (follow the `Link` header). queue_position is null in lists: read the job for it. " +
      "Filters combine (and). `scheduled=true` lists the queued jobs whose available_at is still ahead (PostgreSQL's clock), " +
      "`priority_min` the jobs of at least that priority, `schedule_id` the jobs a schedule created, `retry_of` the retries of a job. " +
      "`context[<name>]=<value>` (also written `context.<name>=<value>`; up to 5) keeps the jobs whose context has that top-level key with that string value: " +
      'a sixth is a 422 on ["query"], an empty or over-long name a 422 at ["query","context.<name>"]. ' +
      "A context value matching up to 10,000 jobs is found by an index, with or without automation_id; broader values and error_contains are best effort.",
    tag: "jobs",
    auth: "user",
    query: listJobsQuery,
    patternQuery: contextFilterQuery,
    paginated: true,
    responses: { 200: { description: `Matching jobs, newest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(jobRecord) } },
    handler: async ({ query, after, caller, ctx }) => {
      const page = await listJobs(ctx.database.pool, caller.reach, query, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/jobs/{job_id}",
    operationId: "getJob",
    summary: "Get a job",
    description:
      "The job with its status, context, result or error and attempts; while it is queued, why it waits (waiting_reason) and its place in line (queue_position).",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    responses: { 200: { description: "The job", schema: jobRecord }, 404: { description: "Unknown job" } },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await getJob(ctx.database.pool, caller.reach, params.job_id) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/cancel",
    operationId: "cancelJob",
    summary: "Cancel a job",
    description:
      "Cancels a queued or running job; a finished one answers 409. A running job's slot frees at once and its worker's later calls get 409. Employees may cancel only the jobs they created.",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    responses: {
      200: { description: "The job, now cancelled", schema: jobRecord },
      403: { description: "An employee may cancel only the jobs it created" },
      404: { description: "Unknown job" },
      409: { description: "The job has already finished" },
    },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await cancelJobAsUser(ctx, caller.reach, caller.user, params.job_id) }),
  }),

  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/reschedule",
    operationId: "rescheduleJob",
    summary: "Move a queued job to another time or priority",
    description:
      "Give `run_at` (a new time, at most 365 days ahead; `null` = now), `priority` (−100 to 100), or both; what is " +
      "omitted stays as it is. A new `run_at` sets `available_at` to the later of it and now (PostgreSQL's clock), " +
      "so the job keeps no earlier place in line. The next claims follow the new order at once. Writes `job.rescheduled` " +
      "`{automation_id, run_at, priority, available_at}` (the values after the change). Admins reschedule any job, " +
      "employees the jobs they created.",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    body: rescheduleJobBody,
    example: { run_at: "2026-12-24T06:00:00Z", priority: 50 },
    responses: {
      200: { description: "The job after the change, with its waiting_reason and queue_position", schema: jobRecord },
      403: { description: "An employee may reschedule only the jobs it created" },
      404: { description: "Unknown job" },
      409: { description: "The job is not queued (running or finished): there is nothing to reschedule" },
    },
    handler: async ({ params, body, caller, ctx }) => ({ status: 200, body: await rescheduleJobAsUser(ctx, caller.reach, caller.user, params.job_id, body) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/retry",
    operationId: "retryJob",
    summary: "Retry a failed or cancelled job, optionally with a new context",
    description:
      "Creates a new queued job with the same automation and priority and retry_of = this job, with the old context, or with `context` when the body gives one " +
      "(checked against the automation's parameters as POST /jobs checks it). Its job.created event carries retry_of, and context_changed: true whenever the body has a context, even the old one. " +
      "Any other status, or a deactivated automation, answers 409. Employees may retry only the jobs they created. " +
      "Order: 404, 403, the body's shape (422), 409, then a context that does not fit the parameters (422). " +
      "A job with depends_on keeps them: its retry waits for them as they are now. With with_dependents: true, one transaction also retries every job cancelled " +
      "because of this one (reason dependency_failed, at any depth, not retried yet), each depending on the retries of the jobs it depended on; the answer lists them all in `ids`.",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    body: retryJobBody,
    example: { context: { month: "2026-10", region: "eu" } },
    beforeValidation: ({ params, caller, ctx }) => checkRetryAllowed(ctx.database.pool, caller.reach, caller.user, params.job_id),
    responses: {
      201: {
        description:
          "The new job's id; its job.created event carries retry_of (and context_changed with a body's context). With with_dependents, also `ids`: every job created",
        schema: retriedJobResponse,
      },
      403: { description: "An employee may retry only the jobs it created" },
      404: { description: "Unknown job" },
      409: { description: "The job is not failed or cancelled, or its automation is deactivated" },
    },
    handler: async ({ params, body, caller, ctx, req }) => ({
      status: 201,
      body: await retryJobAsUser(ctx, caller.reach, caller.user, params.job_id, body ?? {}, requestTrace(req)),
    }),
  }),
];
