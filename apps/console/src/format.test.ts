import { describe, expect, it } from "vitest";
import type { Job } from "./api";
import { ago, due, duration, errorText, isoOfLocal, localOfIso, noRetryReason, rateLimitText, shortId, waitingExplanation, zonedDateTime } from "./format";

const NOW = Date.parse("2026-11-23T12:00:00.000Z");

function queuedJob(change: Partial<Job>): Job {
  return {
    id: "0b6f3c52-8c1e-4c3e-9d55-3f1b2a6f7e01",
    automation_id: "5b0c7a2e-1d3f-4e8a-b6c9-0a1b2c3d4e5f",
    status: "queued",
    context: {},
    result: null,
    error: null,
    attempts: 0,
    created_by: null,
    created_at: "2026-11-23T11:59:00.000Z",
    started_at: null,
    finished_at: null,
    lease_expires_at: null,
    waiting_reason: "next_in_line",
    queue_position: 1,
    resumes_at: null,
    available_at: "2026-11-23T11:59:00.000Z",
    retry_of: null,
    run_at: null,
    priority: 0,
    schedule_id: null,
    fire_time: null,
    progress: null,
    approval: null,
    depends_on: [],
    on_dependency_failure: "cancel",
    pending_dependencies: 0,
    ...change,
  };
}

const context = { maxConcurrentJobs: 4, running: 4, workerLastSeenAt: "2026-11-23T11:57:00.000Z", now: NOW };

