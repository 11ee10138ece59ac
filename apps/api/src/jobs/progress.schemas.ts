/** A job's progress (CONTRACT §6.12): as a heartbeat reports it and as the job record shows it. */
import { z } from "zod";
import { JOB_PROGRESS_MESSAGE_MAX_LENGTH } from "@hub/shared";

export const jobProgress = z
  .object({
    percent: z.number().nullable().describe("0–100, or null"),
    message: z.string().nullable(),
    updated_at: z.iso.datetime().describe("When the heartbeat that set it was accepted"),
  })
  .meta({ id: "JobProgress", description: "The worker's last reported progress" });

/** A heartbeat's `progress`: replaces the whole (an omitted field becomes null). */
export const progressReport = z
  .object({
    percent: z.number().min(0).max(100).nullable().optional().describe("0–100"),
    message: z.string().max(JOB_PROGRESS_MESSAGE_MAX_LENGTH).nullable().optional().describe(`At most ${JOB_PROGRESS_MESSAGE_MAX_LENGTH} characters`),
  })
  .describe("Replaces the job's whole progress (an omitted field becomes null); without it, the progress stays as it is")
  .meta({ id: "ProgressReport" });
