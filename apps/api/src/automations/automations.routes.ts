import { z } from "zod";
import { createdIdResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import {
  automationIdParams,
  automationRecord,
  createAutomationBody,
  listAutomationsQuery,
  replaceAutomationBody,
} from "./automations.schemas";
import {
  createAutomation,
  deactivateAutomation,
  getAutomation,
  listAutomations,
  replaceAutomation,
  setDevelopmentMode,
} from "./automations.service";
import { automationStatsRecord } from "./stats.schemas";
import { getAutomationStats } from "./stats.service";

export const automationRoutes = [
  defineRoute({
    method: "post",
    path: "/automations",
    summary: "Create an automation",
    tag: "automations",
    auth: "admin",
    body: createAutomationBody,
    responses: { 201: { description: "Created: active, not in development mode, no worker", schema: createdIdResponse }, 409: { description: "Slug taken" } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createAutomation(ctx.db, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/automations",
    summary: "List automations",
    tag: "automations",
    auth: "user",
    query: listAutomationsQuery,
    paginated: true,
    responses: {
      200: { description: `Matching automations, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(automationRecord) },
    },
    handler: async ({ query, after, ctx }) => {
      const page = await listAutomations(ctx.db, query, { limit: query.limit, after }, ctx.env.HUB_JOB_MAX_ATTEMPTS);
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/automations/{automation_id}",
    summary: "Get an automation",
    tag: "automations",
    auth: "user",
    params: automationIdParams,
    responses: { 200: { description: "The automation", schema: automationRecord }, 404: { description: "Unknown automation" } },
    handler: async ({ params, ctx }) => ({ status: 200, body: await getAutomation(ctx.db, params.automation_id, ctx.env.HUB_JOB_MAX_ATTEMPTS) }),
  }),
  defineRoute({
    method: "get",
    path: "/automations/{automation_id}/stats",
    summary: "Queue depth of an automation: due and scheduled jobs, running jobs, the last hour, its worker",
    tag: "automations",
    auth: "user",
    params: automationIdParams,
    responses: { 200: { description: "The automation's queue right now", schema: automationStatsRecord }, 404: { description: "Unknown automation" } },
    handler: async ({ params, ctx }) => ({ status: 200, body: await getAutomationStats(ctx.db, params.automation_id) }),
  }),
  defineRoute({
    method: "put",
    path: "/automations/{automation_id}",
    summary: "Replace an automation's editable fields (the slug never changes; omitted retry settings stay as they were)",
    tag: "automations",
    auth: "admin",
    params: automationIdParams,
    body: replaceAutomationBody,
    responses: { 200: { description: "The automation after the change", schema: automationRecord }, 404: { description: "Unknown automation" } },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 200,
      body: await replaceAutomation(ctx, params.automation_id, body, caller.user.id),
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/automations/{automation_id}",
    summary: "Deactivate an automation (idempotent): its queued jobs are cancelled, running ones may finish",
    tag: "automations",
    auth: "admin",
    params: automationIdParams,
    responses: { 204: { description: "Inactive" }, 404: { description: "Unknown automation" } },
    handler: async ({ params, caller, ctx }) => {
      await deactivateAutomation(ctx, params.automation_id, caller.user.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/automations/{automation_id}/development-mode",
    summary: "Enter development mode (idempotent): jobs are accepted but not dispatched",
    tag: "automations",
    auth: "admin",
    params: automationIdParams,
    responses: { 204: { description: "In development mode" }, 404: { description: "Unknown automation" } },
    handler: async ({ params, caller, ctx }) => {
      await setDevelopmentMode(ctx, params.automation_id, true, caller.user.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/automations/{automation_id}/development-mode",
    summary: "Leave development mode (idempotent): held jobs are released oldest first",
    tag: "automations",
    auth: "admin",
    params: automationIdParams,
    responses: { 204: { description: "Out of development mode" }, 404: { description: "Unknown automation" } },
    handler: async ({ params, caller, ctx }) => {
      await setDevelopmentMode(ctx, params.automation_id, false, caller.user.id);
      return { status: 204 };
    },
  }),
];
