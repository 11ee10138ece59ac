/**
 * The event catalogue (CONTRACT §4, §6.7–§6.10), one typed table: for every event type, what its
 * `aggregate_id` names, the zod schema of its payload (as JSON: ids and times are strings), and
 * who may read it in `GET /events`. Producers are typed by it (`events.record` in @hub/db takes the
 * payload of the type it writes), the OpenAPI document describes each event with it, and GET
 * /events hides the admin-only families it names. Payloads never hold passwords, hashes or keys.
 */
import { z } from "zod";
import { ROLES, WORKER_STATUSES, type Role } from "./domain";
import { jsonObject } from "./fields";
import { CANCEL_REASONS, REQUEUE_REASONS } from "./job-lifecycle";
import { ALERT_KINDS } from "./alerts";

/** What an event's `aggregate_id` is the id of. */
export type AggregateType = "sector" | "automation" | "job" | "user" | "schedule" | "webhook" | "api_key" | "alert_rule" | "maintenance_window";

/**
 * Who reads an event in GET /events: every signed-in user, or admins only (left out of anyone
 * else's results, never a 403: CONTRACT §6.1).
 */
export type EventVisibility = "everyone" | "admins";

/**
 * How long an event stays under HUB_RETENTION_DAYS (docs/operations.md "Retention"):
 * - `with_job`: as long as its job — removed with it, once the job finished more than the period ago;
 * - `age`: until it is older than the period — what the hub writes by itself, again and again, about
 *   an aggregate that lives on (a worker going up and down, a schedule whose fires keep overlapping),
 *   so that it would grow without bound;
 * - `kept`: for good — the record of what people set up and changed, which grows only with their
 *   actions (and which an aggregate's later reads, such as an automation's history, need).
 */
export type EventRetention = "with_job" | "age" | "kept";

export interface EventDefinition<P extends z.ZodType = z.ZodType> {
  aggregate: AggregateType;
  payload: P;
  visibility: EventVisibility;
  retention: EventRetention;
}

function event<P extends z.ZodType>(
  aggregate: AggregateType,
  payload: P,
  visibility: EventVisibility = "everyone",
  retention: EventRetention = aggregate === "job" ? "with_job" : "kept",
) {
  return { aggregate, payload, visibility, retention } satisfies EventDefinition<P>;
}

const id = () => z.uuid();
const time = () => z.iso.datetime().describe("ISO 8601, UTC");
const nothing = z.object({});

/** The fields of an automation as its events carry them: those set (created) or changed (updated). */
const automationFields = z
  .object({
    name: z.string(),
    slug: z.string(),
    sector_id: id(),
    description: z.string(),
    parameters: z.array(z.object({ name: z.string(), description: z.string() })),
    max_concurrent_jobs: z.int(),
    max_attempts: z.int().nullable(),
    retry_backoff_seconds: z.int(),
    timeout_seconds: z.int().nullable(),
    concurrency_key: z.string().nullable(),
    max_concurrent_per_key: z.int().nullable(),
    rate_limit: z.object({ count: z.int(), period_seconds: z.int(), per_key: z.boolean() }).nullable(),
    requires_approval: z.boolean(),
    approver_ids: z.array(id()),
    approval_timeout_seconds: z.int().nullable(),
  })
  .partial();

const workerIdentity = z.object({ worker_id: id(), cloud_instance_id: z.string() });

/** The fields of a schedule (§6.9) as its events carry them: those set (created) or changed (updated). */
const scheduleFields = z
  .object({
    automation_id: id(),
    key: z.string().nullable(),
    cron: z.string(),
    timezone: z.string(),
    context: jsonObject(),
    priority: z.int(),
    enabled: z.boolean(),
    overlap: z.enum(["skip", "allow"]),
    description: z.string(),
  })
  .partial();

/** The fields of a maintenance window (§6.18) as its events carry them: those set (created) or changed (updated). */
const maintenanceWindowFields = z
  .object({
    automation_id: id().nullable(),
    sector_id: id().nullable(),
    starts_at: time().nullable(),
    ends_at: time().nullable(),
    cron: z.string().nullable(),
    timezone: z.string().nullable(),
    duration_seconds: z.int().nullable(),
    drain: z.boolean(),
    description: z.string(),
  })
  .partial();

