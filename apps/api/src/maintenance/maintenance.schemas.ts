import { z } from "zod";
import { isoDateTime, pydanticIssue, queryBool, uuid } from "@hub/shared";
import { timeZoneProblem } from "@hub/shared/cron";
import { pageQueryShape } from "../http/pagination";
import { cronField } from "../schedules/schedules.schemas";

export const maintenanceWindowIdParams = z.object({ window_id: uuid() });

/** A recurring window's occurrence length (CONTRACT §6.18). */
export const MAINTENANCE_DURATION_MIN_SECONDS = 60;
export const MAINTENANCE_DURATION_MAX_SECONDS = 604_800;
/** A one-off window ends at most this many days after it starts (CONTRACT §6.18). */
export const MAINTENANCE_ONE_OFF_MAX_DAYS = 31;
/** Longest description (the contract is silent: as an automation's). */
export const MAINTENANCE_DESCRIPTION_MAX = 10_000;

const MS_PER_DAY = 86_400_000;
const valueError = (problem: string) => pydanticIssue("value_error", `Value error, ${problem}`);

const timezoneField = () =>
  z
    .string()
    .superRefine((name, ctx) => {
      const problem = timeZoneProblem(name);
      if (problem) ctx.addIssue({ code: "custom", input: name, ...valueError(problem) });
    })
    .describe("A recurring window's IANA time zone, as §6.9 reads a schedule's (default \"UTC\"); returned exactly as sent")
    .meta({ examples: ["Europe/Berlin"] });

/** Given: present and not null (a record read back and sent as a PUT names the other form's fields as null). */
const given = (value: unknown) => value !== undefined && value !== null;

/**
 * The body of POST /maintenance-windows and of PUT /maintenance-windows/{id}: a PUT replaces every
 * field, an omitted optional field taking its default (CONTRACT §6.18, as §6.9's PUT).
 */
export const maintenanceWindowBody = z
  .object({
    automation_id: uuid().nullable().optional().describe("Hold this automation's jobs (at most one of automation_id and sector_id; neither: every automation)"),
    sector_id: uuid().nullable().optional().describe("Hold the jobs of every automation of this sector"),
    starts_at: isoDateTime(["2026-12-12T22:00:00+01:00"])
      .nullable()
      .optional()
      .describe("A one-off window's start (with ends_at); may be past: a window from now"),
    ends_at: isoDateTime(["2026-12-13T04:00:00+01:00"])
      .nullable()
      .optional()
      .describe(`A one-off window's end: after starts_at, in the future, at most ${MAINTENANCE_ONE_OFF_MAX_DAYS} days after starts_at`),
    cron: cronField()
      .nullable()
      .optional()
      .describe("A recurring window's starts: a cron expression as a schedule's (§6.9), with timezone and duration_seconds"),
    timezone: timezoneField().nullable().optional(),
    duration_seconds: z
      .int()
      .min(MAINTENANCE_DURATION_MIN_SECONDS)
      .max(MAINTENANCE_DURATION_MAX_SECONDS)
      .nullable()
      .optional()
      .describe(`A recurring window's length from each fire time (${MAINTENANCE_DURATION_MIN_SECONDS}–${MAINTENANCE_DURATION_MAX_SECONDS} s)`),
    drain: z
      .boolean()
      .default(false)
      .describe(
        "Also start no job that could still be running when the window begins: none from the automation's timeout_seconds before it (nothing changes without one)",
      ),
    description: z.string().max(MAINTENANCE_DESCRIPTION_MAX).default(""),
  })
  .superRefine((body, ctx) => {
    const oneOff = given(body.starts_at) || given(body.ends_at);
    const recurring = given(body.cron) || given(body.timezone) || given(body.duration_seconds);
    const completeOneOff = given(body.starts_at) && given(body.ends_at);
    const completeRecurring = given(body.cron) && given(body.duration_seconds);
    if (oneOff === recurring || (oneOff && !completeOneOff) || (recurring && !completeRecurring)) {
      ctx.addIssue({
        code: "custom",
        input: body,
        ...valueError("give exactly one form: starts_at and ends_at (a one-off window), or cron, duration_seconds and optionally timezone (a recurring one)"),
      });
    }
    if (given(body.automation_id) && given(body.sector_id)) {
      ctx.addIssue({ code: "custom", input: body, ...valueError("give at most one scope: automation_id or sector_id (neither: every automation)") });
    }
    if (body.starts_at instanceof Date && body.ends_at instanceof Date) {
      const startsAt = body.starts_at.getTime();
      const endsAt = body.ends_at.getTime();
      const problem =
        endsAt <= startsAt
          ? "ends_at must be after starts_at"
          : endsAt <= Date.now()
            ? "ends_at must be in the future"
            : endsAt - startsAt > MAINTENANCE_ONE_OFF_MAX_DAYS * MS_PER_DAY
              ? `ends_at must be at most ${MAINTENANCE_ONE_OFF_MAX_DAYS} days after starts_at`
              : undefined;
      if (problem) ctx.addIssue({ code: "custom", path: ["ends_at"], input: body.ends_at, ...valueError(problem) });
    }
  })
  .meta({
    examples: [
      {
        sector_id: "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
        starts_at: "2026-12-12T22:00:00+01:00",
        ends_at: "2026-12-13T04:00:00+01:00",
        description: "ERP upgrade",
      },
      { automation_id: "3f0c1a52-0d5e-4a8e-9d43-0b7f5b1f2a11", cron: "0 1 * * SUN", timezone: "Europe/Berlin", duration_seconds: 7200, drain: true },
    ],
  })
  .meta({ id: "MaintenanceWindowRequest" });
