/**
 * POST /jobs and POST /jobs/batch. A job without dependencies takes the one-statement path
 * (@hub/db `jobs.insert`, `jobs.insertBatch`), as it always has; a request where any item has
 * `depends_on` (or asks for `on_dependency_failure: "run"`) takes the dependency path (@hub/db
 * `jobs.insertFlow`, CONTRACT §6.16), one transaction for all of it.
 */
import { jobs, type Reach } from "@hub/db";
import { validate, type Loc, type ValidationIssue } from "@hub/shared";
import { activeTracing, isSampled, type StoredTraceContext } from "@hub/tracing";
import { ConflictError, RequestValidationError } from "../http/http-errors";
import { jobContextSchemaOf } from "../automations/context-schema";
import type { AppContext } from "../context";
import type { AuthenticatedUser } from "../http/auth";
import { enqueueForDispatch } from "../dispatch/signals";
import type { CreateJobBatchBody, CreateJobBody } from "./jobs.schemas";

export interface CreatedJob {
  id: string;
  /** True when an earlier request with the same Idempotency-Key created the job. */
  replayed: boolean;
}

export interface CreatedJobBatch {
  /** In input order. */
  ids: string[];
  /** True when an earlier request with the same Idempotency-Key created the batch. */
  replayed: boolean;
}

/** A validated POST /jobs body (or batch item) as the creating statement takes it. */
const newJobOf = (input: CreateJobBody): jobs.NewFlowJob => ({
  automationId: input.automation_id,
  context: input.context,
  runAt: input.run_at,
  priority: input.priority,
  dependsOn: input.depends_on,
  onDependencyFailure: input.on_dependency_failure,
  requiresApproval: input.requires_approval === true,
});

/** The created jobs that are not held (awaiting approval): the ones to offer now. */
function unheld(outcome: { jobs: jobs.JobRef[]; held: ReadonlySet<string> }): jobs.JobRef[] {
  return outcome.held.size === 0 ? outcome.jobs : outcome.jobs.filter((job) => !outcome.held.has(job.id));
}

/**
 * Created jobs to offer, each saying whether its trace is sampled when this API traces: a tracing dispatcher then
 * reads no trace context for the offer of jobs that are not (../dispatch; DispatchableJob.traceSampled).
 */
function withTraceSampled(refs: jobs.JobRef[], trace: StoredTraceContext | undefined): jobs.JobRef[] {
  if (!activeTracing()) return refs;
  const traceSampled = trace !== undefined && isSampled(trace);
  return refs.map((ref) => ({ ...ref, traceSampled }));
}

/** True when the items need the dependency path. */
const hasDependencies = (items: readonly CreateJobBody[]) => items.some((item) => item.depends_on.length > 0 || item.on_dependency_failure !== "cancel");

export const inactiveAutomation = () => new ConflictError("Automation is deactivated and accepts no new jobs");

/**
 * Why nothing was created, as the contract words it: for each item, 422 issues (unknown automation,
 * context against the parameters read, a dependency naming no job the caller may read) under
 * `locOf(i)`; with no issue, 409 for a dependency already failed or cancelled under "cancel"
 * (CONTRACT §6.16), then 409 when an automation is inactive. Every item is reported.
 */
function refusalOf(
  items: readonly CreateJobBody[],
  seen: readonly jobs.AutomationSeen[],
  locOf: (index: number) => Loc,
  dependencies: jobs.DependencyProblems = { unknown: [], failed: null },
): Error {
  const automations = new Map(seen.map((automation) => [automation.id, automation]));
  const issues: ValidationIssue[] = [];
  let anyInactive = false;
  items.forEach((item, index) => {
    const automation = automations.get(item.automation_id);
    if (!automation) issues.push({ loc: [...locOf(index), "automation_id"], msg: "Value error, automation not found", type: "value_error" });
    else {
      const context = validate(jobContextSchemaOf(automation.parameters), item.context, [...locOf(index), "context"]);
      if (!context.ok) issues.push(...context.issues);
      anyInactive ||= !automation.isActive;
    }
    for (const { k } of dependencies.unknown.filter((problem) => problem.item === index)) {
      issues.push({ loc: [...locOf(index), "depends_on", k], msg: "Value error, job not found", type: "value_error" });
    }
  });
  if (issues.length > 0) return new RequestValidationError(issues);
  if (dependencies.failed) return new ConflictError(`Dependency ${dependencies.failed.id} is ${dependencies.failed.status}`);
  if (anyInactive) return inactiveAutomation();
  // The statement's own checks and these disagree: a bug, never the caller's fault.
  return new Error("job creation refused although every item passed validation");
}

