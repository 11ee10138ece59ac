/**
 * The `flows` mode's phases: batches submitted with `POST /jobs/batch` by a few creators while the
 * workers claim and complete (claim-batch, complete-batch), measured as the other modes measure a
 * phase — jobs/s from the first create to 95 % of the completions, CPU ms per job of every
 * process, and the claim statement's cost from pg_stat_statements — and the audit of dependency
 * order straight from PostgreSQL.
 */
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import type { AuditCheck } from "../lib/audit";
import { snapshotStatements, statementCalls } from "../lib/counters";
import { withCpu } from "../lib/drive";
import { claimCost, slowestStatements, type ClaimCost, type SlowStatement, type FlowBatchItem, type PlannedBatch } from "../lib/flow-plan";
import type { JsonClient } from "../lib/http";
import type { PhaseRecorder, PhaseSummary, PhaseTracker } from "../lib/load";
import { machineCpuMsPerJob } from "../lib/report";

/** Without a completion for this long, a phase counts as stalled (its jobs are then missing from the audit's completions). */
const STALL_MS = 30_000;

/** Statements listed per phase in the report: enough to show where a flow's extra time goes. */
const PHASE_SLOWEST = 8;

export type FlowPhaseName = "warm-up" | "plain" | "flows" | "flows again" | "plain again";

export interface FlowPhase extends PhaseSummary {
  name: FlowPhaseName;
  cpuMsPerJob: Record<string, number>;
  machineCpuMsPerJob: number;
  claim: ClaimCost;
  /** Top-level statements of the run's database per job over the phase (the driver's few counting statements included). */
  topLevelStatementsPerJob: number;
  /** Where PostgreSQL's time went over the phase: the slowest statements, nested ones (functions, triggers) included. */
  slowest: SlowStatement[];
}

/** Where a phase runs: the creators' client and token, the pids whose CPU counts, the database. */
export interface PhaseContext {
  creators: JsonClient;
  creatorToken: string;
  /** Batches in flight at once. */
  lanes: number;
  tracker: PhaseTracker;
  pids: Record<string, number | undefined>;
  database: string;
  databaseUrl: string;
}

/** A dependency between two created jobs: [dependent id, dependency id]. */
export type JobEdge = [string, string];

/** Submits one batch, records its jobs as created, and returns their ids (empty when it failed). */
export async function submitBatch(context: PhaseContext, recorder: PhaseRecorder, items: readonly FlowBatchItem[]): Promise<string[]> {
  const startedAt = performance.now();
  try {
    const { ids } = await context.creators.send<{ ids: string[] }>("POST", "/jobs/batch", {
      token: context.creatorToken,
      body: { jobs: items },
      expected: 201,
    });
    const answeredAt = performance.now();
    for (const id of ids) recorder.created(id, startedAt, answeredAt);
    return ids;
  } catch (error) {
    recorder.error("create batch", error);
    return [];
  }
}

/** Waits until every created job of the phase was completed, or nothing progressed for {@link STALL_MS}. */
export async function awaitCompletions(recorder: PhaseRecorder): Promise<void> {
  while (recorder.completions.size < recorder.createdAt.size) {
    if (performance.now() - recorder.lastProgressAt > STALL_MS) {
      recorder.error("phase", new Error(`stalled: ${recorder.completions.size} of ${recorder.createdAt.size} created jobs completed`));
      return;
    }
    await sleep(20);
  }
}

/** One phase: `batches` submitted by the context's lanes, the workers (already running) completing them. */
export async function runFlowPhase(
  context: PhaseContext,
  name: FlowPhaseName,
  batches: readonly PlannedBatch[],
): Promise<{ phase: FlowPhase; recorder: PhaseRecorder; edges: JobEdge[] }> {
  const expected = batches.reduce((sum, batch) => sum + batch.items.length, 0);
  console.error(`bench: flows: ${name}, ${batches.length} batches, ${expected} jobs`);
  const recorder = context.tracker.begin("peak", expected);
  const edges: JobEdge[] = [];
  const before = await snapshotStatements(context.databaseUrl);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < batches.length; i = next++) {
      const batch = batches[i]!;
      const ids = await submitBatch(context, recorder, batch.items);
      if (ids.length === batch.items.length) for (const [dependent, dependency] of batch.edges) edges.push([ids[dependent]!, ids[dependency]!]);
    }
  };
  const summary = await withCpu({ ...context.pids, bench: process.pid }, context.database, async () => {
    await Promise.all(Array.from({ length: context.lanes }, lane));
    await awaitCompletions(recorder);
    return recorder.summary();
  });
  const deltas = statementCalls(before, await snapshotStatements(context.databaseUrl));
  const topLevel = deltas.filter((statement) => statement.toplevel).reduce((sum, statement) => sum + statement.calls, 0);
  const phase: FlowPhase = {
    ...summary,
    name,
    machineCpuMsPerJob: machineCpuMsPerJob(summary),
    claim: claimCost(deltas),
    topLevelStatementsPerJob: topLevel / Math.max(1, summary.created),
    slowest: slowestStatements(deltas, PHASE_SLOWEST),
  };
  return { phase, recorder, edges };
}

/**
 * Whether the API takes `depends_on` (CONTRACT §6.16), without creating anything: a batch whose
 * first item names no automation (so nothing is created, whatever the build) and whose second
 * refers to a later index; an API with dependencies reports that index among the problems.
 */
export async function probeDependencies(creators: JsonClient, token: string, automationId: string): Promise<boolean> {
  const answer = await creators.exchange("POST", "/jobs/batch", {
    token,
    body: {
      jobs: [
        { automation_id: "not-a-uuid", context: {} },
        { automation_id: automationId, context: {}, depends_on: [5] },
      ],
    },
  });
  if (answer.status === 201)
    throw new Error("POST /jobs/batch created a batch with an invalid automation_id: the probe cannot tell whether it takes depends_on");
  if (answer.status !== 422) return false;
  const detail = (JSON.parse(answer.text) as { detail?: Array<{ loc?: unknown[] }> }).detail ?? [];
  return detail.some((problem) => JSON.stringify(problem.loc) === JSON.stringify(["body", "jobs", 1, "depends_on", 0]));
}

/** No dependent started before a dependency of it finished, read from `started_at` and `finished_at` (PostgreSQL's clock). */
export async function auditDependencyOrder(pool: pg.Pool, edges: readonly JobEdge[]): Promise<AuditCheck[]> {
  const { rows } = await pool.query<{ pairs: number; early: number; unfinished: number }>(
    `select count(*)::int as pairs,
            count(*) filter (where d.started_at < p.finished_at)::int as early,
            count(*) filter (where d.started_at is null or p.finished_at is null)::int as unfinished
       from unnest($1::uuid[], $2::uuid[]) as e(dependent, dependency)
       join jobs d on d.id = e.dependent
       join jobs p on p.id = e.dependency`,
    [edges.map((edge) => edge[0]), edges.map((edge) => edge[1])],
  );
  const { pairs, early, unfinished } = rows[0] ?? { pairs: 0, early: 0, unfinished: 0 };
  return [
    {
      name: "no dependent started before all its dependencies finished",
      ok: pairs === edges.length && early === 0 && unfinished === 0,
      detail: `${edges.length} dependencies, ${pairs} found in jobs; ${early} dependents started before the dependency finished, ${unfinished} without started_at or finished_at`,
    },
  ];
}
