import { z } from "zod";
import { ALERT_KINDS, ALERT_LIMITS, ALERT_STATES, ALERT_THRESHOLDS, pydanticIssue, uuid, type AlertKind } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";

export const alertRuleIdParams = z.object({ rule_id: uuid() });

const bounded = (limits: { min: number; max: number; default: number }, what: string) =>
  z
    .int()
    .min(limits.min)
    .max(limits.max)
    .default(limits.default)
    .describe(`${what} (${limits.min.toLocaleString("en-US")}–${limits.max.toLocaleString("en-US")}, default ${limits.default})`);

/**
 * The threshold's problem for `kind` (CONTRACT §6.19), as pydantic names it: required and in the
 * kind's unit and range; `worker_offline` takes none.
 */
function thresholdIssue(kind: AlertKind, threshold: unknown): { pydanticType: string; msg: string } | undefined {
  const range = ALERT_THRESHOLDS[kind];
  if (range === null) {
    return threshold === null || threshold === undefined
      ? undefined
      : { pydanticType: "value_error", msg: "Value error, worker_offline takes no threshold (null)" };
  }
  if (threshold === undefined || threshold === null) return { pydanticType: "missing", msg: "Field required" };
  if (typeof threshold !== "number" || !Number.isFinite(threshold)) return undefined; // the field's own type check reports it
  if (range.integer && !Number.isInteger(threshold))
    return { pydanticType: "int_from_float", msg: "Input should be a valid integer, got a number with a fractional part" };
  if (range.minExclusive ? threshold <= range.min : threshold < range.min) {
    return range.minExclusive
      ? { pydanticType: "greater_than", msg: `Input should be greater than ${range.min}` }
      : { pydanticType: "greater_than_equal", msg: `Input should be greater than or equal to ${range.min}` };
  }
  if (threshold > range.max) return { pydanticType: "less_than_equal", msg: `Input should be less than or equal to ${range.max}` };
  return undefined;
}

/** The body of POST /alert-rules and PUT /alert-rules/{id} (a PUT replaces every field; an omitted optional one takes its default). */
export const alertRuleBody = z
  .object({
    automation_id: uuid().nullable().default(null).describe("The automation the rule watches; null (the default): every automation, each on its own"),
    kind: z
      .enum(ALERT_KINDS)
      .describe(
        "queue_age: the oldest due queued job waited longer than threshold seconds; queue_depth: at least threshold due queued jobs; failure_rate: at least min_jobs jobs finished in the last window_seconds and the share failed is at least threshold; worker_offline: due jobs wait while the worker is stopped or none is registered; job_duration: a job has run longer than threshold seconds",
      ),
    threshold: z
      .number()
      .nullable()
      .optional()
      .describe(
        "In the kind's unit: seconds 1–2,592,000 (queue_age, job_duration), jobs 1–1,000,000 (queue_depth), a share above 0 and at most 1 (failure_rate); null for worker_offline",
      ),
    for_seconds: bounded(ALERT_LIMITS.forSeconds, "How long the condition must hold at every evaluation before the alert fires"),
    window_seconds: bounded(ALERT_LIMITS.windowSeconds, "failure_rate only: the window of finished jobs"),
    min_jobs: bounded(ALERT_LIMITS.minJobs, "failure_rate only: fewer jobs finished in the window never fire"),
    description: z.string().max(1000).default(""),
  })
  .superRefine(
    (body, ctx) => {
      // Runs with the other fields' problems too (`when`), so the input may be anything.
      if (typeof body !== "object" || body === null || !(ALERT_KINDS as readonly unknown[]).includes(body.kind)) return;
      const issue = thresholdIssue(body.kind, body.threshold);
      if (issue) ctx.addIssue({ code: "custom", path: ["threshold"], input: body.threshold, ...pydanticIssue(issue.pydanticType, issue.msg) });
    },
    { when: () => true },
  )
  .meta({
    id: "AlertRuleRequest",
    examples: [{ automation_id: "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d", kind: "queue_age", threshold: 600, for_seconds: 60, description: "Invoices wait" }],
  });
export type AlertRuleBody = z.output<typeof alertRuleBody>;

export const alertRuleRecord = z
  .object({
    id: z.uuid(),
    automation_id: z.uuid().nullable(),
    kind: z.enum(ALERT_KINDS),
    threshold: z.number().nullable(),
    for_seconds: z.int(),
    window_seconds: z.int(),
    min_jobs: z.int(),
    description: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "AlertRule", description: "A condition the hub evaluates at least every 10 s, per automation it covers" });
export type AlertRuleRecord = z.infer<typeof alertRuleRecord>;

export const listAlertRulesQuery = z.object({
  automation_id: uuid().optional().describe("Only the rules of this automation (rules for every automation are left out)"),
  kind: z.enum(ALERT_KINDS).optional(),
  ...pageQueryShape(),
});
export type ListAlertRulesQuery = z.output<typeof listAlertRulesQuery>;

export const listAlertsQuery = z.object({
  state: z.enum(ALERT_STATES).default("firing").describe("firing (the default): the alerts firing now, oldest first; resolved: their history, newest first"),
  automation_id: uuid().optional().describe("Only the alerts about this automation"),
  ...pageQueryShape(),
});
export type ListAlertsQuery = z.output<typeof listAlertsQuery>;

export const alertRecord = z
  .object({
    rule_id: z.uuid(),
    automation_id: z.uuid(),
    kind: z.enum(ALERT_KINDS),
    value: z.number().describe("By kind: seconds, jobs, or a share 0–1 (the latest evaluation's; for a resolved alert, what it last fired with)"),
    threshold: z.number().nullable(),
    message: z.string(),
    since: z.iso.datetime().describe("When it started firing"),
    resolved_at: z.iso.datetime().optional().describe("state=resolved only: when it resolved"),
  })
  .meta({ id: "Alert", description: "A rule and one automation: firing now, or resolved" });
export type AlertRecord = z.infer<typeof alertRecord>;
