import { z } from "zod";

export const registerWorkerBody = z
  .object({
    cloud_instance_id: z.string().min(1).max(64),
  })
  .meta({ id: "RegisterWorkerRequest" });
export type RegisterWorkerInput = z.output<typeof registerWorkerBody>;

/** Longest a rotated-out worker key keeps working (CONTRACT §6.12). */
export const KEY_OVERLAP_MAX_SECONDS = 86_400;

/** An absent body means `{}`: the old key stops at once. */
export const rotateWorkerKeyBody = z
  .object({
    overlap_seconds: z
      .int()
      .min(0)
      .max(KEY_OVERLAP_MAX_SECONDS)
      .default(0)
      .describe("How long the previous key keeps working (0: it stops at once). A later rotation ends this overlap at once"),
  })
  .default({ overlap_seconds: 0 })
  .meta({ id: "RotateWorkerApiKeyRequest" });

/** Shown once, at registration or rotation: the hub keeps only the key's hash. */
export const workerCredentials = z
  .object({
    id: z.uuid().describe("The worker's id"),
    api_key: z.string().describe("Send it in the X-Worker-Api-Key header; it cannot be shown again"),
  })
  .meta({ id: "WorkerCredentials" });
export type WorkerCredentials = z.infer<typeof workerCredentials>;
