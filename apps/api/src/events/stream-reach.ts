/**
 * GET /events' reach rule (CONTRACT §6.22), for an open events stream: the feed fans the same
 * entries out to every client, so a scoped caller's entries are kept or dropped here, by the same
 * rule as `eventReached` in @hub/db applies in SQL — the event's aggregate is a reached automation
 * (workers' events are about their automation), one of its jobs (named in the payload) or one of its
 * schedules, an alert about one of them (named in the payload, as a job's), or a maintenance window it
 * reaches (§6.18). What an automation or schedule belongs to, and whether a window is reached, is read
 * from PostgreSQL once and kept while the reach lasts; an automation's `automation.updated` (its sector
 * may have moved) and a window's `.updated` (its scope may have changed) forget it.
 */
import { automations, maintenance, reachesEverything, schedules, type Executor, type Reach } from "@hub/db";
import { EVENT_CATALOGUE, isEventType } from "@hub/shared";
import type { StreamEntry } from "./live-event-feed";

export class StreamReach {
  private reach: Reach;
  /** Per automation id: whether the reach covers it. */
  private readonly automationReached = new Map<string, boolean>();
  /** Per schedule id: its automation (a schedule never moves). */
  private readonly scheduleAutomation = new Map<string, string | null>();
  /** Per maintenance window id: whether the reach covers it. */
  private readonly windowReached = new Map<string, boolean>();

  constructor(
    private readonly db: Executor,
    reach: Reach,
  ) {
    this.reach = reach;
  }

  /** Whether every entry is reached without a look-up (admins, unscoped employees). */
  get everything(): boolean {
    return reachesEverything(this.reach);
  }

  /** The caller's reach changed (its sectors): what was decided before no longer holds. */
  update(reach: Reach): void {
    this.reach = reach;
    this.automationReached.clear();
    this.windowReached.clear();
  }

  /** The entries of `entries` the reach covers, in their order. */
  async filter(entries: readonly StreamEntry[]): Promise<StreamEntry[]> {
    if (this.everything) return [...entries];
    const automationOf = new Map<StreamEntry, string | null>();
    const unknownSchedules = new Set<string>();
    const windowEntries = new Set<StreamEntry>();
    for (const entry of entries) {
      if (entry.eventType === "automation.updated") this.automationReached.delete(entry.aggregateId);
      if (entry.eventType === "maintenance_window.updated") this.windowReached.delete(entry.aggregateId);
      const aggregate = isEventType(entry.eventType) ? EVENT_CATALOGUE[entry.eventType].aggregate : null;
      if (aggregate === "maintenance_window") windowEntries.add(entry);
      else if (aggregate === "automation") automationOf.set(entry, entry.aggregateId);
      else if (aggregate === "job" || aggregate === "alert_rule") automationOf.set(entry, jobAutomationId(entry));
      else if (aggregate === "schedule") {
        if (!this.scheduleAutomation.has(entry.aggregateId)) unknownSchedules.add(entry.aggregateId);
        automationOf.set(entry, null);
      }
    }
    if (unknownSchedules.size > 0) {
      const found = await schedules.automationIdsOf(this.db, [...unknownSchedules]);
      for (const id of unknownSchedules) this.scheduleAutomation.set(id, found.get(id) ?? null);
    }
    for (const entry of entries) {
      if (automationOf.has(entry) && automationOf.get(entry) === null && this.scheduleAutomation.has(entry.aggregateId)) {
        automationOf.set(entry, this.scheduleAutomation.get(entry.aggregateId) ?? null);
      }
    }
    const unknownAutomations = [...new Set([...automationOf.values()].filter((id): id is string => id !== null && !this.automationReached.has(id)))];
    if (unknownAutomations.length > 0) {
      const reached = await automations.reachedAmong(this.db, this.reach, unknownAutomations);
      for (const id of unknownAutomations) this.automationReached.set(id, reached.has(id));
    }
    const unknownWindows = [...new Set([...windowEntries].map((entry) => entry.aggregateId).filter((id) => !this.windowReached.has(id)))];
    if (unknownWindows.length > 0) {
      const reached = await maintenance.reachedAmong(this.db, this.reach, unknownWindows);
      for (const id of unknownWindows) this.windowReached.set(id, reached.has(id));
    }
    return entries.filter((entry) => {
      if (windowEntries.has(entry)) return this.windowReached.get(entry.aggregateId) === true;
      const automationId = automationOf.get(entry);
      return automationId != null && this.automationReached.get(automationId) === true;
    });
  }
}

/** A job event's automation, from its payload (every job event names it). */
function jobAutomationId(entry: StreamEntry): string | null {
  try {
    const record = JSON.parse(entry.data) as { payload?: { automation_id?: unknown } };
    return typeof record.payload?.automation_id === "string" ? record.payload.automation_id : null;
  } catch {
    return null;
  }
}
