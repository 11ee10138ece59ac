/**
 * CONTRACT §6.18's occurrences of a recurring window, from its cron in its zone (§6.9's rules):
 * across the 2026 DST changes in Europe/Berlin, and overlapping occurrences merged into one. Pure:
 * the clock is passed in.
 */
import { describe, expect, it } from "vitest";
import { timetableFor } from "@hub/shared/cron";
import { planOccurrences, type WindowTiming } from "./occurrences";

const recurring = (cron: string, timezone: string, durationSeconds: number): WindowTiming => ({
  startsAt: null,
  endsAt: null,
  cron,
  timezone,
  durationSeconds,
});

const spansOf = (timing: WindowTiming, now: string) =>
  planOccurrences(timing, new Date(now), timetableFor).spans.map((span) => [span.startsAt.toISOString(), span.endsAt.toISOString()]);

describe("a recurring maintenance window's occurrences", () => {
  it("when a nightly 02:30 Berlin window meets spring forward, then that night's occurrence starts when the clocks change and lasts its duration", () => {
    expect(spansOf(recurring("30 2 * * *", "Europe/Berlin", 3600), "2026-03-27T12:00:00Z").slice(0, 3)).toEqual([
      ["2026-03-28T01:30:00.000Z", "2026-03-28T02:30:00.000Z"], // 02:30 CET
      ["2026-03-29T01:00:00.000Z", "2026-03-29T02:00:00.000Z"], // 02:30 does not exist: 03:00 CEST
      ["2026-03-30T00:30:00.000Z", "2026-03-30T01:30:00.000Z"], // 02:30 CEST
    ]);
  });

  it("when a nightly 02:30 Berlin window meets fall back, then it holds once, from the first 02:30, for its duration of elapsed time", () => {
    expect(spansOf(recurring("30 2 * * *", "Europe/Berlin", 3600), "2026-10-23T12:00:00Z").slice(0, 3)).toEqual([
      ["2026-10-24T00:30:00.000Z", "2026-10-24T01:30:00.000Z"],
      ["2026-10-25T00:30:00.000Z", "2026-10-25T01:30:00.000Z"], // 02:30 CEST; the second 02:30 (CET) starts none
      ["2026-10-26T01:30:00.000Z", "2026-10-26T02:30:00.000Z"],
    ]);
  });

  it("when occurrences overlap (every hour, two hours long), then they make one, from the first start to the last end written", () => {
    const spans = spansOf(recurring("0 * * * *", "UTC", 7200), "2026-12-01T00:30:00Z");
    expect(spans).toEqual([["2026-11-30T23:00:00.000Z", "2026-12-09T02:00:00.000Z"]]);
  });

  it("when a window's fire was before now and it still lasts, then the occurrence in effect is written, and nothing beyond 8 days ahead", () => {
    const spans = spansOf(recurring("0 22 * * *", "UTC", 4 * 3600), "2026-12-01T23:00:00Z");
    expect(spans[0]).toEqual(["2026-12-01T22:00:00.000Z", "2026-12-02T02:00:00.000Z"]);
    expect(spans).toHaveLength(9);
    expect(spans.at(-1)![0]).toBe("2026-12-09T22:00:00.000Z");
  });

  it("when a one-off window has ended, then it has no occurrence; while it lasts, one", () => {
    const oneOff = { startsAt: new Date("2026-12-01T10:00:00Z"), endsAt: new Date("2026-12-01T12:00:00Z"), cron: null, timezone: null, durationSeconds: null };
    expect(spansOf(oneOff, "2026-12-01T11:00:00Z")).toEqual([["2026-12-01T10:00:00.000Z", "2026-12-01T12:00:00.000Z"]]);
    expect(spansOf(oneOff, "2026-12-01T12:00:00Z")).toEqual([]);
  });
});
