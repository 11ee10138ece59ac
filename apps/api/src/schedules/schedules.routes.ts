import { z } from "zod";
import { automationIdParams } from "../automations/automations.schemas";
import { createdIdResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import {
  listAutomationSchedulesQuery,
  listSchedulesQuery,
  scheduleBody,
  scheduleIdParams,
  schedulePreviewQuery,
  schedulePreviewResponse,
  scheduleRecord,
} from "./schedules.schemas";
import { createSchedule, deleteSchedule, getSchedule, listSchedules, previewSchedule, replaceSchedule } from "./schedules.service";

const FIRING_RULES =
  "At each fire time the hub makes exactly one job, whatever the number of dispatchers, within 5 s of that time: as POST /jobs would, with the schedule's " +
  "context and priority, created_by null, and schedule_id and fire_time set on the job and in its job.created event. A fire not made within 5 s " +
  "(no dispatcher running, database down) is missed; on recovery only the latest missed fire is made.";

/** Recurring jobs (CONTRACT §6.9): admins set them up, admins and employees read them. */
export const scheduleRoutes = [
  defineRoute({
    method: "post",
    path: "/automations/{automation_id}/schedules",
    operationId: "createSchedule",
    summary: "Create a schedule: a recurring job of this automation (admins)",
    description: FIRING_RULES,
    tag: "schedules",
    auth: "admin",
    params: automationIdParams,
    body: scheduleBody,
    example: { cron: "0 6 * * MON-FRI", timezone: "Europe/Berlin", context: { month: "current" }, key: "weekday-export" },
    responses: {
      201: { description: "Created; its first fire is the next fire time after now (when enabled)", schema: createdIdResponse },
      404: { description: "Unknown automation" },
      409: { description: "The automation is deactivated, or it already has a schedule with this key" },
    },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 201,
      body: { id: await createSchedule(ctx, caller.reach, params.automation_id, body, caller.user.id) },
    }),
  }),
  defineRoute({
    method: "get",
    path: "/automations/{automation_id}/schedules",
    operationId: "listAutomationSchedules",
    summary: "List an automation's schedules",
    description: "The automation's schedules (not deleted), oldest first, a page at a time; `enabled=` filters. 404 for an unknown automation.",
    tag: "schedules",
    auth: "user",
    params: automationIdParams,
    query: listAutomationSchedulesQuery,
    paginated: true,
    responses: {
      200: { description: `The automation's schedules, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(scheduleRecord) },
      404: { description: "Unknown automation" },
    },
    handler: async ({ params, query, after, caller, ctx }) => {
      const page = await listSchedules(
        ctx.database.pool,
        caller.reach,
        { automation_id: params.automation_id, enabled: query.enabled },
        { limit: query.limit, after },
        { automationMustExist: true },
      );
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/schedules",
    operationId: "listSchedules",
    summary: "List schedules across automations",
    description:
      "Every schedule (not deleted), oldest first, a page at a time; `automation_id=` and `enabled=` filter. `next_run_at` is when it fires next (null when disabled).",
    tag: "schedules",
    auth: "user",
    query: listSchedulesQuery,
    paginated: true,
    responses: { 200: { description: `Matching schedules, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(scheduleRecord) } },
    handler: async ({ query, after, caller, ctx }) => {
      const page = await listSchedules(ctx.database.pool, caller.reach, query, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  // A literal path, listed before /schedules/{schedule_id}: "preview" is never read as an id.
  defineRoute({
    method: "get",
    path: "/schedules/preview",
    operationId: "previewSchedule",
    summary: "Preview the next fire times of a cron expression",
    description:
      "The next `count` (1–20, default 5) fire times of `cron` read in `timezone`, as a schedule with them would fire from now (PostgreSQL's clock), fewer when fewer fall within 4 years. " +
      'Checked as creating a schedule checks them, with the problems at ["query", <name>]: an expression the hub does not accept, a seconds field where HUB_SCHEDULES_ALLOW_SECONDS is off, ' +
      "no fire time within 4 years, or a time zone Intl.DateTimeFormat does not know. Any signed-in user; nothing is stored.",
    tag: "schedules",
    auth: "user",
    query: schedulePreviewQuery,
    responses: { 200: { description: "The next fire times, in UTC", schema: schedulePreviewResponse } },
    handler: async ({ query, ctx }) => ({ status: 200, body: { next: (await previewSchedule(ctx, query)).map((fire) => fire.toISOString()) } }),
  }),
  defineRoute({
    method: "get",
    path: "/schedules/{schedule_id}",
    operationId: "getSchedule",
    summary: "Get a schedule",
    description: "One schedule with its next fire (`next_run_at`) and its last one (`last_run_at`, `last_job_id`).",
    tag: "schedules",
    auth: "user",
    params: scheduleIdParams,
    responses: { 200: { description: "The schedule", schema: scheduleRecord }, 404: { description: "Unknown or deleted schedule" } },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await getSchedule(ctx.database.pool, caller.reach, params.schedule_id) }),
  }),
  defineRoute({
    method: "put",
    path: "/schedules/{schedule_id}",
    operationId: "replaceSchedule",
    summary: "Replace a schedule's settings (admins; an omitted optional field takes its default)",
    description:
      "Replaces cron, timezone, context, priority, enabled, overlap, key and description. Enabling a schedule, or changing its expression or time zone, " +
      "starts it from the next fire time after now (nothing is caught up); other changes keep its next fire time. A PUT that changes nothing records no event.",
    tag: "schedules",
    auth: "admin",
    params: scheduleIdParams,
    body: scheduleBody,
    example: { cron: "0 6 * * MON-FRI", timezone: "Europe/Berlin", context: { month: "current" }, key: "weekday-export" },
    responses: {
      200: { description: "The schedule after the change", schema: scheduleRecord },
      404: { description: "Unknown or deleted schedule" },
      409: { description: "enabled: true on a deactivated automation, or another schedule of the automation has this key" },
    },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 200,
      body: await replaceSchedule(ctx, caller.reach, params.schedule_id, body, caller.user.id),
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/schedules/{schedule_id}",
    operationId: "deleteSchedule",
    description:
      "The schedule makes no more jobs and is gone for every read and PUT (404); the jobs it made keep their schedule_id. Writes `schedule.deleted`.",
    summary: "Delete a schedule (admins): it makes no more jobs; the jobs it made stay, queued ones included",
    tag: "schedules",
    auth: "admin",
    params: scheduleIdParams,
    responses: { 204: { description: "Deleted; its key is free again" }, 404: { description: "Unknown or already deleted schedule" } },
    handler: async ({ params, caller, ctx }) => {
      await deleteSchedule(ctx.database.pool, caller.reach, params.schedule_id, caller.user.id);
      return { status: 204 };
    },
  }),
];
