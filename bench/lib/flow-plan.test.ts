import { describe, expect, it } from "vitest";
import { loadBenchConfig } from "./config";
import type { StatementCounters } from "./counters";
import { claimCost, jobsPerFanout, planDependentsOf, planFanout, ratioOfMeans, releaseStatements } from "./flow-plan";

const automations = ["a", "b", "c"];
const statement = (query: string, calls: number, rows: number, totalMs: number, toplevel = true): StatementCounters => ({
  query,
  toplevel,
  calls,
  rows,
  totalMs,
  blocksHit: 0,
  blocksRead: 0,
});

describe("planFanout", () => {
  it("when a fan-out of 100 is planned, then it is a root, 100 jobs depending on it by index and a fan-in depending on all 100", () => {
    const { items, edges } = planFanout(0, 100, automations);

    expect(items).toHaveLength(jobsPerFanout(100));
    expect(items[0]!.depends_on).toBeUndefined();
    for (let k = 1; k <= 100; k++) expect(items[k]!.depends_on).toEqual([0]);
    expect(items[101]!.depends_on).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(edges).toHaveLength(200);
    // Every index reference points to an earlier item, as the contract requires.
    for (const [dependent, dependency] of edges) expect(dependency).toBeLessThan(dependent);
  });

  it("when the plain batch is planned, then it has as many jobs over the same automations and no dependency", () => {
    const flow = planFanout(4, 10, automations);
    const plain = planFanout(4, 10, automations, true);

    expect(plain.items).toHaveLength(flow.items.length);
    expect(plain.items.map((item) => item.automation_id)).toEqual(flow.items.map((item) => item.automation_id));
    expect(plain.items.every((item) => item.depends_on === undefined)).toBe(true);
    expect(plain.edges).toEqual([]);
  });

  it("when a fan-out is wider than depends_on allows, then it is refused", () => {
    expect(() => planFanout(0, 101, automations)).toThrow(/1–100/);
  });
});

describe("planDependentsOf", () => {
  it("when 1,000 dependents of one job are planned, then they go in two batches of 500, each depending on that job's id", () => {
    const batches = planDependentsOf("root-id", 1000, automations);

    expect(batches.map((batch) => batch.length)).toEqual([500, 500]);
    expect(batches.flat().every((item) => item.depends_on?.length === 1 && item.depends_on[0] === "root-id")).toBe(true);
  });
});

describe("claimCost", () => {
  it("when the claim function is called by top-level statements of two versions, then both count and nested statements do not", () => {
    const cost = claimCost([
      statement("select * from hub_claim_jobs_v3($1, $2)", 10, 40, 20),
      statement("select * from hub_claim_jobs_v4 ($1, $2, $3)", 10, 60, 30),
      statement("select * from hub_claim_jobs_v3($1, $2)", 10, 40, 99, false),
      statement("update jobs set status = $1", 5, 5, 1),
    ]);

    expect(cost).toEqual({ calls: 20, jobs: 100, totalMs: 50, msPerCall: 2.5, msPerJob: 0.5 });
  });
});

describe("releaseStatements", () => {
  it("when a complete ran a dozen statements, one of them releasing 1,000 dependents inside a trigger, then the release is one statement", () => {
    const release = releaseStatements(
      [
        statement("with hit as (select … for update), changed as (update jobs …) select array_agg(…)", 1, 1, 12, false),
        statement("select * from hub_complete_batch($1)", 1, 1, 14),
        statement("select pg_stat_statements …", 1, 300, 1),
        statement("insert into events …", 9, 9, 1, false),
      ],
      1000,
    );

    expect(release.oneStatement).toBe(true);
    expect(release).toMatchObject({ calls: 12, topLevelCalls: 2 });
    expect(release.slowest[0]!.ms).toBe(14);
  });

  it("when a statement ran once per dependent, then the release is not one statement", () => {
    const release = releaseStatements(
      [statement("update jobs set pending_dependencies = pending_dependencies - 1 where id = $1", 1000, 1000, 40, false)],
      1000,
    );

    expect(release.oneStatement).toBe(false);
    expect(release.mostCalls?.calls).toBe(1000);
  });
});

describe("ratioOfMeans", () => {
  it("when flows ran at 70 and 90 jobs/s between plain phases of 90 and 110, then the ratio is 0.8", () => {
    expect(ratioOfMeans([70, 90], [90, 110])).toBeCloseTo(0.8);
  });
});

describe("the flows and alerts modes' settings", () => {
  it("when `flows` or `alerts` is named, then that mode runs with the issue's full sizes, and smoke sizes with --smoke", () => {
    expect(loadBenchConfig(["flows"], {})).toMatchObject({ mode: "flows", flows: { fanouts: 100, width: 100, releaseDependents: 1000 } });
    expect(loadBenchConfig(["alerts", "--smoke"], {})).toMatchObject({ mode: "alerts", smoke: true, alerts: { rules: 20, automations: 5 } });
    expect(loadBenchConfig(["alerts"], {}).alerts).toMatchObject({ rules: 100, automations: 20, firing: 3, seconds: 60 });
  });

  it("when BENCH_FLOW_WIDTH is above 100, then the settings are refused (depends_on takes at most 100 items)", () => {
    expect(() => loadBenchConfig(["flows"], { BENCH_FLOW_WIDTH: "101" })).toThrow(/at most 100/);
  });
});
