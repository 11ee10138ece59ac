import { describe, expect, it } from "vitest";
import { delayedMember, jobOfDelayedMember, readyKeyOfMember, readyMember, readyScore, type DispatchableJob } from "./claim-order";

const at = (iso: string) => new Date(iso);

function job(id: string, priority: number, availableAt: Date, seq: number): DispatchableJob {
  return { id, automationId: "automation", priority, availableAt, seq };
}

/** Sorts as a Redis sorted set does: by score, then by member bytes. */
function inSortedSetOrder(jobs: DispatchableJob[]): string[] {
  return jobs
    .map((entry) => ({ id: entry.id, score: readyScore(entry), member: readyMember(entry) }))
    .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0))
    .map((entry) => entry.id);
}

describe("ready-set order", () => {
  it("when jobs differ in priority, then the highest priority comes first, whatever their time or creation", () => {
    const jobs = [
      job("low", -100, at("2026-01-01T00:00:00.000Z"), 1),
      job("normal", 0, at("2026-01-01T00:00:00.000Z"), 2),
      job("urgent", 100, at("2030-01-01T00:00:00.000Z"), 3),
      job("high", 10, at("2029-01-01T00:00:00.000Z"), 4),
    ];
    expect(inSortedSetOrder(jobs)).toEqual(["urgent", "high", "normal", "low"]);
  });

  it("when jobs share a priority, then the earliest available_at comes first, to the millisecond", () => {
    const jobs = [
      job("second", 5, at("2026-05-01T10:00:00.001Z"), 1),
      job("first", 5, at("2026-05-01T10:00:00.000Z"), 2),
      job("third", 5, at("2026-05-01T10:00:00.002Z"), 3),
    ];
    expect(inSortedSetOrder(jobs)).toEqual(["first", "second", "third"]);
  });

  it("when priority and available_at are equal, then creation order decides, not the ids", () => {
    const sameTime = at("2026-05-01T10:00:00.000Z");
    const jobs = [
      job("ffffffff-0000-4000-8000-000000000000", 0, sameTime, 9),
      job("00000000-0000-4000-8000-000000000000", 0, sameTime, 10),
      job("88888888-0000-4000-8000-000000000000", 0, sameTime, 100),
      job("11111111-0000-4000-8000-000000000000", 0, sameTime, 8),
    ];
    expect(inSortedSetOrder(jobs)).toEqual([
      "11111111-0000-4000-8000-000000000000",
      "ffffffff-0000-4000-8000-000000000000",
      "00000000-0000-4000-8000-000000000000",
      "88888888-0000-4000-8000-000000000000",
    ]);
  });

  it("when scores reach the extremes, then they stay exact integers a double holds", () => {
    const extremes = [job("a", -100, at("2500-01-01T00:00:00.000Z"), 1), job("b", 100, new Date(0), 1)];
    for (const entry of extremes) {
      expect(Number.isSafeInteger(readyScore(entry))).toBe(true);
    }
    // One millisecond apart at the far end still orders.
    expect(readyScore(job("c", -100, at("2500-01-01T00:00:00.001Z"), 1))).toBe(readyScore(extremes[0]!) + 1);
  });

  it("when a member is read back, then it names the job and its creation order", () => {
    const member = readyMember({ id: "0b8f2a64-1f1e-4c55-9a0e-5d7c0c0b8e11", seq: 123_456 });
    expect(member).toBe("0000000000123456:0b8f2a64-1f1e-4c55-9a0e-5d7c0c0b8e11");
    expect(readyKeyOfMember(member)).toEqual({ id: "0b8f2a64-1f1e-4c55-9a0e-5d7c0c0b8e11", seq: 123_456 });
  });
});

describe("delayed-set members", () => {
  it("when a member is read back with its score, then the job comes back whole", () => {
    const original = job("j", 7, at("2026-05-01T10:00:00.123Z"), 55);
    expect(jobOfDelayedMember(delayedMember(original), original.availableAt.getTime())).toEqual(original);
  });

  it("when a member was written before priorities, then it reads as priority 0 due at its score", () => {
    expect(jobOfDelayedMember("automation|j|1000", 5000)).toEqual({ id: "j", automationId: "automation", seq: 0, priority: 0, availableAt: new Date(5000) });
  });
});
