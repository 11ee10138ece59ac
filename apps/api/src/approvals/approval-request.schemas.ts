/** GET /approvals' items: a job, and who asks (CONTRACT §6.17; the e-mail is the hub's addition, see docs/decisions.md). */
import { z } from "zod";
import { jobRecord } from "../jobs/jobs.schemas";

export const approvalRequestRecord = jobRecord
  .extend({
    created_by_email: z
      .string()
      .nullable()
      .describe("The e-mail of the job's creator, so a decider who may not read users knows who asks; null for a job the hub made (a schedule)"),
  })
  .meta({ id: "ApprovalRequest", description: "A job whose approval is pending, as GET /approvals lists it" });
export type ApprovalRequestRecord = z.output<typeof approvalRequestRecord>;
