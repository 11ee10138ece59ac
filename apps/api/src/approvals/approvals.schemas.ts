/** The request and response shapes of approvals (CONTRACT §6.17). */
import { z } from "zod";
import type { Job } from "@hub/db";
import { APPROVAL_COMMENT_MAX, APPROVAL_STATUSES, isApprovalStatus, type ApprovalStatus } from "@hub/shared";

export const approvalRecord = z
  .object({
    status: z
      .enum(APPROVAL_STATUSES)
      .describe(
        "pending until decided; then approved, rejected (POST /jobs/{job_id}/reject), expired (approval_timeout_seconds passed) or withdrawn (the job cancelled otherwise while pending)",
      ),
    requested_at: z.iso.datetime().describe("When the approval was asked for: the job's creation"),
    expires_at: z.iso.datetime().nullable().describe("When a pending approval expires and the job is cancelled; null: never"),
    decided_by: z.uuid().nullable().describe("Who approved or rejected it; null otherwise"),
    decided_at: z.iso.datetime().nullable().describe("When it was approved or rejected; null otherwise"),
    comment: z.string().nullable().describe("The decider's comment; null without one"),
  })
  .meta({ id: "Approval", description: "A person's decision before the job may run (CONTRACT §6.17)" });
export type ApprovalRecord = z.infer<typeof approvalRecord>;

/** A job's `approval`, null for a job that needs none. */
export function approvalRecordOf(job: Job): ApprovalRecord | null {
  if (job.approvalStatus === null) return null;
  const decided = job.approvalStatus === "approved" || job.approvalStatus === "rejected";
  return {
    status: job.approvalStatus,
    requested_at: job.createdAt.toISOString(),
    expires_at: job.approvalExpiresAt?.toISOString() ?? null,
    decided_by: decided ? job.approvalDecidedBy : null,
    decided_at: decided ? (job.approvalDecidedAt?.toISOString() ?? null) : null,
    comment: decided ? job.approvalComment : null,
  };
}

/** A job's own `requires_approval` (POST /jobs, batch items). */
export const requiresApprovalField = () =>
  z
    .boolean()
    .optional()
    .describe("true: the job waits for an approval before it may run, whatever its automation says; false never lifts the automation's requirement");

export const approveJobBody = z
  .object({
    comment: z
      .string()
      .max(APPROVAL_COMMENT_MAX)
      .optional()
      .describe(`Why it may run (at most ${APPROVAL_COMMENT_MAX} characters); recorded in the approval and job.approved`),
  })
  .default({})
  .meta({ id: "ApproveJobRequest" });
export type ApproveJobBody = z.output<typeof approveJobBody>;

export const rejectJobBody = z
  .object({
    comment: z.string().min(1).max(APPROVAL_COMMENT_MAX).describe(`Why it may not run (1–${APPROVAL_COMMENT_MAX} characters): required`),
  })
  .meta({ id: "RejectJobRequest" });
export type RejectJobBody = z.output<typeof rejectJobBody>;

/**
 * GET /jobs's `approval` filter (CONTRACT §6.17, §6.21): one approval status or a comma-separated
 * list, as the `status` filter reads its list (style form, explode false); parsed to the distinct statuses.
 */
export const approvalStatusList = () =>
  z
    .preprocess((value) => (Array.isArray(value) && value.every((v) => typeof v === "string") ? value.join(",") : value), z.string())
    .transform((text, ctx) => {
      const statuses: ApprovalStatus[] = [];
      for (const part of text.split(",").map((status) => status.trim())) {
        if (isApprovalStatus(part)) statuses.push(part);
        else ctx.addIssue({ code: "invalid_value", values: [...APPROVAL_STATUSES], input: part });
      }
      return [...new Set(statuses)];
    })
    .meta({
      type: "array",
      items: { type: "string", enum: [...APPROVAL_STATUSES] },
      description: `Only jobs whose approval is in one of these statuses (${APPROVAL_STATUSES.join(", ")}), comma-separated; jobs without an approval never match`,
    });
