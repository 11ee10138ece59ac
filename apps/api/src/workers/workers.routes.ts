import { defineRoute } from "../http/route";
import { automationIdParams } from "../automations/automations.schemas";
import { registerWorkerBody, workerCredentials } from "./workers.schemas";
import { registerWorker, rotateWorkerApiKey, unregisterWorker } from "./workers.service";

export const workerRoutes = [
  defineRoute({
    method: "post",
    path: "/automations/{automation_id}/worker",
    summary: "Register the automation's worker; its api key is shown only in this response",
    tag: "workers",
    auth: "admin",
    params: automationIdParams,
    body: registerWorkerBody,
    responses: {
      201: { description: "Registered (status stopped until the worker calls the hub)", schema: workerCredentials },
      404: { description: "Unknown automation" },
      409: { description: "The automation is inactive or already has a registered worker" },
    },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 201,
      body: await registerWorker(ctx, params.automation_id, body, caller.user.id),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/automations/{automation_id}/worker/api-key",
    summary: "Rotate the worker's api key; the old key stops working at once",
    tag: "workers",
    auth: "admin",
    params: automationIdParams,
    responses: {
      200: { description: "The new key, shown only in this response", schema: workerCredentials },
      404: { description: "Unknown automation, or no registered worker" },
    },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await rotateWorkerApiKey(ctx, params.automation_id, caller.user.id) }),
  }),
  defineRoute({
    method: "delete",
    path: "/automations/{automation_id}/worker",
    summary: "Unregister the worker: its key stops working, its running jobs go back to queued",
    tag: "workers",
    auth: "admin",
    params: automationIdParams,
    responses: { 204: { description: "Unregistered" }, 404: { description: "Unknown automation, or no registered worker" } },
    handler: async ({ params, caller, ctx }) => {
      await unregisterWorker(ctx, params.automation_id, caller.user.id);
      return { status: 204 };
    },
  }),
];
