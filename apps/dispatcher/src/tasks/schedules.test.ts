import { describe, expect, it } from "vitest";
import type { schedules } from "@hub/db";
import { CronTimetable, parseCronExpression } from "@hub/shared/cron";
import { planFires } from "./schedules";

function timetable(text: string, timeZone = "UTC"): CronTimetable {
  const parsed = parseCronExpression(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return new CronTimetable(parsed.expression, timeZone);
}

function dueSchedule(nextRunAt: string, settings: Partial<schedules.DueSchedule> = {}): schedules.DueSchedule {
  return {
    id: "00000000-0000-4000-8000-000000000001",
    automationId: "00000000-0000-4000-8000-000000000002",
    cron: "* * * * *",
    timezone: "UTC",
    overlap: "allow",
    nextRunAt: new Date(nextRunAt),
    hasActiveJob: false,
    contextFits: true,
    ...settings,
  };
}

/** The plan as ISO strings, for readable expectations. */
function plan(schedule: schedules.DueSchedule, table: CronTimetable, now: string) {
  const { fires, nextRunAt } = planFires(schedule, table, new Date(now));
  return { fires: fires.map((fire) => [fire.fireTime.toISOString(), fire.outcome]), nextRunAt: nextRunAt?.toISOString() ?? null };
}

describe("planFires", () => {
  it("when a fire is due now, then it makes one job and moves to the next fire", () => {
    expect(plan(dueSchedule("2026-05-01T10:00:00Z"), timetable("* * * * *"), "2026-05-01T10:00:00.300Z")).toEqual({
      fires: [["2026-05-01T10:00:00.000Z", "created"]],
      nextRunAt: "2026-05-01T10:01:00.000Z",
    });
  });

  it("when several fires came due within the last 5 s, then each is made (none is missed yet)", () => {
    expect(plan(dueSchedule("2026-05-01T10:00:00Z"), timetable("* * * * * *"), "2026-05-01T10:00:02.400Z")).toEqual({
      fires: [
        ["2026-05-01T10:00:00.000Z", "created"],
        ["2026-05-01T10:00:01.000Z", "created"],
        ["2026-05-01T10:00:02.000Z", "created"],
      ],
      nextRunAt: "2026-05-01T10:00:03.000Z",
    });
  });

  it("when fires were missed for an hour, then only the latest missed fire is made, with its own fire time", () => {
    expect(plan(dueSchedule("2026-05-01T11:00:00Z"), timetable("*/10 * * * * *"), "2026-05-01T12:00:07.500Z")).toEqual({
      fires: [["2026-05-01T12:00:00.000Z", "created"]],
      nextRunAt: "2026-05-01T12:00:10.000Z",
    });
  });

  it("when fires were missed and a later one is still within 5 s, then the latest missed one and the on-time one are made", () => {
    expect(plan(dueSchedule("2026-05-01T11:00:00Z"), timetable("*/10 * * * * *"), "2026-05-01T12:00:13.000Z")).toEqual({
      fires: [
        ["2026-05-01T12:00:00.000Z", "created"],
        ["2026-05-01T12:00:10.000Z", "created"],
      ],
      nextRunAt: "2026-05-01T12:00:20.000Z",
    });
  });

  it("when a fire is exactly 5 s late, then it is made; one more than 5 s late is missed, and the latest missed one is made instead", () => {
    const table = timetable("*/10 * * * * *");
    expect(plan(dueSchedule("2026-05-01T12:00:00Z"), table, "2026-05-01T12:00:05.000Z").fires).toEqual([["2026-05-01T12:00:00.000Z", "created"]]);
    expect(plan(dueSchedule("2026-05-01T11:59:50Z"), table, "2026-05-01T12:00:05.001Z").fires).toEqual([["2026-05-01T12:00:00.000Z", "created"]]);
  });

  it("when overlap is skip and a job of the schedule is still queued or running, then the fire is skipped for overlap", () => {
    expect(plan(dueSchedule("2026-05-01T10:00:00Z", { overlap: "skip", hasActiveJob: true }), timetable("* * * * *"), "2026-05-01T10:00:00.100Z")).toEqual({
      fires: [["2026-05-01T10:00:00.000Z", "overlap"]],
      nextRunAt: "2026-05-01T10:01:00.000Z",
    });
  });

  it("when overlap is skip and two fires are due, then the second overlaps the job the first made", () => {
    expect(plan(dueSchedule("2026-05-01T10:00:00Z", { overlap: "skip" }), timetable("* * * * * *"), "2026-05-01T10:00:01.100Z").fires).toEqual([
      ["2026-05-01T10:00:00.000Z", "created"],
      ["2026-05-01T10:00:01.000Z", "overlap"],
    ]);
  });

  it("when the context no longer fits the parameters, then the fire is skipped for invalid_context", () => {
    expect(
      plan(
        dueSchedule("2026-05-01T10:00:00Z", { contextFits: false, overlap: "skip", hasActiveJob: true }),
        timetable("* * * * *"),
        "2026-05-01T10:00:00.100Z",
      ),
    ).toEqual({
      fires: [["2026-05-01T10:00:00.000Z", "invalid_context"]],
      nextRunAt: "2026-05-01T10:01:00.000Z",
    });
  });

  it.each([
    // Europe/Berlin springs forward on 2026-03-29 and falls back on 2026-10-25.
    ["Europe/Berlin", "2026-03-27T12:00:00Z", ["2026-03-28T01:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"]],
    ["Europe/Berlin", "2026-10-23T12:00:00Z", ["2026-10-24T00:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]],
    // America/New_York: 2026-03-08 and 2026-11-01.
    ["America/New_York", "2026-03-07T12:00:00Z", ["2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z", "2026-03-10T06:30:00.000Z"]],
  ])("when a daily 02:30 in %s is fired day by day across a DST change (injected clock), then each day has one fire", (timeZone, start, expected) => {
    const table = timetable("30 2 * * *", timeZone);
    let nextRunAt = table.nextAfter(new Date(start))!;
    const fired: string[] = [];
    for (let day = 0; day < 3; day++) {
      // The dispatcher wakes a moment after each fire time.
      const now = new Date(nextRunAt.getTime() + 250);
      const step = planFires(dueSchedule(nextRunAt.toISOString(), { timezone: timeZone, cron: "30 2 * * *" }), table, now);
      fired.push(...step.fires.map((fire) => fire.fireTime.toISOString()));
      nextRunAt = step.nextRunAt!;
    }
    expect(fired).toEqual(expected);
  });

  it("when a daily 01:30 in America/New_York is due on the fall-back day, then it fires once, at the first 01:30", () => {
    const table = timetable("30 1 * * *", "America/New_York");
    const first = planFires(dueSchedule("2026-11-01T05:30:00Z"), table, new Date("2026-11-01T05:30:00.200Z"));
    expect(first.fires.map((fire) => fire.fireTime.toISOString())).toEqual(["2026-11-01T05:30:00.000Z"]);
    // An hour later the wall clock reads 01:30 again: no fire until the next day.
    expect(first.nextRunAt?.toISOString()).toBe("2026-11-02T06:30:00.000Z");
  });
});