/** One occurrence of a window (§6.18): `ends_at` on `.ended` is the actual end (earlier when the window was deleted or cut short). */
const maintenanceOccurrence = z.object({ starts_at: time(), ends_at: time() });

const webhookIdentity = z.object({ url: z.string(), event_types: z.array(z.string()) });
const apiKeyIdentity = z.object({ user_id: id(), name: z.string(), prefix: z.string() });
const userIdentity = z.object({ email: z.string(), role: z.enum(ROLES) });
const userRef = z.object({ user_id: id() });

/** An alert's transition (§6.19): the rule (the aggregate), the automation it is about, what was measured and said. */
const alertTransition = z.object({
  rule_id: id(),
  automation_id: id(),
  kind: z.enum(ALERT_KINDS),
  value: z.number().describe("By kind: seconds (queue_age, job_duration, worker_offline), jobs (queue_depth), a share 0–1 (failure_rate)"),
  threshold: z.number().nullable().describe("The rule's threshold in the kind's unit; null for worker_offline"),
  message: z.string().describe("A sentence naming the automation, the value and the threshold in units a person reads"),
});

export const EVENT_CATALOGUE = {
  "sector.created": event("sector", z.object({ name: z.string(), color: z.string() })),
  "automation.created": event("automation", automationFields),
  "automation.updated": event("automation", automationFields),
  "automation.deactivated": event("automation", nothing),
  "automation.development_mode_entered": event("automation", nothing),
  "automation.development_mode_exited": event("automation", nothing),
  "worker.registered": event("automation", workerIdentity),
  "worker.unregistered": event("automation", workerIdentity),
  "worker.api_key_rotated": event("automation", workerIdentity),
  "worker.status_changed": event("automation", z.object({ worker_id: id(), from: z.enum(WORKER_STATUSES), to: z.enum(WORKER_STATUSES) }), "everyone", "age"),
  "job.created": event(
    "job",
    z.object({
      automation_id: id(),
      context: jsonObject(),
      retry_of: id().optional().describe("The failed or cancelled job this one retries (§6.4)"),
      context_changed: z.literal(true).optional().describe("Present on a retry given a context (§6.14), even the old one"),
      schedule_id: id().optional().describe("The schedule that fired it (§6.9)"),
      fire_time: time().optional().describe("The schedule's fire time it was made for (§6.9)"),
      depends_on: z.array(id()).optional().describe("The jobs it waits for, in the order given; present when not empty (§6.16)"),
    }),
  ),
  "job.started": event("job", z.object({ automation_id: id(), worker_id: id(), attempt: z.int() })),
  "job.completed": event("job", z.object({ automation_id: id(), worker_id: id(), result: jsonObject() })),
  "job.failed": event("job", z.object({ automation_id: id(), error: z.string(), attempts: z.int() })),
  "job.requeued": event(
    "job",
    z.object({ automation_id: id(), reason: z.enum(REQUEUE_REASONS), attempts: z.int(), available_at: time().describe("When it may be claimed again") }),
  ),
  "job.approval_requested": event(
    "job",
    z.object({ automation_id: id(), expires_at: time().nullable().describe("When the request expires unless decided; null: never (§6.17)") }),
  ),
  "job.approved": event("job", z.object({ automation_id: id(), comment: z.string().nullable() })),
  "job.rejected": event("job", z.object({ automation_id: id(), comment: z.string() })),
  "job.cancelled": event(
    "job",
    z.object({
      automation_id: id(),
      reason: z.enum(CANCEL_REASONS),
      dependency_id: id().optional().describe("With reason dependency_failed: the job of its depends_on that ended failed or cancelled (§6.16)"),
    }),
  ),
  "job.rescheduled": event("job", z.object({ automation_id: id(), run_at: time().nullable(), priority: z.int(), available_at: time() })),
  "user.created": event("user", userIdentity, "admins"),
  "user.deactivated": event("user", userIdentity, "admins"),
  "user.password_changed": event("user", userRef, "admins"),
  "user.password_reset": event("user", userRef, "admins"),
  "user.role_changed": event("user", z.object({ user_id: id(), from: z.enum(ROLES), to: z.enum(ROLES) }), "admins"),
  "user.reactivated": event("user", userRef, "admins"),
  "user.sectors_changed": event(
    "user",
    z.object({ user_id: id(), from: z.array(id()).nullable().describe("null: every sector"), to: z.array(id()).nullable().describe("null: every sector") }),
    "admins",
  ),
  "schedule.created": event("schedule", scheduleFields),
  "schedule.updated": event("schedule", scheduleFields),
  "schedule.deleted": event("schedule", nothing),
  "schedule.skipped": event("schedule", z.object({ fire_time: time(), reason: z.enum(["overlap", "invalid_context"]) }), "everyone", "age"),
  "maintenance_window.created": event("maintenance_window", maintenanceWindowFields),
  "maintenance_window.updated": event("maintenance_window", maintenanceWindowFields),
  "maintenance_window.deleted": event("maintenance_window", nothing),
  "maintenance_window.started": event("maintenance_window", maintenanceOccurrence, "everyone", "age"),
  "maintenance_window.ended": event("maintenance_window", maintenanceOccurrence, "everyone", "age"),
  "webhook.created": event("webhook", webhookIdentity, "admins"),
  "webhook.deleted": event("webhook", webhookIdentity, "admins"),
  "webhook.disabled": event("webhook", webhookIdentity, "admins"),
  "api_key.created": event("api_key", apiKeyIdentity, "admins"),
  "api_key.revoked": event("api_key", apiKeyIdentity, "admins"),
  "alert.firing": event("alert_rule", alertTransition, "everyone", "age"),
  "alert.resolved": event("alert_rule", alertTransition, "everyone", "age"),
} as const satisfies Record<string, EventDefinition>;

