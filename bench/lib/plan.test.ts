import { describe, expect, it } from "vitest";
import { loadBenchConfig } from "./config";
import { HOLD_KEY, planWorkload } from "./plan";

const configWith = (env: Record<string, string>) => loadBenchConfig([], env);

describe("planWorkload", () => {
  it("when limits are 2, 4, 8 and 16, then one cycle of 30 jobs gives each automation as many jobs as its limit", () => {
    const plan = planWorkload(configWith({ BENCH_A: "4", BENCH_LIMITS: "2,4,8,16" }), "t");

    const perAutomation = [0, 0, 0, 0];
    for (let i = 0; i < 30; i++) perAutomation[plan.automationOfJob(i)]!++;

    expect(perAutomation).toEqual([2, 4, 8, 16]);
    // Interleaved, not in blocks: every window of 10 jobs gives the busiest one about its share (16/30).
    for (let start = 0; start < 30; start++) {
      const busiest = Array.from({ length: 10 }, (_, i) => plan.automationOfJob(start + i)).filter((automation) => automation === 3);
      expect(busiest.length).toBeGreaterThanOrEqual(4);
      expect(busiest.length).toBeLessThanOrEqual(7);
    }
  });

  it("when limits are cycled over more automations, then each worker claims with its limit plus the extra loops", () => {
    const plan = planWorkload(configWith({ BENCH_A: "5", BENCH_LIMITS: "1,3", BENCH_SLOTS_OVER_LIMIT: "2" }), "t");

    expect(plan.automations.map((automation) => [automation.limit, automation.slots])).toEqual([
      [1, 3],
      [3, 5],
      [1, 3],
      [3, 5],
      [1, 3],
    ]);
    expect(plan.totalSlots).toBe(19);
  });

  it("when 4 slow jobs are asked for, then exactly 4 peak jobs, all in the first third, hold for 1.5 leases, and no paced job does", () => {
    const config = configWith({ BENCH_N: "900", BENCH_SLOW_JOBS: "4", BENCH_LEASE_SECONDS: "2" });
    const plan = planWorkload(config, "t");

    const slow = Array.from({ length: 900 }, (_, i) => i).filter((i) => HOLD_KEY in plan.contextOfJob(i, "peak"));
    const slowPaced = Array.from({ length: 900 }, (_, i) => i).filter((i) => HOLD_KEY in plan.contextOfJob(i, "paced"));

    expect(slow).toHaveLength(4);
    expect(Math.max(...slow)).toBeLessThan(300);
    expect(plan.contextOfJob(slow[0]!, "peak")[HOLD_KEY]).toBe("3000");
    expect(slowPaced).toHaveLength(0);
  });
});
