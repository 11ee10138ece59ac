import { describe, expect, it } from "vitest";
import { jobsOfDispatchPayload } from "./dispatch";

describe("jobsOfDispatchPayload", () => {
  it("when a message carries a batch, then every job comes back with its automation, due time, priority and creation order", () => {
    expect(
      jobsOfDispatchPayload("17", {
        jobs: [
          ["a", "x", 1000, 5, 41],
          ["b", "y", 2000, -3, 42],
        ],
      }),
    ).toEqual([
      { id: "a", automationId: "x", availableAt: new Date(1000), priority: 5, seq: 41 },
      { id: "b", automationId: "y", availableAt: new Date(2000), priority: -3, seq: 42 },
    ]);
  });

  it("when a tracing API says whether each job's trace is sampled, then the jobs say so; a job it does not say it of, not at all", () => {
    expect(
      jobsOfDispatchPayload("17", {
        jobs: [
          ["a", "x", 1000, 0, 41, 1],
          ["b", "x", 1000, 0, 42, 0],
          ["c", "x", 1000, 0, 43],
        ],
      }),
    ).toEqual([
      { id: "a", automationId: "x", availableAt: new Date(1000), priority: 0, seq: 41, traceSampled: true },
      { id: "b", automationId: "x", availableAt: new Date(1000), priority: 0, seq: 42, traceSampled: false },
      { id: "c", automationId: "x", availableAt: new Date(1000), priority: 0, seq: 43 },
    ]);
  });

  it("when a batch comes from an older API process without priorities, then its jobs are due at their creation with priority 0", () => {
    expect(jobsOfDispatchPayload("17", { jobs: [["a", "x", 1000]] })).toEqual([
      { id: "a", automationId: "x", availableAt: new Date(1000), priority: 0, seq: 0 },
    ]);
  });

  it("when a message is in the one-job form of older API processes, then its BullMQ id is the job id", () => {
    expect(jobsOfDispatchPayload("job-1", { automationId: "x", createdAtMs: 5 })).toEqual([
      { id: "job-1", automationId: "x", availableAt: new Date(5), priority: 0, seq: 0 },
    ]);
  });
});
