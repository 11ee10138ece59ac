import { z } from "zod";
import { JOB_STATUSES } from "@hub/shared";

/** `{id}` — the body of every creation response. */
export const createdIdResponse = z.object({ id: z.uuid() }).meta({ id: "CreatedId", description: "The id of what the request created" });

/** `{detail}` — every error other than 422. */
export const errorResponse = z.object({ detail: z.string() }).meta({ id: "HTTPError", description: "The body of every error other than 422" });

/** The 409 of a worker call about a job (CONTRACT §6.12). */
export const jobNotLeasedResponse = z
  .object({ detail: z.string(), status: z.enum(JOB_STATUSES).describe("The job's status now: `cancelled` tells a worker that missed the signal to stop") })
  .meta({ id: "JobNotLeasedError", description: "The job is not running under this worker's current lease; nothing changed" });

/** The 422 body (INTERFACE §2). */
export const validationErrorResponse = z
  .object({
    detail: z.array(
      z
        .object({ loc: z.array(z.union([z.string(), z.int()])), msg: z.string(), type: z.string() })
        .meta({ id: "ValidationIssue", description: "One problem: where (`loc`, from body, query, path or header), pydantic v2's `type`, and a sentence" }),
    ),
  })
  .meta({ id: "ValidationError", description: "422: every problem of the request at once, in FastAPI/pydantic v2's shape" });
