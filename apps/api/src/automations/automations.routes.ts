import { z } from "zod";
import { createdIdResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import { automationIdParams, automationRecord, createAutomationBody, listAutomationsQuery, replaceAutomationBody } from "./automations.schemas";
import { createAutomation, deactivateAutomation, getAutomation, listAutomations, replaceAutomation, setDevelopmentMode } from "./automations.service";
import { automationStatsRecord } from "./stats.schemas";
import { getAutomationStats } from "./stats.service";

export const automationRoutes = [
  defineRoute({
    method: "post",
    path: "/automations",
    operationId: "createAutomation",
    summary: "Create an automation",
    description:
      "Admins only. The slug (lower-case words joined by hyphens) is unique (409 when taken) and never changes; `sector_id` must exist (422). Each parameter becomes a required string of every job's context (`context_schema`). New automations are active, not in development mode, without a worker.",
    tag: "automations",
    auth: "admin",
    body: createAutomationBody,
    example: {
      name: "Invoice export",
      slug: "invoice-export",
      sector_id: "7b1e4d2c-5a9f-4e3b-8c6d-0f2a4b6c8d9e",
      description: "Exports a month's invoices to the ERP",
      parameters: [{ name: "month", description: "YYYY-MM" }],
      max_concurrent_jobs: 2,
      max_attempts: 3,
      retry_backoff_seconds: 10,
      timeout_seconds: 3600,
    },
    responses: { 201: { description: "Created: active, not in development mode, no worker", schema: createdIdResponse }, 409: { description: "Slug taken" } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createAutomation(ctx.database.pool, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/automations",
    operationId: "listAutomations",
    summary: "List automations",
    description: "Automations oldest first, optionally of one sector or only the active ones, a page at a time (follow the `Link` header).",
    tag: "automations",
    auth: "user",
    query: listAutomationsQuery,
    paginated: true,
    responses: {
      200: { description: `Matching automations, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(automationRecord) },
    },
    handler: async ({ query, after, caller, ctx }) => {
      const page = await listAutomations(ctx.database.pool, caller.reach, query, { limit: query.limit, after }, ctx.env.HUB_JOB_MAX_ATTEMPTS);
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/automations/{automation_id}",
    operationId: "getAutomation",
    summary: "Get an automation",
    description:
      "One automation with its parameters, the derived context_schema, its settings and its worker (null until one is registered). Deactivated automations stay readable.",
    tag: "automations",
    auth: "user",
    params: automationIdParams,
    responses: { 200: { description: "The automation", schema: automationRecord }, 404: { description: "Unknown automation" } },
    handler: async ({ params, caller, ctx }) => ({
      status: 200,
      body: await getAutomation(ctx.database.pool, caller.reach, params.automation_id, ctx.env.HUB_JOB_MAX_ATTEMPTS),
    }),
  }),
  defineRoute({
    method: "get",
    path: "/automations/{automation_id}/stats",
    operationId: "getAutomationStats",
    summary: "Queue depth of an automation",
    description:
      "Right now: due queued jobs, scheduled ones (delayed or in retry back-off), running ones against max_concurrent_jobs, the oldest due job, the last hour's completions and failures, and the worker's status.",
    tag: "automations",
    auth: "user",
    params: automationIdParams,
    responses: { 200: { description: "The automation's queue right now", schema: automationStatsRecord }, 404: { description: "Unknown automation" } },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await getAutomationStats(ctx.database.pool, caller.reach, params.automation_id) }),
  }),
  defineRoute({
    method: "put",
    path: "/automations/{automation_id}",
    operationId: "replaceAutomation",
    summary: "Replace an automation's editable fields",
    description:
      "Admins only. Replaces name, description, sector_id, max_concurrent_jobs and parameters (all required); the slug never changes, and omitted retry settings (max_attempts, retry_backoff_seconds, timeout_seconds) stay as they were. A new max_concurrent_jobs governs dispatch at once (lowering it stops no running job). A PUT that changes nothing writes no event.",
    tag: "automations",
    auth: "admin",
    params: automationIdParams,
    body: replaceAutomationBody,
    example: {
      name: "Invoice export",
      description: "Exports a month's invoices to the ERP",
      sector_id: "7b1e4d2c-5a9f-4e3b-8c6d-0f2a4b6c8d9e",
      max_concurrent_jobs: 4,
      parameters: [{ name: "month", description: "YYYY-MM" }],
    },
    responses: { 200: { description: "The automation after the change", schema: automationRecord }, 404: { description: "Unknown automation" } },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 200,
      body: await replaceAutomation(ctx, caller.reach, params.automation_id, body, caller.user.id),
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/automations/{automation_id}",
    operationId: "deactivateAutomation",
    summary: "Deactivate an automation",
    description:
      "Admins only; idempotent. The automation stays readable with is_active false; its queued jobs are cancelled, running ones may finish; new jobs and worker registrations are refused (409).",
    tag: "automations",
    auth: "admin",
    params: automationIdParams,
    responses: { 204: { description: "Inactive" }, 404: { description: "Unknown automation" } },
    handler: async ({ params, caller, ctx }) => {
      await deactivateAutomation(ctx, caller.reach, params.automation_id, caller.user.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/automations/{automation_id}/development-mode",
    operationId: "enterDevelopmentMode",
    summary: "Enter development mode",
    description: "Admins only; idempotent. Jobs are still accepted but stay queued: dispatch to the worker pauses until development mode ends.",
    tag: "automations",
    auth: "admin",
    params: automationIdParams,
    responses: { 204: { description: "In development mode" }, 404: { description: "Unknown automation" } },
    handler: async ({ params, caller, ctx }) => {
      await setDevelopmentMode(ctx, caller.reach, params.automation_id, true, caller.user.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "delete",
    path: "/automations/{automation_id}/development-mode",
    operationId: "exitDevelopmentMode",
    summary: "Leave development mode",
    description: "Admins only; idempotent. The jobs held meanwhile are released to the worker in claim order.",
    tag: "automations",
    auth: "admin",
    params: automationIdParams,
    responses: { 204: { description: "Out of development mode" }, 404: { description: "Unknown automation" } },
    handler: async ({ params, caller, ctx }) => {
      await setDevelopmentMode(ctx, caller.reach, params.automation_id, false, caller.user.id);
      return { status: 204 };
    },
  }),
];
