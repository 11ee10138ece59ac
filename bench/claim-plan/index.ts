/**
 * `pnpm bench claim-plan`: the generic plan of the hub's real claim statement
 * on a migrated database whose `jobs` table holds 1,000, then 80,000, then 500,000 analysed rows
 * (finished jobs with their events, seeded with generate_series as the scale mode seeds them).
 * Fails (exit 1) when any plan reads `jobs` sequentially. Runs no hub: it plans, it never claims.
 */
import { createTestDatabase, seedHistory, seedHistoryAutomations } from "@hub/testing";
import pg from "pg";
import type { BenchConfig } from "../lib/config";
import { planClaimStatement, type ClaimPlan } from "../lib/claim-plan";
import { table, writeReport } from "../lib/report";

/**
 * The planner settings each size is planned under: the server's (the private server has SSD-like
 * `random_page_cost = 1.1`), and PostgreSQL's default `random_page_cost = 4`, which many production
 * servers keep and under which index probes look dearer: the fix must hold under both.
 */
const PLANNER_SETTINGS: Array<{ label: string; settings: Record<string, string> }> = [
  { label: "server settings", settings: {} },
  { label: "random_page_cost=4", settings: { random_page_cost: "4" } },
];

export interface ClaimPlanReport {
  mode: "claim-plan";
  startedAt: string;
  sizes: Array<{ rows: number; settings: string; plan: ClaimPlan }>;
  passed: boolean;
}

export async function runClaimPlanMode(config: BenchConfig): Promise<boolean> {
  const startedAt = new Date();
  const database = await createTestDatabase(config.databaseServerUrl);
  const pool = new pg.Pool({ connectionString: database.url, max: 2, application_name: "bench-claim-plan" });
  const sizes: ClaimPlanReport["sizes"] = [];
  try {
    const automationIds = await seedHistoryAutomations(pool, 8, "plan");
    let rows = 0;
    for (const wanted of config.claimPlanRows) {
      if (wanted > rows) {
        console.error(`bench: claim-plan: seeding jobs up to ${wanted} rows`);
        await seedHistory(pool, { automationIds, jobs: wanted - rows, selfGrowingEvents: 0, window: { newestDaysAgo: 0, oldestDaysAgo: 30 } });
        rows = wanted;
      }
      await pool.query("analyze jobs");
      const counted = await pool.query<{ rows: number }>("select count(*)::int as rows from jobs");
      for (const { label, settings } of PLANNER_SETTINGS) {
        sizes.push({ rows: counted.rows[0]!.rows, settings: label, plan: await planClaimStatement(database.url, settings) });
      }
    }
  } finally {
    await pool.end();
    if (!config.keepDatabases) await database.drop();
  }
  const report: ClaimPlanReport = { mode: "claim-plan", startedAt: startedAt.toISOString(), sizes, passed: sizes.every((size) => !size.plan.seqScanOfJobs) };
  console.log(
    [
      "The claim statement's generic plan (prepared, force_generic_plan, explained, not run) by rows in jobs (analysed)",
      table([
        ["rows in jobs", "planner settings", "scans of jobs in the plan", "total cost", "no seq scan of jobs"],
        ...sizes.map((size) => [
          `  ${size.rows}`,
          size.settings,
          size.plan.jobsScans.join(", ") || "none",
          size.plan.totalCost.toFixed(1),
          size.plan.seqScanOfJobs ? "✗" : "✓",
        ]),
      ]),
    ].join("\n"),
  );
  console.log(`\nresults: ${writeReport(config.resultsDir, "claim-plan", report, startedAt)}`);
  if (!report.passed) console.error("bench: claim-plan: the claim statement reads jobs sequentially at some size (issue 31)");
  return report.passed;
}
