/**
 * The dispatchers' maintenance passes against the real database (CONTRACT §6.18): what a pass writes
 * for an occurrence that began and ended while no dispatcher ran (every dispatcher stopped through a
 * whole window), and that a second pass writes nothing again.
 */
import { describe, expect, it } from "vitest";
import { maintenance } from "../../index";
import { catalogueCheckedEvents, stageAutomation, useTestDatabase } from "../../test-kit";

const hub = useTestDatabase();

describe("maintenance passes", () => {
  it("when a whole occurrence passed with no dispatcher running, then the next pass writes .started, then .ended, once each, with the occurrence's own times", async () => {
    const subject = await stageAutomation(hub(), { maxConcurrentJobs: 1 });
    const startsAt = new Date(Date.now() - 3 * 3_600_000);
    const endsAt = new Date(Date.now() - 3_600_000);
    // As the API writes a one-off window and its occurrence; here, both were due while nothing stamped them.
    const window = await maintenance.insert(hub().pool, {
      automationId: subject.automationId,
      sectorId: null,
      startsAt: new Date(Date.now() + 60_000),
      endsAt: new Date(Date.now() + 120_000),
      cron: null,
      timezone: null,
      durationSeconds: null,
      drain: false,
      description: "",
    });
    await hub().pool.query("insert into maintenance_occurrences (window_id, starts_at, ends_at, scope_id, drain) values ($1, $2, $3, $4, false)", [
      window.id,
      startsAt,
      endsAt,
      subject.automationId,
    ]);

    expect(await maintenance.writeDueStarts(hub().pool, 100)).toEqual([{ windowId: window.id, scopeId: subject.automationId }]);
    expect(await maintenance.writeDueEnds(hub().pool, 100)).toEqual([{ windowId: window.id, scopeId: subject.automationId }]);
    expect(await maintenance.writeDueStarts(hub().pool, 100)).toEqual([]);
    expect(await maintenance.writeDueEnds(hub().pool, 100)).toEqual([]);

    const edges = (await catalogueCheckedEvents(hub(), window.id)).filter((event) => event.eventType.startsWith("maintenance_window."));
    const times = { starts_at: startsAt.toISOString(), ends_at: endsAt.toISOString() };
    expect(edges.map((event) => [event.eventType, event.payload])).toEqual([
      ["maintenance_window.started", times],
      ["maintenance_window.ended", times],
    ]);
    // Written late, when a dispatcher ran again: the event's own time says when, its payload when the window was.
    expect(edges[0]!.createdAt.getTime()).toBeGreaterThan(endsAt.getTime());
  });
});
