import { z } from "zod";

/** `{id}` — the body of every creation response. */
export const createdIdResponse = z.object({ id: z.uuid() });

/** `{detail}` — every error other than 422. */
export const errorResponse = z.object({ detail: z.string() });

/** The 422 body (INTERFACE §2). */
export const validationErrorResponse = z.object({
  detail: z.array(z.object({ loc: z.array(z.union([z.string(), z.int()])), msg: z.string(), type: z.string() })),
});
