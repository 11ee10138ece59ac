/**
 * checkLimitLog on staged logs: it passes a history that keeps §6.13, names each broken limit,
 * and judges fairness only where the log (with the commit witnesses) proves a key waited.
 */
import { describe, expect, it } from "vitest";
import { checkLimitLog, type AutomationLimits, type CommitWitnesses, type LimitLogEvent, type LimitLogEventType, type LimitLogJob } from "./limits-audit";

const T0 = Date.UTC(2026, 0, 1);
const PER_KEY: AutomationLimits = { maxConcurrentJobs: 3, concurrencyKey: "customer", maxConcurrentPerKey: 1, rateLimit: null };

/** A staged log: jobs of key values, events appended in position order at given milliseconds after T0. */
function stage() {
  const jobs: LimitLogJob[] = [];
  const events: LimitLogEvent[] = [];
  const witnesses = { createdBy: new Map<string, number>(), endedBy: new Map<string, number>() } satisfies CommitWitnesses;
  return {
    jobs,
    events,
    witnesses,
    /** A job of `key`, due and witnessed committed at `createdAtMs`. */
    job(key: string, createdAtMs = 0, priority = 0): string {
      const id = `job-${jobs.length + 1}`;
      jobs.push({ id, key: JSON.stringify(key), priority, availableAtMs: T0 + createdAtMs, seq: jobs.length + 1 });
      witnesses.createdBy.set(id, T0 + createdAtMs);
      return id;
    },
    /** `availableAtMs` (after T0): a job.requeued's new available_at. */
    event(jobId: string, type: LimitLogEventType, atMs: number, availableAtMs?: number): void {
      events.push({ jobId, type, position: events.length + 1, atMs: T0 + atMs, ...(availableAtMs === undefined ? {} : { availableAtMs: T0 + availableAtMs }) });
    },
    /** A worker's completion of `jobId` acknowledged at `ackedAtMs`. */
    acked(jobId: string, ackedAtMs: number): void {
      witnesses.endedBy.set(jobId, T0 + ackedAtMs);
    },
  };
}

describe("checkLimitLog: concurrency and rate", () => {
  it("when starts and ends stay within the limits, then it reports no violation and the run's figures", () => {
    const log = stage();
    const [a1, b1, a2] = [log.job("a"), log.job("b"), log.job("a")];
    log.event(a1!, "job.started", 10);
    log.event(b1!, "job.started", 10);
    log.event(a1!, "job.completed", 20);
    log.event(a2!, "job.started", 30);
    const report = checkLimitLog(PER_KEY, log.jobs, log.events, log.witnesses);
    expect(report).toEqual({
      violations: [],
      starts: 3,
      requeues: 0,
      peakRunning: 2,
      peakRunningPerKey: 1,
      busiestWindow: 0,
      fairnessChecks: 1,
      idleKeyChecks: 0,
    });
  });

  it("when a key value runs more than max_concurrent_per_key, or the automation more than max_concurrent_jobs, then each is named", () => {
    const log = stage();
    const ids = ["a", "a", "b", "c"].map((key) => log.job(key));
    for (const id of ids) log.event(id, "job.started", 10);
    const report = checkLimitLog(PER_KEY, log.jobs, log.events);
    expect(report.violations).toEqual([
      '2 jobs of key "a" running at position 2 (max_concurrent_per_key 1)',
      "4 jobs running at position 4 (max_concurrent_jobs 3)",
    ]);
  });

  it("when an end comes after a start in position order, then the job counts as running at that start whatever the times say", () => {
    const log = stage();
    const [a1, a2] = [log.job("a"), log.job("a")];
    log.event(a1!, "job.started", 10);
    log.event(a2!, "job.started", 30);
    log.event(a1!, "job.completed", 20);
    expect(checkLimitLog(PER_KEY, log.jobs, log.events).violations).toEqual(['2 jobs of key "a" running at position 2 (max_concurrent_per_key 1)']);
  });

  it("when count + 1 starts fall within less than period_seconds, then it reports them; count starts a full period apart pass", () => {
    const limits: AutomationLimits = {
      maxConcurrentJobs: 10,
      concurrencyKey: null,
      maxConcurrentPerKey: null,
      rateLimit: { count: 2, periodSeconds: 1, perKey: false },
    };
    const log = stage();
    const ids = [0, 1, 2, 3].map(() => log.job("x"));
    for (const [index, at] of [0, 500, 1000, 1499].entries()) {
      log.event(ids[index]!, "job.started", at);
      log.event(ids[index]!, "job.completed", at + 1);
    }
    const report = checkLimitLog(limits, log.jobs, log.events);
    expect(report.busiestWindow).toBe(3);
    expect(report.violations).toEqual([`3 starts within 999 ms from ${new Date(T0 + 500).toISOString()} (rate_limit 2 per 1 s)`]);
  });

  it("when the rate limit is per key, then windows are counted per key value", () => {
    const limits: AutomationLimits = {
      maxConcurrentJobs: 10,
      concurrencyKey: "customer",
      maxConcurrentPerKey: 5,
      rateLimit: { count: 1, periodSeconds: 1, perKey: true },
    };
    const log = stage();
    const [a1, b1, a2] = [log.job("a"), log.job("b"), log.job("a")];
    log.event(a1!, "job.started", 0);
    log.event(b1!, "job.started", 1);
    log.event(a2!, "job.started", 999);
    const report = checkLimitLog(limits, log.jobs, log.events);
    expect(report.busiestWindow).toBe(2);
    expect(report.violations).toEqual([`2 starts of key "a" within 999 ms from ${new Date(T0).toISOString()} (rate_limit 1 per 1 s)`]);
  });
});

