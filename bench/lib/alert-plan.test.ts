import { describe, expect, it } from "vitest";
import { ALERT_RULE_KINDS, idleDifference, planAlertRules } from "./alert-plan";

const automations = Array.from({ length: 20 }, (_, i) => `automation-${i}`);

describe("planAlertRules", () => {
  it("when 100 rules are planned over 20 automations with 3 firing, then there are 100 rules of every kind and exactly 3 fire", () => {
    const plan = planAlertRules(automations, 100, 3);

    expect(plan.rules).toHaveLength(100);
    expect(plan.rules.filter((rule) => rule.fires)).toHaveLength(3);
    expect(new Set(plan.rules.map((rule) => rule.body.kind))).toEqual(new Set(ALERT_RULE_KINDS));
    expect(plan.rules.some((rule) => rule.body.automation_id === null)).toBe(true);
    expect(plan.queuedOn).toEqual([0, 1, 2]);
  });

  it("when jobs wait on the firing automations, then no quiet rule covers them with a kind that would fire", () => {
    const plan = planAlertRules(automations, 100, 3);
    const queued = new Set(plan.queuedOn.map((index) => automations[index]));

    for (const { body } of plan.rules.filter((rule) => !rule.fires)) {
      const coversQueued = body.automation_id === null || queued.has(body.automation_id);
      if (coversQueued) expect(body.kind).not.toBe("worker_offline");
      if (body.kind === "queue_depth") expect(body.threshold).toBeGreaterThan(1000);
      if (body.kind === "queue_age" || body.kind === "job_duration") expect(body.threshold).toBeGreaterThanOrEqual(3600);
    }
  });

  it("when every rule's threshold is read, then each is in its kind's range (worker_offline takes none)", () => {
    for (const { body } of planAlertRules(automations, 100, 3).rules) {
      if (body.kind === "worker_offline") expect(body.threshold).toBeNull();
      else if (body.kind === "failure_rate") expect(body.threshold).toBeGreaterThan(0);
      else expect(Number.isInteger(body.threshold)).toBe(true);
    }
  });

  it("when more rules should fire than there are automations, then the plan is refused", () => {
    expect(() => planAlertRules(automations.slice(0, 2), 10, 3)).toThrow(/BENCH_ALERTS_FIRING/);
  });
});

describe("idleDifference", () => {
  it("when two windows without rules bracket the one with them, then the difference is to their mean", () => {
    expect(idleDifference(14, [10, 8])).toBe(5);
  });
});
