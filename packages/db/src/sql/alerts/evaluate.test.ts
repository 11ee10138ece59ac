import { describe, expect, it } from "vitest";
import { planTransitions, type AlertStateNow } from "./evaluate";
import type { AlertMeasurement } from "./observe";

const RULE = "11111111-1111-4111-8111-111111111111";
const A = "22222222-2222-4222-8222-222222222222";
const t0 = new Date("2026-12-02T06:00:00.000Z");
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

const measured = (holds: boolean, forSeconds = 0, value = 5): AlertMeasurement => ({
  ruleId: RULE,
  automationId: A,
  automationName: "Payroll",
  kind: "queue_depth",
  threshold: 3,
  forSeconds,
  windowSeconds: 900,
  holds,
  value,
  dueJobs: value,
  finishedJobs: 0,
  workerRegistered: false,
});

const state = (pendingSince: Date, firingSince: Date | null, overrides: Partial<AlertStateNow> = {}): AlertStateNow => ({
  ruleId: RULE,
  automationId: A,
  pendingSince,
  firingSince,
  value: 5,
  message: "Payroll: 5 jobs are queued (alert at 3)",
  kind: "queue_depth",
  threshold: 3,
  automationName: "Payroll",
  automationActive: true,
  ...overrides,
});

describe("an evaluation round's transitions", () => {
  it("when a condition is found with for_seconds 0, then it fires at once, with one firing", () => {
    const plan = planTransitions(t0, [], [measured(true)], new Map());
    expect(plan.fired).toHaveLength(1);
    expect(plan.upserts).toEqual([expect.objectContaining({ pendingSince: t0, firingSince: t0 })]);
  });

  it("when for_seconds is 10, then it is pending until 10 s after the first round that found it, and fires then, once", () => {
    const first = planTransitions(t0, [], [measured(true, 10)], new Map());
    expect(first.fired).toEqual([]);
    const pending = state(t0, null);
    expect(planTransitions(at(9), [pending], [measured(true, 10)], new Map()).fired).toEqual([]);
    const firing = planTransitions(at(10), [pending], [measured(true, 10)], new Map());
    expect(firing.fired).toHaveLength(1);
    expect(planTransitions(at(15), [state(t0, at(10))], [measured(true, 10)], new Map()).fired).toEqual([]);
  });

  it("when a pending condition clears, then its state goes without any event", () => {
    const plan = planTransitions(at(5), [state(t0, null)], [measured(false, 10, 1)], new Map());
    expect(plan).toMatchObject({ fired: [], resolved: [], deletes: [{ ruleId: RULE, automationId: A }] });
  });

  it("when a firing condition clears, then it resolves once, history keeping what fired", () => {
    const plan = planTransitions(at(30), [state(t0, at(1))], [measured(false, 0, 1)], new Map());
    expect(plan.resolved).toEqual([
      expect.objectContaining({
        since: at(1),
        firedMessage: "Payroll: 5 jobs are queued (alert at 3)",
        value: 1,
        message: "Payroll: the queue depth alert is resolved: 1 job queued",
      }),
    ]);
  });

  it("when a firing alert's automation is no longer measured (deactivated), then it resolves saying so", () => {
    const plan = planTransitions(at(30), [state(t0, at(1), { automationActive: false })], [], new Map());
    expect(plan.resolved.map((r) => r.message)).toEqual(["Payroll: the queue depth alert is resolved: the automation was deactivated"]);
  });
});
