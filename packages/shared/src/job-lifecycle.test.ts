import { describe, expect, it } from "vitest";
import {
  CANCELLABLE_JOB_STATUSES,
  canTransition,
  FINISHED_JOB_STATUSES,
  JOB_STATUSES,
  JOB_TRANSITIONS,
  RETRYABLE_JOB_STATUSES,
  type JobStatus,
} from "./job-lifecycle";

describe("the job lifecycle", () => {
  it("when the finished statuses are read, then they are completed, failed and cancelled, and none of them moves again", () => {
    expect(FINISHED_JOB_STATUSES).toEqual(["completed", "failed", "cancelled"]);
    for (const status of FINISHED_JOB_STATUSES) expect(JOB_STATUSES.filter((to) => canTransition(status, to))).toEqual([]);
  });

  it("when a job starts queued, then every status is reachable", () => {
    const reached = new Set<JobStatus>(["queued"]);
    for (let grew = true; grew;) {
      grew = false;
      for (const from of [...reached]) {
        for (const to of JOB_TRANSITIONS[from]) {
          if (reached.has(to)) continue;
          reached.add(to);
          grew = true;
        }
      }
    }

    expect([...reached].sort()).toEqual([...JOB_STATUSES].sort());
  });

  it.each([
    ["queued", "running", true],
    ["running", "queued", true],
    ["running", "cancelled", true],
    ["queued", "completed", false],
    ["completed", "queued", false],
    ["failed", "running", false],
  ] as const)("when a job is %s, then moving to %s is allowed: %s", (from, to, allowed) => {
    expect(canTransition(from, to)).toBe(allowed);
  });

  it("when the statuses actions select are read, then cancel takes what can become cancelled and retry what finished without a result", () => {
    expect([...CANCELLABLE_JOB_STATUSES].sort()).toEqual(JOB_STATUSES.filter((status) => canTransition(status, "cancelled")).sort());
    expect(RETRYABLE_JOB_STATUSES.every((status) => FINISHED_JOB_STATUSES.includes(status))).toBe(true);
    expect(RETRYABLE_JOB_STATUSES).not.toContain("completed");
  });
});
