/**
 * The release of many dependents (the target: "releasing 1,000 dependents of one job costs one
 * statement, not 1,000"): with the workers stopped, one job and BENCH_FLOW_RELEASE jobs depending on
 * it (by id, in batches of 500) are created; the job is claimed and completed with one
 * complete-batch, timed, between two snapshots of pg_stat_statements; the API then says whether
 * every dependent is released (`pending_dependencies` 0), and fresh workers drain them.
 */
import { performance } from "node:perf_hooks";
import type { HubBatchTarget } from "../hub/hub-target";
import type { AuditCheck } from "../lib/audit";
import { snapshotStatements, statementCalls } from "../lib/counters";
import { planDependentsOf, releaseStatements, type ReleaseStatements } from "../lib/flow-plan";
import type { PhaseRecorder, Workers } from "../lib/load";
import { awaitCompletions, submitBatch, type JobEdge, type PhaseContext } from "./phases";

export interface ReleaseFigures {
  dependents: number;
  /** The finishing request (complete-batch of the one job), answer − send, ms. */
  completeMs: number;
  statements: ReleaseStatements;
  /** Dependents the API shows with `pending_dependencies` 0 right after the finishing request (of the first 1,000). */
  released: number;
  /** How many dependents that check read (GET /jobs?depends_on= gives at most 1,000 in one page). */
  checked: number;
}

export async function measureRelease(
  context: PhaseContext,
  target: HubBatchTarget,
  automationIds: readonly string[],
  dependents: number,
  startWorkers: () => Workers,
): Promise<{ figures: ReleaseFigures; recorder: PhaseRecorder; edges: JobEdge[]; audit: AuditCheck[] }> {
  console.error(`bench: flows: one job with ${dependents} dependents`);
  const recorder = context.tracker.begin("peak", 1 + dependents);
  const [rootId] = await submitBatch(context, recorder, [{ automation_id: automationIds[0]!, context: { invoice_id: "inv-release-root" } }]);
  if (!rootId) throw new Error("the release measurement's job could not be created");
  const edges: JobEdge[] = [];
  for (const batch of planDependentsOf(rootId, dependents, automationIds)) {
    for (const id of await submitBatch(context, recorder, batch)) edges.push([id, rootId]);
  }
  // Only the root is due: every other job of the run is finished and its dependents are blocked.
  const abort = new AbortController();
  const claimed = await target.claimBatch(0, 1, 10, abort.signal);
  if (claimed.length !== 1 || claimed[0]!.id !== rootId)
    throw new Error(`the claim for the release measurement handed out ${JSON.stringify(claimed.map((job) => job.id))}, not its job ${rootId}`);
  recorder.claimed(rootId, performance.now());

  const before = await snapshotStatements(context.databaseUrl);
  const sentAt = performance.now();
  const [answer] = await target.completeBatch(0, [{ id: rootId, result: {} }]);
  const answeredAt = performance.now();
  const after = await snapshotStatements(context.databaseUrl);
  if (answer?.status === "completed") recorder.completed(rootId, answeredAt, sentAt);
  else recorder.error("complete", new Error(`the release's job: ${JSON.stringify(answer)}`));

  const listed = await context.creators.send<Array<{ id: string; pending_dependencies?: number }>>("GET", `/jobs?depends_on=${rootId}&limit=1000`, {
    token: context.creatorToken,
    expected: 200,
  });
  const released = listed.filter((job) => job.pending_dependencies === 0).length;
  const figures: ReleaseFigures = {
    dependents,
    completeMs: answeredAt - sentAt,
    statements: releaseStatements(statementCalls(before, after), dependents),
    released,
    checked: listed.length,
  };

  const workers = startWorkers();
  workers.start();
  await awaitCompletions(recorder);
  await workers.stop();
  const audit: AuditCheck[] = [
    {
      name: "completing the job released every dependent (GET /jobs?depends_on=, pending_dependencies 0)",
      ok: listed.length === Math.min(1000, dependents) && released === listed.length,
      detail: `${released} of ${listed.length} listed (${dependents} created)`,
    },
  ];
  return { figures, recorder, edges, audit };
}
