import { describe, expect, it } from "vitest";
import { alertFiringMessage, alertResolvedMessage, formatAlertSeconds, formatAlertShare } from "./alerts";

describe("alert messages", () => {
  it("when seconds are said, then below 120 in seconds, from 120 in minutes, from 7,200 in hours", () => {
    expect([59, 119, 120, 600, 7199, 7200, 9000, 86_400].map(formatAlertSeconds)).toEqual([
      "59 s",
      "119 s",
      "2 min",
      "10 min",
      "119 min",
      "2 h",
      "2.5 h",
      "24 h",
    ]);
  });

  it("when shares are said, then as percent with at most one decimal", () => {
    expect([0.5, 0.125, 1, 0.0004].map(formatAlertShare)).toEqual(["50%", "12.5%", "100%", "0%"]);
  });

  it("when a queue_age alert fires while the worker is offline, then the message reads as the contract's example", () => {
    expect(
      alertFiringMessage({ kind: "queue_age", automationName: "Invoice export", value: 735, threshold: 600, dueJobs: 4, waitingReason: "worker_offline" }),
    ).toBe("Invoice export: the oldest queued job has waited 12 min (alert at 10 min); the worker is offline");
  });

  it("when each kind fires, then its sentence names the automation, the value and the threshold in readable units", () => {
    expect(alertFiringMessage({ kind: "queue_depth", automationName: "A", value: 1250, threshold: 1000, waitingReason: "concurrency_limit" })).toBe(
      "A: 1,250 jobs are queued (alert at 1,000); the automation runs as many jobs as it may at once",
    );
    expect(alertFiringMessage({ kind: "failure_rate", automationName: "A", value: 0.25, threshold: 0.2, finishedJobs: 40, windowSeconds: 900 })).toBe(
      "A: 25% of the 40 jobs finished in the last 15 min failed (alert at 20%)",
    );
    expect(
      alertFiringMessage({
        kind: "worker_offline",
        automationName: "A",
        value: 720,
        threshold: null,
        dueJobs: 3,
        workerRegistered: true,
        waitingReason: "worker_offline",
      }),
    ).toBe("A: 3 jobs wait and the worker is offline, last seen 12 min ago");
    expect(alertFiringMessage({ kind: "job_duration", automationName: "A", value: 7300, threshold: 3600 })).toBe(
      "A: a job has been running for 2 h (alert at 60 min)",
    );
  });

  it("when an alert resolves, then the sentence says why", () => {
    expect(alertResolvedMessage("queue_age", "A", "rule_deleted")).toBe("A: the queue age alert is resolved: its rule was deleted");
    expect(alertResolvedMessage("queue_depth", "A", "cleared", { kind: "queue_depth", automationName: "A", value: 2, threshold: 5 })).toBe(
      "A: the queue depth alert is resolved: 2 jobs queued",
    );
  });
});