describe("checkLimitLog: fairness", () => {
  it("when a key value that never started waits while a started one starts again, then the start is reported", () => {
    const log = stage();
    const [a1, a2] = [log.job("a"), log.job("a")];
    const b1 = log.job("b", 5);
    log.event(a1!, "job.started", 10);
    log.event(a1!, "job.completed", 20);
    log.acked(a1!, 21);
    log.event(a2!, "job.started", 30);
    log.event(b1, "job.started", 40);
    const report = checkLimitLog(PER_KEY, log.jobs, log.events, log.witnesses);
    expect(report.violations).toEqual([`start of job ${a2} (key "a", position 3): key "b" never started and waited (job ${b1})`]);
    expect(report.fairnessChecks).toBe(2);
  });

  it("when an idle key value's last start is older than the busy one's, then its waiting job must start first", () => {
    const limits = { ...PER_KEY, maxConcurrentPerKey: 2 };
    const log = stage();
    const [b1, a1, a2] = [log.job("b"), log.job("a"), log.job("a")];
    log.event(b1!, "job.started", 10);
    log.event(a1!, "job.started", 11);
    log.event(b1!, "job.completed", 20);
    log.acked(b1!, 21);
    const b2 = log.job("b", 25);
    log.event(a2!, "job.started", 30);
    log.event(b2, "job.started", 40);
    const report = checkLimitLog(limits, log.jobs, log.events, log.witnesses);
    expect(report.violations).toEqual([`start of job ${a2} (key "a", position 4): key "b" waited (job ${b2}) with an older last start (#1 before #2)`]);
    expect(report.idleKeyChecks).toBe(1);
  });

  it("when the log cannot prove the other key waited and was allowed, then it does not judge the start", () => {
    const variants: Array<[string, (log: ReturnType<typeof stage>, ids: { b1: string; b2: string }) => void]> = [
      ["as staged", () => {}],
      // b2's insert is not witnessed committed before the start of a2 began.
      ["b2 unwitnessed", (log, { b2 }) => log.witnesses.createdBy.set(b2, T0 + 30)],
      // b1's completion is not acknowledged before it: the claim may have counted b1 running.
      ["b1's end unacknowledged", (log, { b1 }) => log.witnesses.endedBy.delete(b1)],
      // b1 ended by a requeue and did not start again: its end is not proven either.
      [
        "b1 requeued",
        (log, { b1 }) => {
          log.witnesses.endedBy.delete(b1);
          log.events[2]!.type = "job.requeued";
        },
      ],
    ];
    const outcomes = variants.map(([name, spoil]) => {
      const log = stage();
      const [b1, a1, a2] = [log.job("b"), log.job("a"), log.job("a")];
      log.event(b1!, "job.started", 10);
      log.event(a1!, "job.started", 11);
      log.event(b1!, "job.completed", 20);
      log.acked(b1!, 21);
      log.event(a1!, "job.completed", 22);
      log.acked(a1!, 23);
      const b2 = log.job("b", 25);
      log.event(a2!, "job.started", 30);
      spoil(log, { b1: b1!, b2 });
      const report = checkLimitLog(PER_KEY, log.jobs, log.events, log.witnesses);
      return [name, report.violations.length, report.fairnessChecks];
    });
    // As staged, b (idle, oldest last start) is judged at a2's start and found passed over; spoiled, only the start of
    // b1 is judged (a waited, after b1 in claim order).
    expect(outcomes).toEqual([
      ["as staged", 1, 2],
      ["b2 unwitnessed", 0, 1],
      ["b1's end unacknowledged", 0, 1],
      ["b1 requeued", 0, 1],
    ]);
  });

  it("when the waiting key value is at its per-key limit or its window is full, then it may wait", () => {
    const atLimit = stage();
    const [b1, b2, a1] = [atLimit.job("b"), atLimit.job("b"), atLimit.job("a")];
    atLimit.event(b1!, "job.started", 10);
    atLimit.event(a1!, "job.started", 20);
    // Judged only at b1's start (a waited, after b1 in claim order); at a1's, b runs b1, its limit.
    expect(checkLimitLog(PER_KEY, atLimit.jobs, atLimit.events, atLimit.witnesses)).toMatchObject({ violations: [], fairnessChecks: 1 });
    expect(b2).toBeDefined();

    const windowFull = (rateLimit: AutomationLimits["rateLimit"]) => {
      const log = stage();
      const [c1, c2, c3] = [log.job("c"), log.job("c"), log.job("c")];
      const [d1, d2] = [log.job("d", 150), log.job("d", 150)];
      log.event(c1!, "job.started", 0);
      log.event(c2!, "job.started", 100);
      log.event(d1!, "job.started", 200);
      log.event(d2!, "job.started", 900);
      log.event(c3!, "job.started", 1001);
      return checkLimitLog({ ...PER_KEY, maxConcurrentJobs: 10, maxConcurrentPerKey: 5, rateLimit }, log.jobs, log.events, log.witnesses);
    };
    // At d2's start c waits with the older last start, but its window (2 starts a second) is full until 1000 ms.
    expect(windowFull({ count: 2, periodSeconds: 1, perKey: true })).toMatchObject({ violations: [], fairnessChecks: 0 });
    // Without the rate limit, c is judged there (and at d1's start, where d rightly came first, never started).
    expect(windowFull(null)).toMatchObject({
      violations: ['start of job job-5 (key "d", position 4): key "c" waited (job job-3) with an older last start (#2 before #3)'],
      fairnessChecks: 2,
    });
  });

  it("when a later job of the same key value starts while an earlier one provably waits, then the start is reported", () => {
    const log = stage();
    const [a1, a2] = [log.job("a"), log.job("a")];
    const a3 = log.job("a", 5);
    log.event(a2!, "job.started", 10);
    log.event(a2!, "job.completed", 20);
    log.event(a3, "job.started", 30);
    expect(checkLimitLog(PER_KEY, log.jobs, log.events, log.witnesses).violations).toEqual([
      `start of job ${a2} (key "a", position 1): job ${a1} of the same key waited and comes first in claim order (priority 0/0, available_at ${T0}/${T0} ms, seq 1/2)`,
      `start of job ${a3} (key "a", position 3): job ${a1} of the same key waited and comes first in claim order (priority 0/0, available_at ${T0}/${T0 + 5} ms, seq 1/3)`,
    ]);
  });

  it("when a requeue moves a job behind the others of its key, then its first start is judged where it was and its restart where it went", () => {
    const log = stage();
    const [a1, a2] = [log.job("a"), log.job("a", 1)];
    log.event(a1!, "job.started", 10);
    log.event(a1!, "job.requeued", 20, 20);
    log.event(a2!, "job.started", 30);
    log.event(a2!, "job.completed", 40);
    log.event(a1!, "job.started", 50);
    expect(checkLimitLog(PER_KEY, log.jobs, log.events, log.witnesses).violations).toEqual([]);

    const early = stage();
    const [b1, b2] = [early.job("b"), early.job("b", 1)];
    early.event(b1!, "job.started", 10);
    early.event(b1!, "job.requeued", 20, 20);
    // b1 restarts from its new place, behind b2, while b2 provably waits.
    early.event(b1!, "job.started", 30);
    expect(checkLimitLog(PER_KEY, early.jobs, early.events, early.witnesses).violations).toEqual([
      `start of job ${b1} (key "b", position 3): job ${b2} of the same key waited and comes first in claim order (priority 0/0, available_at ${T0 + 1}/${T0 + 20} ms, seq 2/1, a restart)`,
    ]);
  });

  it("when a waiting key value offers a higher priority, then a lower-priority start is reported", () => {
    const log = stage();
    const a1 = log.job("a", 0, 0);
    const b1 = log.job("b", 0, 5);
    log.event(a1, "job.started", 10);
    log.event(b1, "job.started", 11);
    expect(checkLimitLog(PER_KEY, log.jobs, log.events, log.witnesses).violations).toEqual([
      `start of job ${a1} (key "a", position 1): key "b" offered the higher priority 5 (job ${b1})`,
    ]);
  });
});