describe("a job held by a maintenance window", () => {
  it("when a window holds its automation, then the explanation says when it resumes", () => {
    const text = waitingExplanation(queuedJob({ waiting_reason: "maintenance_window", resumes_at: "2026-11-23T14:00:00.000Z" }), {
      maxConcurrentJobs: 1,
      running: 0,
      workerLastSeenAt: null,
      now: NOW,
    });
    expect(text).toMatch(/^Waiting: a maintenance window holds this automation; it resumes at .+ \(in 2 h/);
  });
});

describe("why a job waits, in words", () => {
  it("when every slot runs a job and 12 due jobs are ahead, then it says so with the numbers", () => {
    expect(waitingExplanation(queuedJob({ waiting_reason: "concurrency_limit", queue_position: 13 }), context)).toBe(
      "Waiting: all 4 slots are busy; 12 jobs ahead.",
    );
  });

  it("when some slots are free but the jobs ahead take them, then it says how many are busy", () => {
    expect(waitingExplanation(queuedJob({ waiting_reason: "concurrency_limit", queue_position: 2 }), { ...context, running: 3 })).toBe(
      "Waiting: 3 of 4 slots are busy and the jobs ahead take the rest; 1 job ahead.",
    );
  });

  it("when the worker is offline, then it says when it was last seen", () => {
    expect(waitingExplanation(queuedJob({ waiting_reason: "worker_offline" }), context)).toBe("Waiting: the worker is offline (last seen 3 min ago).");
  });

  it("when the rate limit's window is full, then it says when the next start is allowed", () => {
    expect(waitingExplanation(queuedJob({ waiting_reason: "rate_limited", available_at: "2026-11-23T12:00:45.000Z" }), context)).toMatch(
      /^Waiting: the rate limit allows no more starts for now; the next start is allowed in 45 s \(.+\)\.$/,
    );
  });

  it("when its customer runs as many jobs as the per-key limit allows, then it names the customer, the limit and the jobs ahead of that customer", () => {
    const job = queuedJob({ waiting_reason: "key_concurrency_limit", queue_position: 3, context: { customer: "acme" } });
    expect(waitingExplanation(job, { ...context, concurrencyKey: "customer", maxConcurrentPerKey: 2 })).toBe(
      'Waiting: customer "acme" may run 2 jobs at a time, and its jobs running or ahead take them; 2 jobs of the same customer ahead.',
    );
  });

  it("when the job is not queued, then there is nothing to explain", () => {
    expect(waitingExplanation(queuedJob({ status: "running", waiting_reason: null, queue_position: null }), context)).toBeUndefined();
  });
});

describe("limits", () => {
  it("when a rate limit is shown, then it reads as starts per period, per key value when it is per key", () => {
    expect(rateLimitText({ count: 100, period_seconds: 60, per_key: false }, "customer")).toBe("100 starts per 1 min");
    expect(rateLimitText({ count: 1, period_seconds: 30, per_key: true }, "customer")).toBe("1 start per 30 s for each customer");
    expect(rateLimitText(null, null)).toBe("none");
  });
});

describe("times", () => {
  it("when durations are shown, then they use the largest sensible units", () => {
    expect([duration(12_000), duration(240_000), duration(3 * 3600_000 + 300_000), duration(50 * 3600_000)]).toEqual(["12 s", "4 min", "3 h 5 min", "2 d 2 h"]);
  });

  it("when a past time is a little ahead of the browser's clock, then it reads just now", () => {
    expect(ago("2026-11-23T12:00:01.000Z", NOW)).toBe("just now");
    expect(ago("2026-11-23T11:58:00.000Z", NOW)).toBe("2 min ago");
    expect(ago(null, NOW)).toBe("never");
  });

  it("when a due time has already passed, then it reads any moment now, never a time ago", () => {
    expect(due("2026-11-23T12:00:45.000Z", NOW)).toBe("in 45 s");
    expect(due("2026-11-23T11:59:45.000Z", NOW)).toBe("any moment now");
    const rateLimited = queuedJob({ waiting_reason: "rate_limited", available_at: "2026-11-23T11:59:45.000Z" });
    expect(waitingExplanation(rateLimited, context)).toMatch(
      /^Waiting: the rate limit allows no more starts for now; the next start is allowed any moment now \(/,
    );
  });
});

describe("shortId", () => {
  it("when ids of one batch share their time-ordered start, then their short forms still differ", () => {
    const batch = ["0193a1b2-c3d4-7e5f-8a6b-1c2d3e4f5a01", "0193a1b2-c3d4-7e5f-8a6b-1c2d3e4f5a02"];
    expect(batch.map(shortId)).toEqual(["0193…3e4f5a01", "0193…3e4f5a02"]);
  });

  it("when an id is already short, then it shows whole", () => {
    expect(shortId("abc")).toBe("abc");
  });
});

describe("times in a zone", () => {
  it("when a fire time is shown in its schedule's zone, then the zone's wall clock and name are shown", () => {
    expect(zonedDateTime("2026-11-23T05:00:00.000Z", "Europe/Berlin")).toMatch(/06:00.*(CET|GMT\+1)/);
  });

  it("when a datetime-local value goes to the API and back, then it is the same minute", () => {
    expect(localOfIso(isoOfLocal("2026-11-23T06:30")!)).toBe("2026-11-23T06:30");
    expect(isoOfLocal("")).toBeUndefined();
  });
});

describe("a failed job, in words", () => {
  it("when the error holds ::warn and ::error lines, then their words are shown without the prefix", () => {
    expect(errorText("::warn disk almost full\nplain line\n::error exit code 3")).toBe("disk almost full\nplain line\nexit code 3");
    expect(errorText("a ::warn inside a line stays")).toBe("a ::warn inside a line stays");
  });

  it("when it failed after one attempt of three, then it says the failure was final and how many attempts were left", () => {
    expect(noRetryReason({ status: "failed", attempts: 1 }, 3)).toMatch(/^Not tried again \(2 attempts left\): the worker reported this failure as final/);
  });

  it("when it used every attempt, then it says so in the singular for one", () => {
    expect(noRetryReason({ status: "failed", attempts: 1 }, 1)).toBe("Not tried again: it used all 1 attempt.");
    expect(noRetryReason({ status: "completed", attempts: 1 }, 1)).toBeUndefined();
  });
});
