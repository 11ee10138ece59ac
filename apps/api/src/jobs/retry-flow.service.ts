/**
 * POST /jobs/{job_id}/retry of a job with dependencies, or with `with_dependents: true` (CONTRACT
 * §6.16): the retried job, and with `with_dependents` every job cancelled because of it
 * (`dependency_failed`, at any depth, not retried yet), created in one transaction by the path that
 * creates jobs with dependencies (@hub/db `jobs.insertFlow`), the graph remapped: a dependency that
 * is retried too becomes its retry, the others stay and count as they are.
 */
import { jobs, withTransaction, type Job, type Reach } from "@hub/db";
import { validate } from "@hub/shared";
import type { StoredTraceContext } from "@hub/tracing";
import { ConflictError, ForbiddenError, NotFoundError, RequestValidationError } from "../http/http-errors";
import { jobContextSchemaOf } from "../automations/context-schema";
import type { AppContext } from "../context";
import type { AuthenticatedUser } from "../http/auth";
import { enqueueForDispatch } from "../dispatch/signals";
import { inactiveAutomation } from "./create-jobs.service";
import type { RetryJobBody } from "./jobs.schemas";

export interface RetriedJobs {
  id: string;
  /** Every job created: the retry of the job first, then the retries of its dependents in their creation order. */
  ids: string[];
}

/** The refusal of a retry graph, in the retry's order: 409 (a dependency, an automation), then 422 for the body's context. */
function refusalOf(tree: readonly Job[], body: RetryJobBody, outcome: Extract<jobs.CreateFlowOutcome, { kind: "refused" }>): Error {
  if (outcome.dependencies.failed) return new ConflictError(`Dependency ${outcome.dependencies.failed.id} is ${outcome.dependencies.failed.status}`);
  if (outcome.dependencies.unknown.length > 0) return new ConflictError("A dependency of the job no longer exists");
  const automations = new Map(outcome.automations.map((automation) => [automation.id, automation]));
  if (tree.some((job) => !automations.get(job.automationId)?.isActive)) return inactiveAutomation();
  const first = automations.get(tree[0]!.automationId)!;
  if (body.context !== undefined) {
    const context = validate(jobContextSchemaOf(first.parameters), body.context, ["body", "context"]);
    if (!context.ok) return new RequestValidationError(context.issues);
  }
  return new ConflictError("A job to retry no longer fits its automation's parameters; retry it with a context");
}

/** The jobs to create for `tree`, the retried job first: each old job's fields, the graph remapped onto the new jobs. */
function flowOf(tree: readonly Job[], body: RetryJobBody): jobs.NewFlowJob[] {
  const indexOf = new Map(tree.map((old, index) => [old.id, index]));
  const withContext = body.context !== undefined;
  return tree.map((old, index): jobs.NewFlowJob => ({
    automationId: old.automationId,
    context: index === 0 && body.context !== undefined ? body.context : old.context,
    priority: old.priority,
    dependsOn: (old.dependsOn ?? []).map((id) => indexOf.get(id) ?? id),
    onDependencyFailure: old.onDependencyFailure ?? "cancel",
    retryOf: old.id,
    contextChanged: index === 0 && withContext,
    // CONTRACT §6.17: a job's own requires_approval is copied (retry.ts: so is any approval it had).
    requiresApproval: old.approvalStatus !== null,
  }));
}

/**
 * Reads the graph to retry and creates it in one transaction: with `with_dependents` the tree is
 * read under its locks (@hub/db `jobs.lockCancelledDependentsTree`), so of two retries of the same
 * job racing, the second waits for the first and retries only the job itself, as it would after it.
 */
export async function retryWithDependencies(
  ctx: AppContext,
  reach: Reach,
  user: AuthenticatedUser,
  job: Job,
  body: RetryJobBody,
  trace: StoredTraceContext | undefined,
): Promise<RetriedJobs> {
  const { tree, outcome } = await withTransaction(ctx.database.pool, async (tx) => {
    const tree = body.with_dependents ? await jobs.lockCancelledDependentsTree(tx, job.id) : [job];
    // Removed by retention since it was read.
    if (tree[0]?.id !== job.id) throw new NotFoundError("Job not found");
    if (user.role !== "admin" && tree.some((old) => old.createdBy !== user.id)) throw new ForbiddenError("Employees may retry only the jobs they created");
    return { tree, outcome: await jobs.insertFlow(tx, reach, user.id, flowOf(tree, body), undefined, trace) };
  });
  switch (outcome.kind) {
    case "created":
      ctx.metrics.jobs.created.inc(outcome.jobs.length);
      enqueueForDispatch(
        ctx,
        outcome.jobs.filter((created) => !outcome.held.has(created.id)),
      );
      return { id: outcome.jobs[0]!.id, ids: outcome.jobs.map((created) => created.id) };
    case "refused":
      throw refusalOf(tree, body, outcome);
    case "replayed":
      throw new Error("a retry sent no Idempotency-Key, yet its creation was replayed");
    default: {
      const exhaustive: never = outcome;
      throw new Error(`unknown creation outcome ${String(exhaustive)}`);
    }
  }
}