/** The dependency path for `items` (one job or a batch): ids in input order. */
async function createFlow(
  ctx: AppContext,
  reach: Reach,
  creator: AuthenticatedUser,
  items: readonly CreateJobBody[],
  idempotencyKey: string | undefined,
  locOf: (index: number) => Loc,
  trace: StoredTraceContext | undefined,
): Promise<CreatedJobBatch> {
  const outcome = await jobs.insertFlow(ctx.database.pool, reach, creator.id, items.map(newJobOf), idempotencyKey, trace);
  switch (outcome.kind) {
    case "created":
      ctx.metrics.jobs.created.inc(outcome.jobs.length);
      // A held job is offered once released (held-jobs.ts).
      enqueueForDispatch(ctx, withTraceSampled(unheld(outcome), trace));
      return { ids: outcome.jobs.map((job) => job.id), replayed: false };
    case "replayed":
      return { ids: outcome.jobIds, replayed: true };
    case "refused":
      throw refusalOf(items, outcome.automations, locOf, outcome.dependencies);
    default: {
      const exhaustive: never = outcome;
      throw new Error(`unknown creation outcome ${String(exhaustive)}`);
    }
  }
}

/**
 * POST /jobs: one statement checks the automation and the context, inserts the job with its
 * `job.created` event and binds the Idempotency-Key (@hub/db `jobs.insert`); once committed, the job
 * is handed to dispatch without waiting for Redis.
 */
export async function createJob(
  ctx: AppContext,
  reach: Reach,
  creator: AuthenticatedUser,
  input: CreateJobBody,
  idempotencyKey: string | undefined,
  trace: StoredTraceContext | undefined,
): Promise<CreatedJob> {
  if (hasDependencies([input])) {
    const created = await createFlow(ctx, reach, creator, [input], idempotencyKey, () => ["body"], trace);
    return { id: created.ids[0]!, replayed: created.replayed };
  }
  const outcome = await jobs.insert(ctx.database.pool, reach, creator.id, newJobOf(input), idempotencyKey, trace);
  switch (outcome.kind) {
    case "created":
      ctx.metrics.jobs.created.inc();
      // A job awaiting approval is held: offered once released (../approvals/release.ts).
      enqueueForDispatch(ctx, withTraceSampled(unheld(outcome), trace));
      return { id: outcome.jobs[0]!.id, replayed: false };
    case "replayed":
      return { id: outcome.jobIds[0]!, replayed: true };
    case "refused":
      throw refusalOf([input], outcome.automations, () => ["body"]);
    default: {
      const exhaustive: never = outcome;
      throw new Error(`unknown creation outcome ${String(exhaustive)}`);
    }
  }
}

/**
 * POST /jobs/batch: every job or none, in one statement (@hub/db `jobs.insertBatch`); ids in input
 * order. An invalid item → 422 listing every problem under `["body","jobs",i,…]`; an inactive
 * automation → 409.
 */
export async function createJobBatch(
  ctx: AppContext,
  reach: Reach,
  creator: AuthenticatedUser,
  input: CreateJobBatchBody,
  idempotencyKey: string | undefined,
  trace: StoredTraceContext | undefined,
): Promise<CreatedJobBatch> {
  const locOf = (index: number): Loc => ["body", "jobs", index];
  if (hasDependencies(input.jobs)) return createFlow(ctx, reach, creator, input.jobs, idempotencyKey, locOf, trace);
  const outcome = await jobs.insertBatch(ctx.database.pool, reach, creator.id, input.jobs.map(newJobOf), idempotencyKey, trace);
  switch (outcome.kind) {
    case "created":
      ctx.metrics.jobs.created.inc(outcome.jobs.length);
      enqueueForDispatch(ctx, withTraceSampled(unheld(outcome), trace));
      return { ids: outcome.jobs.map((job) => job.id), replayed: false };
    case "replayed":
      return { ids: outcome.jobIds, replayed: true };
    case "refused":
      throw refusalOf(input.jobs, outcome.automations, locOf);
    default: {
      const exhaustive: never = outcome;
      throw new Error(`unknown creation outcome ${String(exhaustive)}`);
    }
  }
}