export type MaintenanceWindowBody = z.output<typeof maintenanceWindowBody>;

export const listMaintenanceWindowsQuery = z.object({
  automation_id: uuid().optional().describe("Only windows scoped to this automation"),
  sector_id: uuid().optional().describe("Only windows scoped to this sector"),
  active: queryBool().optional().describe("Only windows in effect now (true) or not (false)"),
  ...pageQueryShape(),
});
export type ListMaintenanceWindowsQuery = z.output<typeof listMaintenanceWindowsQuery>;

export const maintenanceWindowRecord = z
  .object({
    id: z.uuid(),
    automation_id: z.uuid().nullable(),
    sector_id: z.uuid().nullable(),
    starts_at: z.iso.datetime().nullable().describe("A one-off window's start; null for a recurring one"),
    ends_at: z.iso.datetime().nullable().describe("A one-off window's end; null for a recurring one"),
    cron: z.string().nullable().describe("A recurring window's cron expression; null for a one-off one"),
    timezone: z.string().nullable(),
    duration_seconds: z.int().nullable(),
    drain: z.boolean(),
    description: z.string(),
    active: z.boolean().describe("In effect now (PostgreSQL's clock)"),
    next_start_at: z.iso.datetime().nullable().describe("The next start still ahead; null when none"),
    next_end_at: z.iso.datetime().nullable().describe("The end of the occurrence in effect, or else of the next one; null when none"),
    created_at: z.iso.datetime(),
  })
  .meta({
    examples: [
      {
        id: "5d7e2c1a-3b4f-4a6e-8c9d-0e1f2a3b4c5d",
        automation_id: null,
        sector_id: "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
        starts_at: null,
        ends_at: null,
        cron: "0 1 * * SUN",
        timezone: "Europe/Berlin",
        duration_seconds: 7200,
        drain: true,
        description: "ERP backup every Sunday night",
        active: false,
        next_start_at: "2026-12-06T00:00:00.000Z",
        next_end_at: "2026-12-06T02:00:00.000Z",
        created_at: "2026-12-01T09:12:44.120Z",
      },
    ],
  })
  .meta({ id: "MaintenanceWindow", description: "A time during which no job of its scope starts (one-off, or recurring by cron)" });
export type MaintenanceWindowRecord = z.infer<typeof maintenanceWindowRecord>;
