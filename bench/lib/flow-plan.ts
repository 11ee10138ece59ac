/**
 * The `flows` mode's workload and arithmetic (CONTRACT §6.16): a fan-out as one `POST /jobs/batch`
 * (a root, `width` jobs depending on it by index, a fan-in depending on all of them), the plain
 * batch of as many jobs it is compared with, the dependency edges the audit checks, and what the
 * claim statement and the release of many dependents cost, from pg_stat_statements deltas. Pure,
 * so it is unit-tested; bench/flows runs it.
 */
import type { StatementCounters } from "./counters";

/** One item of `POST /jobs/batch`; `depends_on` holds integer indexes of earlier items or job ids. */
export interface FlowBatchItem {
  automation_id: string;
  context: Record<string, unknown>;
  depends_on?: Array<number | string>;
}

/** A batch to submit and the dependencies of its items, by index within it. */
export interface PlannedBatch {
  items: FlowBatchItem[];
  /** [dependent, dependency] indexes into `items` (empty for a plain batch). */
  edges: Array<[number, number]>;
}

/** Jobs in one fan-out: its root, `width` jobs, its fan-in. */
export const jobsPerFanout = (width: number) => width + 2;

/** The most items `depends_on` takes (CONTRACT §6.16), and so the widest fan-in. */
export const MAX_DEPENDENCIES = 100;

/**
 * Fan-out number `n`: item 0 the root, items 1…width depending on it (`[0]`), the last item the
 * fan-in depending on every one of them. Its jobs are spread over the automations, starting at a
 * different one for each fan-out. `plain` gives the same items without any dependency.
 */
export function planFanout(n: number, width: number, automationIds: readonly string[], plain = false): PlannedBatch {
  if (width < 1 || width > MAX_DEPENDENCIES) throw new Error(`a fan-out is 1–${MAX_DEPENDENCIES} jobs wide (got ${width})`);
  const size = jobsPerFanout(width);
  const items: FlowBatchItem[] = [];
  const edges: Array<[number, number]> = [];
  for (let k = 0; k < size; k++) {
    const item: FlowBatchItem = {
      automation_id: automationIds[(n + k) % automationIds.length]!,
      context: { invoice_id: `inv-${plain ? "plain" : "flow"}-${n}-${k}` },
    };
    if (!plain && k > 0) {
      const dependencies = k === size - 1 ? Array.from({ length: width }, (_, i) => i + 1) : [0];
      item.depends_on = dependencies;
      for (const dependency of dependencies) edges.push([k, dependency]);
    }
    items.push(item);
  }
  return { items, edges };
}

/** The largest `POST /jobs/batch` (CONTRACT §6.6). */
export const MAX_BATCH = 500;

/** `count` jobs that depend on the job `rootId`, in batches of at most {@link MAX_BATCH}, spread over the automations. */
export function planDependentsOf(rootId: string, count: number, automationIds: readonly string[]): FlowBatchItem[][] {
  const batches: FlowBatchItem[][] = [];
  for (let start = 0; start < count; start += MAX_BATCH) {
    batches.push(
      Array.from({ length: Math.min(MAX_BATCH, count - start) }, (_, k) => ({
        automation_id: automationIds[(start + k) % automationIds.length]!,
        context: { invoice_id: `inv-dependent-${start + k}` },
        depends_on: [rootId],
      })),
    );
  }
  return batches;
}

/** The claim statement's cost over a phase: top-level calls of the claim function. */
export interface ClaimCost {
  calls: number;
  /** Jobs handed out (the statement's rows). */
  jobs: number;
  totalMs: number;
  msPerCall: number;
  msPerJob: number;
}

/** A top-level statement that calls the claim function, whatever its version (`hub_claim_jobs`, `_v2`, `_v3`, …). */
const CLAIM_CALL = /hub_claim_jobs(?:_v\d+)?\s*\(/;

export function claimCost(deltas: readonly StatementCounters[]): ClaimCost {
  const claims = deltas.filter((statement) => statement.toplevel && CLAIM_CALL.test(statement.query));
  const calls = claims.reduce((sum, statement) => sum + statement.calls, 0);
  const jobs = claims.reduce((sum, statement) => sum + statement.rows, 0);
  const totalMs = claims.reduce((sum, statement) => sum + statement.totalMs, 0);
  return { calls, jobs, totalMs, msPerCall: calls > 0 ? totalMs / calls : Number.NaN, msPerJob: jobs > 0 ? totalMs / jobs : Number.NaN };
}

/** One statement's share of an interval, for a report: its text on one line, shortened. */
export interface SlowStatement {
  query: string;
  calls: number;
  rows: number;
  ms: number;
  toplevel: boolean;
}

/** The `limit` statements of `deltas` that took the most execution time (nested ones overlap their caller's). */
export function slowestStatements(deltas: readonly StatementCounters[], limit: number): SlowStatement[] {
  return [...deltas]
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, limit)
    .map((statement) => ({
      query: statement.query.replace(/\s+/g, " ").slice(0, 140),
      calls: statement.calls,
      rows: statement.rows,
      ms: statement.totalMs,
      toplevel: statement.toplevel,
    }));
}

/** What the statements run while one job's completion released its dependents say of the release. */
export interface ReleaseStatements {
  /** Every statement execution of the window, nested ones (inside functions and triggers) included. */
  calls: number;
  topLevelCalls: number;
  /** The most calls any one statement made in the window: far below the dependents when the release is one statement. */
  mostCalls: { query: string; calls: number } | null;
  /** The statements that took the most time in the window. */
  slowest: SlowStatement[];
  /**
   * Nothing ran once per dependent: no statement was executed for as many as half of them, and the
   * whole window ran fewer statements than that. (A release inside a data-modifying CTE reports the
   * CTE's own rows, not the rows it updated, so the rows cannot say it.)
   */
  oneStatement: boolean;
}

export function releaseStatements(deltas: readonly StatementCounters[], dependents: number): ReleaseStatements {
  const shown = (query: string) => query.replace(/\s+/g, " ").slice(0, 140);
  const calls = deltas.reduce((sum, statement) => sum + statement.calls, 0);
  const topLevelCalls = deltas.filter((statement) => statement.toplevel).reduce((sum, statement) => sum + statement.calls, 0);
  const busiest = [...deltas].sort((a, b) => b.calls - a.calls)[0];
  const slowest = slowestStatements(deltas, 6);
  return {
    calls,
    topLevelCalls,
    mostCalls: busiest ? { query: shown(busiest.query), calls: busiest.calls } : null,
    slowest,
    oneStatement: calls < dependents / 2,
  };
}

/** The targets: flow jobs/s at least 0.8× plain, and the claim's cost per job within 5 % of plain's. */
export const FLOW_THROUGHPUT_TARGET = 0.8;
export const CLAIM_COST_TOLERANCE = 0.05;

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The mean of `values` (the flows phases) ÷ the mean of `baselines` (the plain phases around them). */
export function ratioOfMeans(values: readonly number[], baselines: readonly number[]): number {
  return mean(values) / mean(baselines);
}
