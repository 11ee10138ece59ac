import { describe, expect, it } from "vitest";
import {
  ADMIN_ONLY_EVENT_FAMILIES,
  EVENT_CATALOGUE,
  EVENT_TYPES,
  EVENT_TYPES_REMOVED_BY_AGE,
  eventFamily,
  isEventType,
  isEventVisibleTo,
} from "./event-catalogue";

/** The event types of CONTRACT §4's table and §6's additions, as the contract spells them. */
const CONTRACT_EVENT_TYPES = [
  "sector.created",
  "automation.created",
  "automation.updated",
  "automation.deactivated",
  "automation.development_mode_entered",
  "automation.development_mode_exited",
  "worker.registered",
  "worker.unregistered",
  "worker.api_key_rotated",
  "worker.status_changed",
  "job.created",
  "job.started",
  "job.completed",
  "job.failed",
  "job.requeued",
  "job.cancelled",
  "user.created",
  "user.deactivated",
  "user.password_changed",
  "user.password_reset",
  "user.role_changed",
  "user.reactivated",
  "user.sectors_changed",
  "job.rescheduled",
  "job.approval_requested",
  "job.approved",
  "job.rejected",
  "schedule.created",
  "schedule.updated",
  "schedule.deleted",
  "schedule.skipped",
  "maintenance_window.created",
  "maintenance_window.updated",
  "maintenance_window.deleted",
  "maintenance_window.started",
  "maintenance_window.ended",
  "webhook.created",
  "webhook.deleted",
  "webhook.disabled",
  "api_key.created",
  "api_key.revoked",
  "alert.firing",
  "alert.resolved",
];

const JOB = "6f1c2f4e-8a4b-4c1e-9a52-3c1f0d7b2a10";
const AUTOMATION = "0b7a4a3e-9f57-4d4e-8d51-3f1e8c2a9d11";

describe("the event catalogue", () => {
  it("when compared with the contract's table, then it has exactly the contract's event types", () => {
    expect([...EVENT_TYPES].sort()).toEqual([...CONTRACT_EVENT_TYPES].sort());
    expect(CONTRACT_EVENT_TYPES.every(isEventType)).toBe(true);
    expect(isEventType("job.exploded")).toBe(false);
    expect(isEventType("toString")).toBe(false);
  });

  it("when the visibility of a family is read, then every type of it agrees, and user, webhook and api_key are the admin-only ones", () => {
    const visibilityOfFamily = new Map<string, Set<string>>();
    for (const type of EVENT_TYPES) {
      const family = eventFamily(type);
      visibilityOfFamily.set(family, (visibilityOfFamily.get(family) ?? new Set()).add(EVENT_CATALOGUE[type].visibility));
    }

    expect([...visibilityOfFamily].filter(([, visibilities]) => visibilities.size > 1)).toEqual([]);
    expect([...ADMIN_ONLY_EVENT_FAMILIES].sort()).toEqual(["api_key", "user", "webhook"]);
  });

  it("when an employee's visibility is asked, then the admin-only families are hidden from it and nothing from an admin", () => {
    expect(isEventVisibleTo("employee", "job.created")).toBe(true);
    expect(isEventVisibleTo("employee", "user.created")).toBe(false);
    expect(isEventVisibleTo("employee", "api_key.revoked")).toBe(false);
    expect(isEventVisibleTo("employee", "webhook.disabled")).toBe(false);
    expect(EVENT_TYPES.every((type) => isEventVisibleTo("admin", type))).toBe(true);
  });

  it("when retention is read, then job events go with their job, those the hub repeats by itself (worker status, skipped fires, alert transitions, maintenance occurrences) go by age, and the rest are kept", () => {
    const withJob = EVENT_TYPES.filter((type) => EVENT_CATALOGUE[type].retention === "with_job");

    expect(withJob).toEqual(EVENT_TYPES.filter((type) => EVENT_CATALOGUE[type].aggregate === "job"));
    // A recurring maintenance window starts and ends again and again (§6.18).
    expect([...EVENT_TYPES_REMOVED_BY_AGE].sort()).toEqual([
      "alert.firing",
      "alert.resolved",
      "maintenance_window.ended",
      "maintenance_window.started",
      "schedule.skipped",
      "worker.status_changed",
    ]);
  });

  it("when a job event carries the contract's payload, then its schema accepts it; without a required field, it refuses it", () => {
    const requeued = { automation_id: AUTOMATION, reason: "lease_expired", attempts: 2, available_at: "2026-11-22T10:00:00.123Z" };

    expect(EVENT_CATALOGUE["job.requeued"].payload.safeParse(requeued).success).toBe(true);
    expect(EVENT_CATALOGUE["job.requeued"].payload.safeParse({ ...requeued, reason: "bored" }).success).toBe(false);
    expect(EVENT_CATALOGUE["job.requeued"].payload.safeParse({ ...requeued, available_at: undefined }).success).toBe(false);
    expect(EVENT_CATALOGUE["job.created"].payload.safeParse({ automation_id: AUTOMATION, context: {}, retry_of: JOB }).success).toBe(true);
    expect(EVENT_CATALOGUE["job.created"].payload.safeParse({ automation_id: AUTOMATION }).success).toBe(false);
    expect(EVENT_CATALOGUE["schedule.skipped"].payload.safeParse({ fire_time: "2026-11-22T10:00:00.000Z", reason: "overlap" }).success).toBe(true);
  });

  it("when the aggregate of each family is read, then it names what the family is about", () => {
    const aggregates = Object.fromEntries(EVENT_TYPES.map((type) => [eventFamily(type), EVENT_CATALOGUE[type].aggregate]));

    // worker.* events are about the automation the worker serves (CONTRACT §4).
    expect(aggregates).toEqual({
      sector: "sector",
      automation: "automation",
      worker: "automation",
      job: "job",
      user: "user",
      schedule: "schedule",
      maintenance_window: "maintenance_window",
      webhook: "webhook",
      api_key: "api_key",
      alert: "alert_rule",
    });
  });
});
