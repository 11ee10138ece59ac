import { z } from "zod";
import { createdIdResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import { listMaintenanceWindowsQuery, maintenanceWindowBody, maintenanceWindowIdParams, maintenanceWindowRecord } from "./maintenance.schemas";
import {
  createMaintenanceWindow,
  deleteMaintenanceWindow,
  getMaintenanceWindow,
  listMaintenanceWindows,
  replaceMaintenanceWindow,
} from "./maintenance.service";

const HOLDING_RULES =
  "While a window is in effect no job of its scope starts: no claim hands one out, whatever the number of processes (PostgreSQL's clock). Running jobs go on; " +
  "jobs are accepted and schedules fire; the held jobs read waiting_reason maintenance_window and GET /jobs/{job_id} shows resumes_at. With drain, a job also " +
  "does not start when a window of its scope begins within its automation's timeout_seconds. At the end the held jobs start within 1 s in claim order, " +
  "every limit held. Events maintenance_window.started and .ended {starts_at, ends_at}, one of each per occurrence within 5 s, whatever the number of dispatchers.";

const FORM_RULES =
  "Exactly one form: starts_at + ends_at (one-off; starts_at may be past, ends_at after it, in the future and at most 31 days after it, else 422 at " +
  '["body","ends_at"]) or cron + duration_seconds (60–604800) + timezone (default "UTC"; cron and timezone as a schedule\'s). At most one of automation_id and ' +
  'sector_id (neither: every automation). Either broken → 422 value_error at ["body"]. An unknown automation or sector → 422 at its field.';

/** Maintenance windows (CONTRACT §6.18): admins set them up, admins and employees read them within their sectors. */
export const maintenanceWindowRoutes = [
  defineRoute({
    method: "post",
    path: "/maintenance-windows",
    operationId: "createMaintenanceWindow",
    summary: "Create a maintenance window: no job of its scope starts while it is in effect (admins)",
    description: `${FORM_RULES} ${HOLDING_RULES} A window created already in effect writes maintenance_window.started at once.`,
    tag: "maintenance",
    auth: "admin",
    body: maintenanceWindowBody,
    example: { sector_id: "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d", starts_at: "2026-12-12T22:00:00+01:00", ends_at: "2026-12-13T04:00:00+01:00", drain: true },
    responses: { 201: { description: "Created", schema: createdIdResponse } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createMaintenanceWindow(ctx, caller.reach, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/maintenance-windows",
    operationId: "listMaintenanceWindows",
    summary: "List maintenance windows",
    description:
      "The windows (not deleted) the caller reaches — those of its automations, of their sectors and those over every automation — oldest first, a page at a time; " +
      "`automation_id=`, `sector_id=` and `active=` filter.",
    tag: "maintenance",
    auth: "user",
    query: listMaintenanceWindowsQuery,
    paginated: true,
    responses: {
      200: { description: `Matching windows, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(maintenanceWindowRecord) },
    },
    handler: async ({ query, after, caller, ctx }) => {
      const page = await listMaintenanceWindows(ctx.database.pool, caller.reach, query, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/maintenance-windows/{window_id}",
    operationId: "getMaintenanceWindow",
    summary: "Get a maintenance window",
    description: "One window with whether it is in effect now (`active`), its next start and the end of the occurrence in effect or next.",
    tag: "maintenance",
    auth: "user",
    params: maintenanceWindowIdParams,
    responses: { 200: { description: "The window", schema: maintenanceWindowRecord }, 404: { description: "Unknown or deleted window" } },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await getMaintenanceWindow(ctx.database.pool, caller.reach, params.window_id) }),
  }),
  defineRoute({
    method: "put",
    path: "/maintenance-windows/{window_id}",
    operationId: "replaceMaintenanceWindow",
    summary: "Replace a maintenance window's settings (admins; an omitted optional field takes its default)",
    description:
      `${FORM_RULES} An occurrence in effect that the new settings no longer hold now ends at once (maintenance_window.ended with the actual end; held jobs start within 1 s); ` +
      "one they still hold keeps its start and takes the new end. A PUT that changes nothing records no event.",
    tag: "maintenance",
    auth: "admin",
    params: maintenanceWindowIdParams,
    body: maintenanceWindowBody,
    example: { sector_id: "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d", starts_at: "2026-12-12T22:00:00+01:00", ends_at: "2026-12-13T02:00:00+01:00" },
    responses: { 200: { description: "The window after the change", schema: maintenanceWindowRecord }, 404: { description: "Unknown or deleted window" } },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 200,
      body: await replaceMaintenanceWindow(ctx, caller.reach, params.window_id, body, caller.user.id),
    }),
  }),
  defineRoute({
    method: "delete",
    path: "/maintenance-windows/{window_id}",
    operationId: "deleteMaintenanceWindow",
    summary: "Delete a maintenance window (admins): an occurrence in effect ends at once",
    description:
      "The window holds no more jobs and is gone for every read (404). One in effect ends now: maintenance_window.ended with that end; held jobs start within 1 s.",
    tag: "maintenance",
    auth: "admin",
    params: maintenanceWindowIdParams,
    responses: { 204: { description: "Deleted" }, 404: { description: "Unknown or already deleted window" } },
    handler: async ({ params, caller, ctx }) => {
      await deleteMaintenanceWindow(ctx, caller.reach, params.window_id, caller.user.id);
      return { status: 204 };
    },
  }),
];
