/**
 * The plan PostgreSQL uses for the hub's claim statement at this moment: the statement
 * exactly as @hub/db sends it, prepared and explained as a generic plan — as a named prepared
 * statement runs once its custom plans stop paying — without executing it. Says whether the plan
 * reads `jobs` sequentially, on the table as it is now. The function's own statements are planned
 * apart (inside PL/pgSQL) and are not in this plan.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { type Executor, jobs } from "@hub/db";

export interface ClaimPlan {
  /** Every scan of `jobs` in the plan, as "<node type> [index name]". */
  jobsScans: string[];
  /** True when the plan has a sequential scan of `jobs`. */
  seqScanOfJobs: boolean;
  /** The planner's estimate for the whole statement. */
  totalCost: number;
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Total Cost"?: number;
  Plans?: PlanNode[];
}

/** The scans of `relation` anywhere in the plan tree, as "<node type> [index name]". */
export function scansOf(plan: PlanNode, relation: string): string[] {
  const own = plan["Relation Name"] === relation ? [`${plan["Node Type"]}${plan["Index Name"] ? ` ${plan["Index Name"]}` : ""}`] : [];
  return [...own, ...(plan.Plans ?? []).flatMap((child) => scansOf(child, relation))];
}

/**
 * The claim statement exactly as the hub sends it: `jobs.claim` of @hub/db run against a recorder
 * that keeps the named statement and answers "none", so the text follows whatever the code holds.
 */
export async function claimStatementText(): Promise<string> {
  let text: string | undefined;
  const recorder = {
    query: async (statement: { text: string }) => {
      text = statement.text;
      return { rows: [{ outcome: "none", slots_left: 0, stale_ids: [] }] };
    },
  } as unknown as Executor;
  await jobs.claim(recorder, { automationId: randomUUID(), workerId: randomUUID(), maxJobs: 1, leaseSeconds: 30, candidateIds: [] });
  if (!text) throw new Error("claimJobs sent no statement");
  return text;
}

/**
 * The generic plan of the hub's claim statement on this database as it is now, as a named
 * prepared statement runs once its custom plans stop paying: prepared on a connection of its own,
 * explained (not run) with every parameter null under `plan_cache_mode = force_generic_plan` (and
 * `settings`, set for that session only), and deallocated.
 */
export async function planClaimStatement(databaseUrl: string, settings: Readonly<Record<string, string>> = {}): Promise<ClaimPlan> {
  const text = await claimStatementText();
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-plan" });
  await client.connect();
  try {
    const parameters = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
    await client.query("set plan_cache_mode = force_generic_plan");
    for (const [name, value] of Object.entries(settings)) await client.query("select set_config($1, $2, false)", [name, value]);
    await client.query(`prepare bench_claim_plan as ${text}`);
    const nulls = Array.from({ length: parameters }, () => "null").join(", ");
    const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(
      `explain (format json) execute bench_claim_plan${parameters > 0 ? `(${nulls})` : ""}`,
    );
    await client.query("deallocate bench_claim_plan");
    const plan = rows[0]!["QUERY PLAN"][0].Plan;
    const jobsScans = scansOf(plan, "jobs");
    return { jobsScans, seqScanOfJobs: jobsScans.some((scan) => scan.startsWith("Seq Scan")), totalCost: plan["Total Cost"] ?? Number.NaN };
  } finally {
    await client.end();
  }
}
