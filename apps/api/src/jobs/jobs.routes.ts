import { z } from "zod";
import { defineRoute } from "../http/route";
import { createdIdResponse } from "../http/common-schemas";
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
} from "./jobs.schemas";
import { cancelJobAsUser, createJob, createJobBatch, getJob, listJobs, retryJobAsUser, runBulkAction } from "./jobs.service";

/** The jobs API of hub users (bearer). The worker's side is in ./worker-protocol.routes.ts. */
export const jobRoutes = [
  defineRoute({
    method: "post",
    path: "/jobs",
    summary: "Create a job",
    tag: "jobs",
    auth: "user",
    headers: createJobHeaders,
    body: createJobBody,
    responses: {
      201: { description: "Created", schema: createdIdResponse },
      200: { description: "An earlier request with the same Idempotency-Key created this job; nothing new was created", schema: createdIdResponse },
      409: { description: "The automation is deactivated" },
    },
    handler: async ({ body, headers, caller, ctx }) => {
      const created = await createJob(ctx, caller.user, body, headers[IDEMPOTENCY_KEY_HEADER]);
      return { status: created.replayed ? 200 : 201, body: { id: created.id } };
    },
  }),
  // A literal path, listed before every /jobs/{job_id} route.
  defineRoute({
    method: "post",
    path: "/jobs/batch",
    summary: "Create many jobs at once, all or none",
    tag: "jobs",
    auth: "user",
    headers: createJobHeaders,
    body: createJobBatchBody,
    responses: {
      201: { description: "Created, ids in input order", schema: createdJobBatchResponse },
      200: { description: "An earlier request with the same Idempotency-Key created these jobs; nothing new was created", schema: createdJobBatchResponse },
      409: { description: "An automation is deactivated; nothing was created" },
    },
    handler: async ({ body, headers, caller, ctx }) => {
      const created = await createJobBatch(ctx, caller.user, body, headers[IDEMPOTENCY_KEY_HEADER]);
      return { status: created.replayed ? 200 : 201, body: { ids: created.ids } };
    },
  }),
  // Literal paths, listed before every /jobs/{job_id} route (CONTRACT §6.5).
  defineRoute({
    method: "post",
    path: "/jobs/bulk-cancel",
    summary: "Cancel many queued or running jobs at once, selected by filters (admins)",
    tag: "jobs",
    auth: "admin",
    body: bulkCancelBody,
    responses: {
      200: {
        description:
          "What matched and what was cancelled; each cancelled job has its job.cancelled event (reason cancelled_by_user). " +
          "Works in batches of 500 jobs, each its own transaction; jobs that finished meanwhile are skipped",
        schema: bulkActionResponse,
      },
      403: { description: "Only admins run bulk actions" },
    },
    handler: async ({ body, caller, ctx }) => ({ status: 200, body: await runBulkAction(ctx, caller.user, "cancel", body) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/bulk-retry",
    summary: "Retry many failed or cancelled jobs at once, selected by filters (admins)",
    tag: "jobs",
    auth: "admin",
    body: bulkRetryBody,
    responses: {
      200: {
        description:
          "What matched and which jobs were retried: each gets a new queued job with retry_of = its id and a job.created event. " +
          "Works in batches of 500 jobs; jobs whose status changed meanwhile, or whose automation is deactivated, are skipped",
        schema: bulkActionResponse,
      },
      403: { description: "Only admins run bulk actions" },
    },
    handler: async ({ body, caller, ctx }) => ({ status: 200, body: await runBulkAction(ctx, caller.user, "retry", body) }),
  }),
  defineRoute({
    method: "get",
    path: "/jobs",
    summary: "List jobs, newest first",
    tag: "jobs",
    auth: "user",
    query: listJobsQuery,
    paginated: true,
    responses: { 200: { description: `Matching jobs, newest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(jobRecord) } },
    handler: async ({ query, after, ctx }) => {
      const page = await listJobs(ctx.db, query, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/jobs/{job_id}",
    summary: "Get a job",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    responses: { 200: { description: "The job", schema: jobRecord }, 404: { description: "Unknown job" } },
    handler: async ({ params, ctx }) => ({ status: 200, body: await getJob(ctx.db, params.job_id) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/cancel",
    summary: "Cancel a queued or running job",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    responses: {
      200: { description: "The job, now cancelled", schema: jobRecord },
      403: { description: "An employee may cancel only the jobs it created" },
      404: { description: "Unknown job" },
      409: { description: "The job has already finished" },
    },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await cancelJobAsUser(ctx, caller.user, params.job_id) }),
  }),

  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/retry",
    summary: "Retry a failed or cancelled job: a new queued job with the same automation, context and priority, retry_of = this job",
    tag: "jobs",
    auth: "user",
    params: jobIdParams,
    responses: {
      201: { description: "The new job's id; its job.created event carries retry_of", schema: createdIdResponse },
      403: { description: "An employee may retry only the jobs it created" },
      404: { description: "Unknown job" },
      409: { description: "The job is not failed or cancelled, or its automation is deactivated" },
    },
    handler: async ({ params, caller, ctx }) => ({ status: 201, body: { id: await retryJobAsUser(ctx, caller.user, params.job_id) } }),
  }),
];
