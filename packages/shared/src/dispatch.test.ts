import { describe, expect, it } from "vitest";
import { jobsOfDispatchPayload } from "./dispatch";

describe("jobsOfDispatchPayload", () => {
  it("when a message carries a batch, then every job comes back with its automation and creation time", () => {
    expect(jobsOfDispatchPayload("17", { jobs: [["a", "x", 1000], ["b", "y", 2000]] })).toEqual([
      { id: "a", automationId: "x", createdAt: new Date(1000) },
      { id: "b", automationId: "y", createdAt: new Date(2000) },
    ]);
  });

  it("when a message is in the one-job form of older API processes, then its BullMQ id is the job id", () => {
    expect(jobsOfDispatchPayload("job-1", { automationId: "x", createdAtMs: 5 })).toEqual([{ id: "job-1", automationId: "x", createdAt: new Date(5) }]);
  });
});
