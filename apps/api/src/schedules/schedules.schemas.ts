import { z } from "zod";
import { pydanticIssue, queryBool, queryInt, SCHEDULE_OVERLAP_POLICIES, uuid } from "@hub/shared";
import { jobContextField } from "../http/payload-limits";
import { CRON_NICKNAMES, parseCronExpression, timeZoneProblem } from "@hub/shared/cron";
import { pageQueryShape } from "../http/pagination";
import { jobPriority } from "../jobs/jobs.schemas";

export const scheduleIdParams = z.object({ schedule_id: uuid() });

/** Most characters of a schedule's `key` (CONTRACT §6.9). */
export const SCHEDULE_KEY_MAX_LENGTH = 100;

const valueError = (problem: string) => pydanticIssue("value_error", `Value error, ${problem}`);

/**
 * The syntax of CONTRACT §6.9, checked with the request's other fields. Whether a seconds field
 * is allowed (HUB_SCHEDULES_ALLOW_SECONDS) and whether the expression fires within 4 years are
 * checked once the body has this shape (schedules.service.ts), with the context.
 */
export const cronField = () =>
  z
    .string()
    .superRefine((text, ctx) => {
      const parsed = parseCronExpression(text);
      if (!parsed.ok) ctx.addIssue({ code: "custom", input: text, ...valueError(`not a cron expression the hub accepts: ${parsed.problem}`) });
    })
    .describe(
      "Five fields: minute hour day-of-month month day-of-week (numbers, JAN–DEC and SUN–SAT, `*`, ranges `1-5`, lists `1,15`, steps `*/15` and `0-30/10`; " +
        `0 and 7 are Sunday; with day-of-month and day-of-week both restricted, either matches), or one of ${Object.keys(CRON_NICKNAMES).join(", ")}. ` +
        "A leading seconds field only where the hub sets HUB_SCHEDULES_ALLOW_SECONDS=true. Returned as sent.",
    )
    .meta({ examples: ["0 6 * * MON-FRI", "*/15 * * * *", "@daily"] });

export const timezoneField = () =>
  z
    .string()
    .superRefine((name, ctx) => {
      const problem = timeZoneProblem(name);
      if (problem) ctx.addIssue({ code: "custom", input: name, ...valueError(problem) });
    })
    .default("UTC")
    .describe(
      "IANA time zone the expression is read in (any name Intl.DateTimeFormat accepts), returned exactly as sent. " +
        "A fixed time of day that does not exist on a DST day fires when the clocks spring forward; one that occurs twice fires once, at the first.",
    )
    .meta({ examples: ["Europe/Berlin", "UTC", "US/Eastern"] });

/**
 * The body of POST /automations/{id}/schedules and of PUT /schedules/{id}: a PUT replaces every
 * field, and an omitted optional field takes its default (CONTRACT §6.9).
 */
export const scheduleBody = z
  .object({
    cron: cronField(),
    timezone: timezoneField(),
    context: jobContextField()
      .default({})
      .describe(
        "The context of every job the schedule makes; checked against the automation's parameters like POST /jobs; at most HUB_JOB_CONTEXT_MAX_BYTES bytes as compact JSON",
      ),
    priority: jobPriority(),
    enabled: z.boolean().default(true).describe("A disabled schedule makes no job; enabling it starts from its next fire time (nothing is caught up)"),
    overlap: z
      .enum(SCHEDULE_OVERLAP_POLICIES)
      .default("skip")
      .describe(
        "skip: a fire while a job of this schedule is still queued or running makes none (event schedule.skipped, reason overlap); allow: it makes one anyway",
      ),
    key: z
      .string()
      .min(1)
      .max(SCHEDULE_KEY_MAX_LENGTH)
      .nullable()
      .default(null)
      .describe("Your name for the schedule, unique per automation (a taken key → 409): a set-up script run twice creates one schedule"),
    description: z.string().default(""),
  })
  .meta({
    examples: [
      {
        cron: "0 6 * * MON-FRI",
        timezone: "Europe/Berlin",
        context: { month: "current" },
        key: "weekday-invoice-export",
        description: "Invoices, every weekday at 06:00 Berlin time",
      },
    ],
  })
  .meta({ id: "ScheduleRequest" });
export type ScheduleBody = z.output<typeof scheduleBody>;

/** Most fire times one GET /schedules/preview lists (CONTRACT §6.14). */
export const SCHEDULE_PREVIEW_MAX_COUNT = 20;

export const schedulePreviewQuery = z.object({
  cron: cronField(),
  timezone: timezoneField(),
  count: queryInt({ min: 1, max: SCHEDULE_PREVIEW_MAX_COUNT }).default(5).describe(`How many fire times to list (1–${SCHEDULE_PREVIEW_MAX_COUNT}, default 5)`),
});
export type SchedulePreviewQuery = z.output<typeof schedulePreviewQuery>;

export const schedulePreviewResponse = z
  .object({
    next: z
      .array(z.iso.datetime())
      .describe("The next fire times after now (PostgreSQL's clock), in UTC, oldest first; fewer than count when fewer fall within 4 years"),
  })
  .meta({ id: "SchedulePreview", examples: [{ next: ["2026-11-23T05:00:00.000Z", "2026-11-24T05:00:00.000Z"] }] });

export const listSchedulesQuery = z.object({
  automation_id: uuid().optional().describe("Only this automation's schedules"),
  enabled: queryBool().optional().describe("Only enabled (true) or disabled (false) schedules"),
  ...pageQueryShape(),
});
export type ListSchedulesQuery = z.output<typeof listSchedulesQuery>;

export const listAutomationSchedulesQuery = listSchedulesQuery.omit({ automation_id: true });

export const scheduleRecord = z
  .object({
    id: z.uuid(),
    automation_id: z.uuid(),
    key: z.string().nullable(),
    cron: z.string(),
    timezone: z.string(),
    context: z.record(z.string(), z.unknown()),
    priority: z.int(),
    enabled: z.boolean(),
    overlap: z.enum(SCHEDULE_OVERLAP_POLICIES),
    description: z.string(),
    next_run_at: z.iso.datetime().nullable().describe("The next fire time; null while disabled"),
    last_run_at: z.iso.datetime().nullable().describe("The fire time of the last job this schedule made; null before the first"),
    last_job_id: z.uuid().nullable().describe("The last job this schedule made"),
    created_at: z.iso.datetime(),
  })
  .meta({
    examples: [
      {
        id: "3f0c1a52-0d5e-4a8e-9d43-0b7f5b1f2a11",
        automation_id: "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
        key: "weekday-invoice-export",
        cron: "0 6 * * MON-FRI",
        timezone: "Europe/Berlin",
        context: { month: "current" },
        priority: 0,
        enabled: true,
        overlap: "skip",
        description: "Invoices, every weekday at 06:00 Berlin time",
        next_run_at: "2026-11-23T05:00:00.000Z",
        last_run_at: "2026-11-20T05:00:00.000Z",
        last_job_id: "c4a7e2b9-1d3f-4b6a-8e0c-5f2d9a1b3c7e",
        created_at: "2026-11-01T09:12:44.120Z",
      },
    ],
  })
  .meta({ id: "Schedule", description: "A cron expression in a time zone that makes one job of its automation per fire" });
export type ScheduleRecord = z.infer<typeof scheduleRecord>;
