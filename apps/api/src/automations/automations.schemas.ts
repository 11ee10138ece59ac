import { z } from "zod";
import { APPROVERS_MAX, AUTOMATION_LIMITS, pydanticIssue, queryBool, uuid, WORKER_STATUSES } from "@hub/shared";
import { pageQueryShape } from "../http/pagination";
import { sectorRecord } from "../sectors/sectors.schemas";

export const automationIdParams = z.object({ automation_id: uuid() });

/** Lower-case words of letters and digits joined by single hyphens: `nightly-report`. */
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

// `abort` stops at the first failed check, so an empty slug is one issue (too short), as in pydantic.
const slugField = () => z.string().min(1, { abort: true }).max(100, { abort: true }).regex(SLUG_PATTERN);

const automationName = () => z.string().trim().min(1).max(200);

/** An integer within one of {@link AUTOMATION_LIMITS}. */
const within = ({ min, max }: { min: number; max: number }) => z.int().min(min).max(max);

const maxConcurrentJobs = () => within(AUTOMATION_LIMITS.maxConcurrentJobs);

// Retries, back-off and timeouts (CONTRACT §6.4).
const maxAttempts = () =>
  within(AUTOMATION_LIMITS.maxAttempts).describe("Attempts a job gets before it ends `failed`; defaults to the hub's HUB_JOB_MAX_ATTEMPTS");
const retryBackoffSeconds = () =>
  within(AUTOMATION_LIMITS.retryBackoffSeconds).describe(
    `Back-off base: after failed attempt n a job waits this × 2^(n−1) s (±20 % jitter, at most 1 h); default ${AUTOMATION_LIMITS.retryBackoffSeconds.default}`,
  );
const timeoutSeconds = () =>
  within(AUTOMATION_LIMITS.timeoutSeconds)
    .nullable()
    .describe("A job running longer than this (heartbeats or not) fails with error `timeout`, retryably; null = no limit");

// Limits per key, rate limits and fair sharing (CONTRACT §6.13).
const concurrencyKey = () =>
  z
    .string()
    .nullable()
    .describe("The parameter whose value in a job's context groups jobs for max_concurrent_per_key, per-key rate limits and fair sharing; null = none");
const maxConcurrentPerKey = () =>
  within(AUTOMATION_LIMITS.maxConcurrentPerKey)
    .nullable()
    .describe("Jobs of one concurrency_key value running at once; required while a key is set, null without one");
const rateLimitFields = {
  count: within(AUTOMATION_LIMITS.rateLimitCount).describe("Starts allowed per window"),
  period_seconds: within(AUTOMATION_LIMITS.rateLimitPeriodSeconds).describe("The window: starts counted over the last period_seconds"),
};
const rateLimitDescription =
  "At most `count` job starts (retries too) in any `period_seconds`, for the automation or, with per_key, for each concurrency_key value; null = none";
const rateLimitInput = () =>
  z
    .object({ ...rateLimitFields, per_key: z.boolean().default(false).describe("Count per concurrency_key value (needs a key)") })
    .nullable()
    .describe(rateLimitDescription);

// Approvals (CONTRACT §6.17).
const requiresApproval = () => z.boolean().describe("Every job of the automation waits for an approval (by an admin or one of approver_ids) before it may run");
/** Approver ids: at most {@link APPROVERS_MAX}; an id given twice is a 422 at its second occurrence. Who they are is checked against the users. */
const approverIds = () =>
  z
    .array(uuid())
    .max(APPROVERS_MAX)
    .superRefine((ids, ctx) => {
      const seen = new Set<string>();
      ids.forEach((id, k) => {
        const normal = id.toLowerCase();
        if (seen.has(normal)) {
          ctx.addIssue({ code: "custom", input: id, path: [k], ...pydanticIssue("value_error", "Value error, this user is listed already") });
        }
        seen.add(normal);
      });
    })
    .describe(`Up to ${APPROVERS_MAX} active users (any role) who may decide the automation's approvals besides admins; never a job's own creator`);
const approvalTimeoutSeconds = () =>
  within(AUTOMATION_LIMITS.approvalTimeoutSeconds)
    .nullable()
    .describe("A pending approval older than this expires: the job is cancelled with reason approval_expired; null = never");

/** The §6.13 settings, all optional: omitted in a POST they are null, in a PUT they stay as they were. */
const limitSettings = {
  concurrency_key: concurrencyKey().optional(),
  max_concurrent_per_key: maxConcurrentPerKey().optional(),
  rate_limit: rateLimitInput().optional(),
};

/** The retry settings, all optional: omitted in a POST they take their defaults, in a PUT they stay as they were. */
const retrySettings = {
  max_attempts: maxAttempts().optional(),
  retry_backoff_seconds: retryBackoffSeconds().optional(),
  timeout_seconds: timeoutSeconds().optional(),
};

/**
 * Not a usable parameter name: JSON parsing in JavaScript keeps no own `__proto__` key in a job's
 * context, so a parameter of that name could never be satisfied.
 */
