/**
 * The plan PostgreSQL uses for the hub's claim statement at this moment (issue 31): the statement
 * exactly as the hub ran it (its text from pg_stat_statements), prepared and explained as a generic
 * plan — as a named prepared statement runs once its custom plans stop paying — without executing
 * it. Says whether the plan reads `jobs` sequentially, on the table as it is now.
 */
import pg from "pg";

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
 * The generic plan of the claim statement the hub ran on this database, or null when
 * pg_stat_statements is not loaded or has not seen one. The statement is prepared on a connection
 * of its own, explained (not run) with every parameter null under `plan_cache_mode =
 * force_generic_plan`, and deallocated.
 */
export async function planClaimStatement(databaseUrl: string): Promise<ClaimPlan | null> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-plan" });
  await client.connect();
  try {
    let text: string | undefined;
    try {
      const { rows } = await client.query<{ query: string }>(
        `select query from pg_stat_statements
          where toplevel and dbid = (select oid from pg_database where datname = current_database()) and query like '%hub\\_claim\\_jobs(%'
          order by calls desc limit 1`,
      );
      text = rows[0]?.query;
    } catch {
      return null;
    }
    if (!text) return null;
    const parameters = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
    await client.query("set plan_cache_mode = force_generic_plan");
    await client.query(`prepare bench_claim_plan as ${text}`);
    const nulls = Array.from({ length: parameters }, () => "null").join(", ");
    const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`explain (format json) execute bench_claim_plan${parameters > 0 ? `(${nulls})` : ""}`);
    await client.query("deallocate bench_claim_plan");
    const plan = rows[0]!["QUERY PLAN"][0].Plan;
    const jobsScans = scansOf(plan, "jobs");
    return { jobsScans, seqScanOfJobs: jobsScans.some((scan) => scan.startsWith("Seq Scan")), totalCost: plan["Total Cost"] ?? Number.NaN };
  } finally {
    await client.end();
  }
}
