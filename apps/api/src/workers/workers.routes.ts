import { defineRoute } from "../http/route";
import { automationIdParams } from "../automations/automations.schemas";
import { registerWorkerBody, rotateWorkerKeyBody, workerCredentials } from "./workers.schemas";
import { registerWorker, rotateWorkerApiKey, unregisterWorker } from "./workers.service";
import { afterKeyStopped } from "./key-holds.service";

export const workerRoutes = [
  defineRoute({
    method: "post",
    path: "/automations/{automation_id}/worker",
    operationId: "registerWorker",
    secretInResponse: "key",
    summary: "Register the automation's worker",
    description:
      "Admins only. An automation has one worker: a second registration, or one for an inactive automation, is 409. The answer holds the worker's api key, shown only here (the hub keeps a hash): the worker sends it as `X-Worker-Api-Key`. The worker's status is stopped until it first calls the hub.",
    tag: "workers",
    auth: "admin",
    params: automationIdParams,
    body: registerWorkerBody,
    example: { cloud_instance_id: "i-0abc123" },
    responses: {
      201: { description: "Registered (status stopped until the worker calls the hub)", schema: workerCredentials },
      404: { description: "Unknown automation" },
      409: { description: "The automation is inactive or already has a registered worker" },
    },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 201,
      body: await registerWorker(ctx, caller.reach, params.automation_id, body, caller.user.id),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/automations/{automation_id}/worker/api-key",
    operationId: "rotateWorkerApiKey",
    secretInResponse: "key",
    summary: "Rotate the worker's api key",
    description:
      "Admins only. The new key is shown only in this answer. The old one stops working at once, or `overlap_seconds` later (at most 86400): long enough to update the worker's configuration without downtime. " +
      "There is at most one previous key: a second rotation ends the first one's overlap at once. The body may be left out (no overlap). " +
      "A running job is held by the key that claimed it or last heartbeated it: when a key stops working (at once without overlap, within a second of the overlap's end), the jobs it holds go back to queued " +
      "(job.requeued with reason worker_key_rotated) and its signal streams get `event: cancel` with that reason before they end.",
    tag: "workers",
    auth: "admin",
    params: automationIdParams,
    body: rotateWorkerKeyBody,
    example: { overlap_seconds: 300 },
    responses: {
      200: { description: "The new key, shown only in this response", schema: workerCredentials },
      404: { description: "Unknown automation, or no registered worker" },
    },
    handler: async ({ params, body, caller, ctx }) => {
      const { credentials, requeued } = await rotateWorkerApiKey(ctx, caller.reach, params.automation_id, caller.user.id, body.overlap_seconds);
      // As on unregistering: this process's signal streams get the cancels before they end.
      await afterKeyStopped(ctx, params.automation_id, credentials.id, requeued);
      ctx.auth.forgetCredentials();
      return { status: 200, body: credentials };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/automations/{automation_id}/worker",
    operationId: "unregisterWorker",
    summary: "Unregister the worker",
    description: "Admins only. Its key stops working at once and its running jobs go back to queued, without counting as failed attempts.",
    tag: "workers",
    auth: "admin",
    params: automationIdParams,
    responses: { 204: { description: "Unregistered" }, 404: { description: "Unknown automation, or no registered worker" } },
    handler: async ({ params, caller, ctx }) => {
      const { workerId, requeued } = await unregisterWorker(ctx, caller.reach, params.automation_id, caller.user.id);
      // This process's signal streams of the worker get their cancels before they end on the
      // credential change below (other processes hear both in that order from PostgreSQL).
      ctx.workerSignals.deliverCommitted(
        "worker_unregistered",
        requeued.map((job) => ({ id: job.id, workerId, attempts: job.attempts })),
      );
      ctx.auth.forgetCredentials();
      return { status: 204 };
    },
  }),
];
