import { z } from "zod";
import { defineRoute } from "../http/route";
import { LINK_HEADER_DESCRIPTION, pageQueryShape } from "../http/pagination";
import { jobIdParams, jobRecord } from "../jobs/jobs.schemas";
import { approveJobBody, rejectJobBody } from "./approvals.schemas";
import { approvalRequestRecord } from "./approval-request.schemas";
import { checkDecisionAllowed, decideApproval, listApprovals } from "./approvals.service";

const WHO_DECIDES =
  "An admin or a user in the automation's approver_ids (any role, with a login token or an api key) decides; never the job's own creator (403). Order: 404, 403, 422, 409.";

/** Approvals (CONTRACT §6.17): deciding a job's pending approval, and the caller's inbox. */
export const approvalRoutes = [
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/approve",
    operationId: "approveJob",
    summary: "Approve a job awaiting approval",
    description:
      "The job may run: it becomes due now (available_at = the later of its own and now), or, with dependencies left, once they finish. Writes job.approved {automation_id, comment} with the decider as actor. " +
      WHO_DECIDES,
    tag: "approvals",
    auth: "user",
    params: jobIdParams,
    body: approveJobBody,
    example: { comment: "Checked the amounts" },
    beforeValidation: ({ params, caller, ctx }) => checkDecisionAllowed(ctx.database.pool, caller.reach, caller.user, params.job_id),
    responses: {
      200: { description: "The job, approval.status approved", schema: jobRecord },
      403: { description: "The caller created the job, or is neither an admin nor one of the automation's approvers" },
      404: { description: "Unknown job" },
      409: { description: "The job's approval is not pending (decided, expired, withdrawn, or it has none)" },
    },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 200,
      body: await decideApproval(ctx, caller.reach, caller.user, params.job_id, { approve: true, comment: body.comment ?? null }),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/reject",
    operationId: "rejectJob",
    summary: "Reject a job awaiting approval",
    description:
      "The job never runs: it becomes cancelled (job.cancelled {automation_id, reason: rejected}), with job.rejected {automation_id, comment} by the decider. A comment is required. " +
      WHO_DECIDES,
    tag: "approvals",
    auth: "user",
    params: jobIdParams,
    body: rejectJobBody,
    example: { comment: "Wrong month" },
    beforeValidation: ({ params, caller, ctx }) => checkDecisionAllowed(ctx.database.pool, caller.reach, caller.user, params.job_id),
    responses: {
      200: { description: "The job, now cancelled, approval.status rejected", schema: jobRecord },
      403: { description: "The caller created the job, or is neither an admin nor one of the automation's approvers" },
      404: { description: "Unknown job" },
      409: { description: "The job's approval is not pending (decided, expired, withdrawn, or it has none)" },
    },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 200,
      body: await decideApproval(ctx, caller.reach, caller.user, params.job_id, { approve: false, comment: body.comment }),
    }),
  }),
  defineRoute({
    method: "get",
    path: "/approvals",
    operationId: "listApprovals",
    summary: "The approvals the caller may decide",
    description:
      "Queued jobs whose approval is pending and that the caller may decide (an admin: every one; anyone else: those of automations listing it in approver_ids), never the caller's own, oldest first, a page at a time (follow the `Link` header).",
    tag: "approvals",
    auth: "user",
    query: z.object({ ...pageQueryShape() }),
    paginated: true,
    responses: {
      200: { description: `Pending approvals, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(approvalRequestRecord) },
    },
    handler: async ({ query, after, caller, ctx }) => {
      const page = await listApprovals(ctx.database.pool, caller.reach, caller.user, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
];
