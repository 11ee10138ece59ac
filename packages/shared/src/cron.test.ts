import { describe, expect, it } from "vitest";
import { CronTimetable, parseCronExpression, timeZoneProblem } from "./cron";

function timetable(text: string, timeZone: string): CronTimetable {
  const parsed = parseCronExpression(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return new CronTimetable(parsed.expression, timeZone);
}

/** The first `count` fire times after `from` (the injected clock), in UTC ISO form. */
function firesAfter(text: string, timeZone: string, from: string, count: number): string[] {
  const table = timetable(text, timeZone);
  const fires: string[] = [];
  let instant = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = table.nextAfter(instant);
    if (!next) break;
    fires.push(next.toISOString());
    instant = next;
  }
  return fires;
}

describe("fire times across the 2026 DST changes", () => {
  // Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST (00:59:59Z → 01:00Z); 2026-10-25 03:00 CEST → 02:00 CET (01:00Z).
  it("when a daily 02:30 in Europe/Berlin meets spring forward, then it fires at the moment the clocks change (03:00 CEST)", () => {
    expect(firesAfter("30 2 * * *", "Europe/Berlin", "2026-03-27T12:00:00Z", 3)).toEqual([
      "2026-03-28T01:30:00.000Z", // 02:30 CET
      "2026-03-29T01:00:00.000Z", // 02:30 does not exist: 03:00 CEST
      "2026-03-30T00:30:00.000Z", // 02:30 CEST
    ]);
  });

  it("when a daily 02:30 in Europe/Berlin meets fall back, then it fires once, at the first 02:30 (CEST)", () => {
    expect(firesAfter("30 2 * * *", "Europe/Berlin", "2026-10-23T12:00:00Z", 3)).toEqual([
      "2026-10-24T00:30:00.000Z",
      "2026-10-25T00:30:00.000Z", // 02:30 CEST; the second 02:30 (01:30Z, CET) is not a fire
      "2026-10-26T01:30:00.000Z",
    ]);
  });

  it("when the clock stands between the two 02:30s of the Berlin fall-back day, then the next fire is the following day", () => {
    expect(firesAfter("30 2 * * *", "Europe/Berlin", "2026-10-25T00:45:00Z", 1)).toEqual(["2026-10-26T01:30:00.000Z"]);
  });

  it("when an hourly schedule in Europe/Berlin crosses both changes, then it fires every 60 minutes of elapsed time", () => {
    expect(firesAfter("0 * * * *", "Europe/Berlin", "2026-03-28T23:30:00Z", 3)).toEqual([
      "2026-03-29T00:00:00.000Z", // 01:00 CET
      "2026-03-29T01:00:00.000Z", // 03:00 CEST
      "2026-03-29T02:00:00.000Z",
    ]);
    expect(firesAfter("0 * * * *", "Europe/Berlin", "2026-10-24T23:30:00Z", 3)).toEqual([
      "2026-10-25T00:00:00.000Z", // 02:00 CEST
      "2026-10-25T01:00:00.000Z", // 02:00 CET, the repeated hour
      "2026-10-25T02:00:00.000Z", // 03:00 CET
    ]);
  });

  // America/New_York: 2026-03-08 02:00 EST → 03:00 EDT (07:00Z); 2026-11-01 02:00 EDT → 01:00 EST (06:00Z).
  it("when a daily 02:30 in America/New_York meets spring forward, then it fires at 03:00 EDT", () => {
    expect(firesAfter("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 2)).toEqual(["2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"]);
  });

  it("when a daily 01:30 in America/New_York meets fall back, then it fires once, at the first 01:30 (EDT)", () => {
    expect(firesAfter("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2)).toEqual(["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]);
  });

  it("when minute is a step in the repeated New York hour, then both occurrences of the hour fire (elapsed time)", () => {
    expect(firesAfter("*/30 1 * * *", "America/New_York", "2026-11-01T04:50:00Z", 5)).toEqual([
      "2026-11-01T05:00:00.000Z", // 01:00 EDT
      "2026-11-01T05:30:00.000Z",
      "2026-11-01T06:00:00.000Z", // 01:00 EST
      "2026-11-01T06:30:00.000Z",
      "2026-11-02T06:00:00.000Z",
    ]);
  });

  it("when the zone is a legacy alias (US/Eastern), then it follows the same rules", () => {
    expect(firesAfter("30 2 * * *", "US/Eastern", "2026-03-07T12:00:00Z", 1)).toEqual(["2026-03-08T07:00:00.000Z"]);
  });
});

describe("the latest fire before an instant (the missed-fire rule)", () => {
  it("when fires were missed over a long gap, then the latest one before the deadline is found, not the first", () => {
    const table = timetable("*/10 * * * * *", "UTC");
    expect(table.latestBefore(new Date("2026-05-01T12:00:07.500Z"), new Date("2026-04-30T12:00:00Z"))?.toISOString()).toBe("2026-05-01T12:00:00.000Z");
  });

  it("when the deadline falls exactly on a fire, then that fire is not before it", () => {
    const table = timetable("*/10 * * * * *", "UTC");
    expect(table.latestBefore(new Date("2026-05-01T12:00:10.000Z"), new Date("2026-05-01T11:00:00Z"))?.toISOString()).toBe("2026-05-01T12:00:00.000Z");
  });

  it("when nothing fires between the bounds, then there is none", () => {
    const table = timetable("0 0 * * *", "UTC");
    expect(table.latestBefore(new Date("2026-05-01T12:00:00Z"), new Date("2026-05-01T01:00:00Z"))).toBeNull();
  });

  it("when the missed fires span the Berlin fall-back day, then the latest is the first 02:30, as going forward", () => {
    const table = timetable("30 2 * * *", "Europe/Berlin");
    expect(table.latestBefore(new Date("2026-10-25T01:40:00Z"), new Date("2026-10-20T00:00:00Z"))?.toISOString()).toBe("2026-10-25T00:30:00.000Z");
  });
});

describe("parseCronExpression", () => {
  it.each([
    ["0 6 * * 1-5", "0 6 * * 1-5"],
    ["*/15 9-17 * * MON-FRI", "*/15 9-17 * * 1-5"],
    ["0 0 1,15 jan,Jul *", "0 0 1,15 1,7 *"],
    ["30 2 * * 7", "30 2 * * 7"],
    ["0 0-23/2 * * *", "0 0-23/2 * * *"],
    ["  5   4 * * sun ", "5 4 * * 0"],
    ["@yearly", "0 0 1 1 *"],
    ["@annually", "0 0 1 1 *"],
    ["@monthly", "0 0 1 * *"],
    ["@weekly", "0 0 * * 0"],
    ["@daily", "0 0 * * *"],
    ["@midnight", "0 0 * * *"],
    ["@hourly", "0 * * * *"],
  ])("when given %j, then it is accepted as %j", (text, pattern) => {
    expect(parseCronExpression(text)).toEqual({ ok: true, expression: { pattern, hasSeconds: false } });
  });

  it("when given a leading seconds field, then it is accepted and flagged (the caller decides whether seconds are allowed)", () => {
    expect(parseCronExpression("*/5 * * * * *")).toEqual({ ok: true, expression: { pattern: "*/5 * * * * *", hasSeconds: true } });
  });

  it.each([
    ["", "five fields"],
    ["* * * *", "five fields"],
    ["* * * * * * *", "five fields"],
    ["60 * * * *", "minute: 60 is out of range 0–59"],
    ["* 24 * * *", "hour: 24 is out of range 0–23"],
    ["* * 0 * *", "day-of-month: 0 is out of range 1–31"],
    ["* * * 13 *", "month: 13 is out of range 1–12"],
    ["* * * * 8", "day-of-week: 8 is out of range 0–7"],
    ["* * * * FRIDAY", 'day-of-week: "FRIDAY" is not a number or a day name'],
    ["* * * JANUARY *", 'month: "JANUARY" is not a number or a month name'],
    ["MON * * * *", 'minute: "MON" is not a number'],
    ["*/0 * * * *", "minute: step 0 must be between 1 and 60"],
    ["* * * * */8", "day-of-week: step 8 must be between 1 and 7"],
    ["5/10 * * * *", "a step needs a range or *"],
    ["30-10 * * * *", "minute: range 30-10 goes backwards"],
    ["0 0 L * *", "day-of-month"],
    ["0 0 15W * *", "day-of-month"],
    ["0 0 * * 5#2", "day-of-week"],
    ["0 0 ? * *", "day-of-month"],
    ["0 0 * * FRIL", "day-of-week"],
    ["1,,2 * * * *", "minute"],
    ["@reboot", "unknown nickname"],
    ["@every 5m", "unknown nickname"],
    ["@DAILY", "unknown nickname"],
  ])("when given %j, then it is refused (%s)", (text, problem) => {
    const parsed = parseCronExpression(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.problem).toContain(problem);
  });
});

describe("timeZoneProblem", () => {
  it.each(["UTC", "Europe/Berlin", "US/Eastern", "America/New_York", "Etc/GMT+1"])("when given %j, then it is a time zone", (name) => {
    expect(timeZoneProblem(name)).toBeUndefined();
  });

  it.each([
    ["+01:00", "UTC offset"],
    ["-05:00", "UTC offset"],
    ["Mars/Olympus_Mons", "unknown time zone"],
    ["", "unknown time zone"],
  ])("when given %j, then it is refused (%s)", (name, problem) => {
    expect(timeZoneProblem(name)).toContain(problem);
  });
});
