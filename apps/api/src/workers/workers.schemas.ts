import { z } from "zod";

export const registerWorkerBody = z.object({
  cloud_instance_id: z.string().min(1).max(64),
}).meta({ id: "RegisterWorkerRequest" });
export type RegisterWorkerInput = z.output<typeof registerWorkerBody>;

/** Shown once, at registration or rotation: the hub keeps only the key's hash. */
export const workerCredentials = z.object({
  id: z.uuid().describe("The worker's id"),
  api_key: z.string().describe("Send it in the X-Worker-Api-Key header; it cannot be shown again"),
}).meta({ id: "WorkerCredentials" });
export type WorkerCredentials = z.infer<typeof workerCredentials>;