export type EventType = keyof typeof EVENT_CATALOGUE;

/** Every event type, in catalogue order. */
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

/** The payload a producer writes for `T` (optional fields may be left out). */
export type EventPayload<T extends EventType> = z.input<(typeof EVENT_CATALOGUE)[T]["payload"]>;

/** Every kind of aggregate the catalogue's events are about, in catalogue order. */
export const AGGREGATE_TYPES = [...new Set(EVENT_TYPES.map((type) => EVENT_CATALOGUE[type].aggregate))] as [AggregateType, ...AggregateType[]];

/** The event types whose `aggregate_id` names an `aggregate` (`worker.*` are about their automation). */
export function eventTypesAbout(aggregate: AggregateType): EventType[] {
  return EVENT_TYPES.filter((type) => EVENT_CATALOGUE[type].aggregate === aggregate);
}

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, value);
}

/** The event types retention removes once older than the period, whatever their aggregate ({@link EventRetention} `age`). */
export const EVENT_TYPES_REMOVED_BY_AGE: readonly EventType[] = EVENT_TYPES.filter((type) => EVENT_CATALOGUE[type].retention === "age");

/** The family of an event type: `user` for `user.created`. */
export function eventFamily(eventType: string): string {
  return eventType.slice(0, eventType.indexOf("."));
}

/**
 * The event families only admins read (`user`, `webhook`, `api_key`). GET /events hides them by
 * family, so a type added to a family later is hidden with it; the catalogue's test checks that
 * no family mixes visibilities.
 */
export const ADMIN_ONLY_EVENT_FAMILIES: readonly string[] = [
  ...new Set(EVENT_TYPES.filter((type) => EVENT_CATALOGUE[type].visibility === "admins").map(eventFamily)),
];

/**
 * The event families `role` never reads (CONTRACT §6.1): none for an admin, the admin-only ones
 * for anyone else. The one rule both readers of events apply: GET /events in SQL, and the live
 * stream (GET /events/stream) per entry through {@link isEventVisibleTo}.
 */
export function hiddenEventFamilies(role: Role): readonly string[] {
  return role === "admin" ? [] : ADMIN_ONLY_EVENT_FAMILIES;
}

/** Whether `role` may read an event of `eventType` ({@link hiddenEventFamilies}). */
export function isEventVisibleTo(role: Role, eventType: string): boolean {
  return !hiddenEventFamilies(role).includes(eventFamily(eventType));
}