/** Bounds of an automation's texts (CONTRACT §6.15): they are copied into every automation record served. */
export const AUTOMATION_DESCRIPTION_MAX = 10_000;
export const AUTOMATION_PARAMETERS_MAX = 100;
export const AUTOMATION_PARAMETER_DESCRIPTION_MAX = 1_000;

const UNUSABLE_PARAMETER_NAMES = new Set(["__proto__"]);

const parameterInput = z.object({
  name: z.string().min(1).max(100),
  description: z.string().max(AUTOMATION_PARAMETER_DESCRIPTION_MAX).default(""),
});

/** Parameters of a create or update body: names are unique (they become the context's keys). */
const parameterList = () =>
  z
    .array(parameterInput)
    .max(AUTOMATION_PARAMETERS_MAX)
    .superRefine((parameters, ctx) => {
      const seen = new Set<string>();
      const duplicates = new Set<string>();
      for (const { name } of parameters) {
        if (seen.has(name)) duplicates.add(name);
        seen.add(name);
        if (UNUSABLE_PARAMETER_NAMES.has(name)) {
          ctx.addIssue({ code: "custom", input: parameters, ...pydanticIssue("value_error", `Value error, '${name}' cannot be a parameter name`) });
        }
      }
      if (duplicates.size > 0) {
        const names = [...duplicates].map((name) => `'${name}'`).join(", ");
        ctx.addIssue({ code: "custom", input: parameters, ...pydanticIssue("value_error", `Value error, parameter names must be unique; repeated: ${names}`) });
      }
    });

export const createAutomationBody = z
  .object({
    name: automationName(),
    slug: slugField(),
    sector_id: uuid(),
    parameters: parameterList().default([]),
    description: z.string().max(AUTOMATION_DESCRIPTION_MAX).default(""),
    max_concurrent_jobs: maxConcurrentJobs().default(AUTOMATION_LIMITS.maxConcurrentJobs.default),
    ...retrySettings,
    ...limitSettings,
    requires_approval: requiresApproval().default(false),
    approver_ids: approverIds().default([]),
    approval_timeout_seconds: approvalTimeoutSeconds().default(null),
  })
  .meta({ id: "CreateAutomationRequest" });
export type CreateAutomationInput = z.output<typeof createAutomationBody>;

/**
 * Full replacement of the original fields; a `slug` in the body is ignored like any unknown field
 * (it cannot change). The retry and limit settings are optional: omitted, each stays as it was.
 */
export const replaceAutomationBody = z
  .object({
    name: automationName(),
    description: z.string().max(AUTOMATION_DESCRIPTION_MAX),
    sector_id: uuid(),
    max_concurrent_jobs: maxConcurrentJobs(),
    parameters: parameterList(),
    ...retrySettings,
    ...limitSettings,
    // Omitted: the stored value (CONTRACT §6.17).
    requires_approval: requiresApproval().optional(),
    approver_ids: approverIds().optional(),
    approval_timeout_seconds: approvalTimeoutSeconds().optional(),
  })
  .meta({ id: "ReplaceAutomationRequest" });
export type ReplaceAutomationInput = z.output<typeof replaceAutomationBody>;

export const listAutomationsQuery = z.object({
  sector_id: uuid().optional(),
  is_active: queryBool().optional(),
  ...pageQueryShape(),
});
export type AutomationListQuery = z.output<typeof listAutomationsQuery>;

/** An automation's registered worker, as the automation record shows it. */
const workerRecord = z
  .object({
    cloud_instance_id: z.string(),
    status: z.enum(WORKER_STATUSES),
    created_at: z.iso.datetime(),
    last_seen_at: z.iso.datetime().nullable().describe("When the worker last called the hub; null until it first does"),
  })
  .meta({ id: "Worker", description: "`running` while it has called the hub within HUB_WORKER_TTL_SECONDS, else `stopped`" });

export const automationRecord = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    sector: sectorRecord.pick({ id: true, name: true, color: true }),
    parameters: z.array(z.object({ name: z.string(), type: z.literal("text"), description: z.string() }).meta({ id: "AutomationParameter" })),
    context_schema: z.record(z.string(), z.unknown()).describe("JSON Schema of a job's context, derived from the parameters"),
    description: z.string(),
    max_concurrent_jobs: z.int(),
    max_attempts: maxAttempts(),
    retry_backoff_seconds: retryBackoffSeconds(),
    timeout_seconds: timeoutSeconds(),
    concurrency_key: concurrencyKey(),
    max_concurrent_per_key: maxConcurrentPerKey(),
    rate_limit: z
      .object({ ...rateLimitFields, per_key: z.boolean() })
      .meta({ id: "RateLimit" })
      .nullable()
      .describe(rateLimitDescription),
    requires_approval: requiresApproval(),
    approver_ids: z.array(z.uuid()).describe("Who may decide the automation's approvals besides admins"),
    approval_timeout_seconds: approvalTimeoutSeconds(),
    is_active: z.boolean(),
    is_development: z.boolean(),
    worker: workerRecord.nullable().describe("The registered worker; null until one is registered"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "Automation", description: "What jobs run for: its parameters, limits, retry settings and worker" });
export type AutomationRecord = z.infer<typeof automationRecord>;
