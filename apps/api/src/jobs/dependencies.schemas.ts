/**
 * The shapes of job dependencies (CONTRACT §6.16): `depends_on` and `on_dependency_failure` on
 * POST /jobs and batch items, the record's fields, the `dependencies` a claim hands out, and
 * POST /jobs/{job_id}/retry's `with_dependents`.
 */
import { z } from "zod";
import { DEPENDENCY_FAILURE_POLICIES, JOB_STATUSES, pydanticIssue, uuid } from "@hub/shared";

/** Most dependencies one job may have. */
export const DEPENDS_ON_MAX = 100;

/** Results the `dependencies` of one handed-out job carry at most, as compact JSON; past it, results are omitted. */
export const DEPENDENCY_RESULTS_MAX_BYTES = 1024 * 1024;

const dependencyRef = z
  .union([uuid(), z.int().min(0)])
  .describe("The id of an existing job, or (in POST /jobs/batch) the index of an earlier item of the same batch")
  .meta({ examples: ["5f0c8a52-3e0a-4c8e-9a55-2f3f1f1b7c1d", 0] });

/** The fields a job's creation takes (a POST /jobs body, a batch item). */
export const dependencyBodyFields = {
  depends_on: z
    .array(dependencyRef)
    .max(DEPENDS_ON_MAX)
    .default([])
    .describe(
      `Up to ${DEPENDS_ON_MAX} jobs this one waits for: it is not handed out before every one has finished (completed, failed for good or cancelled). ` +
        "Each once; a job id of any automation you may read, or in a batch the index of an earlier item",
    ),
  on_dependency_failure: z
    .enum(DEPENDENCY_FAILURE_POLICIES)
    .default("cancel")
    .describe(
      "cancel: a dependency that ends failed or cancelled cancels this job (reason dependency_failed); run: it runs once all have finished, whatever their outcome",
    ),
};

/** A shape problem of one item's `depends_on` (CONTRACT §6.16): its index `k` and the message. */
function referenceIssues(dependsOn: unknown, ownIndex: number): Array<{ k: number; msg: string }> {
  if (!Array.isArray(dependsOn)) return [];
  const issues: Array<{ k: number; msg: string }> = [];
  const seen = new Set<unknown>();
  dependsOn.forEach((ref: unknown, k) => {
    if (typeof ref === "number" && Number.isInteger(ref) && ref >= ownIndex) {
      issues.push({
        k,
        msg:
          ownIndex === 0 && ref >= 0
            ? "Value error, an index names an earlier item of the same batch; POST /jobs takes job ids"
            : "Value error, an index must name an earlier item of the batch",
      });
    } else if (seen.has(ref)) issues.push({ k, msg: "Value error, this dependency is given twice" });
    seen.add(ref);
  });
  return issues;
}

type IssueContext = { addIssue(issue: unknown): void };

function addReferenceIssues(ctx: IssueContext, dependsOn: unknown, ownIndex: number, path: Array<string | number>): void {
  for (const { k, msg } of referenceIssues(dependsOn, ownIndex)) {
    ctx.addIssue({ code: "custom", path: [...path, "depends_on", k], input: (dependsOn as unknown[])[k], ...pydanticIssue("value_error", msg) });
  }
}

/**
 * The reference checks, run whatever else is wrong with the body (every problem at once): POST /jobs
 * takes no index; a batch item's index names an earlier item; no dependency twice.
 */
export function checkSingleJobReferences(body: unknown, ctx: IssueContext): void {
  addReferenceIssues(ctx, (body as { depends_on?: unknown } | null)?.depends_on, 0, []);
}

export function checkBatchReferences(body: unknown, ctx: IssueContext): void {
  const items = (body as { jobs?: unknown } | null)?.jobs;
  if (!Array.isArray(items)) return;
  items.forEach((item: unknown, index) => addReferenceIssues(ctx, (item as { depends_on?: unknown } | null)?.depends_on, index, ["jobs", index]));
}

/** Refinements that run even when other fields failed (zod skips plain ones then). */
export const ALWAYS = { when: () => true };

/** The job record's fields (CONTRACT §6.16). */
export const dependencyRecordFields = {
  depends_on: z.array(z.uuid()).describe("The jobs this one waits for, in the order given (batch indexes resolved); [] for none"),
  on_dependency_failure: z.enum(DEPENDENCY_FAILURE_POLICIES).describe("What a failed or cancelled dependency does to this job"),
  pending_dependencies: z
    .int()
    .min(0)
    .describe("How many of depends_on have not finished yet; while above 0 the job is queued with waiting_reason dependencies and never handed out"),
};

/** One item of a handed-out job's `dependencies`. */
export const jobDependency = z
  .object({
    id: z.uuid(),
    automation_id: z.uuid(),
    status: z.enum(JOB_STATUSES),
    result: z.record(z.string(), z.unknown()).nullable(),
    error: z.string().nullable(),
    result_omitted: z
      .literal(true)
      .optional()
      .describe(
        `Present when the results of all dependencies pass ${DEPENDENCY_RESULTS_MAX_BYTES} bytes: read them whole with GET /jobs/{job_id}/dependencies`,
      ),
  })
  .meta({ id: "JobDependency" });
export type JobDependencyRecord = z.output<typeof jobDependency>;

export const jobDependencies = z
  .array(jobDependency)
  .describe(
    `The job's dependencies with their outcomes, in depends_on order ([] for none); results past ${DEPENDENCY_RESULTS_MAX_BYTES} bytes in all are omitted`,
  );

export const jobDependenciesResponse = z.object({ items: z.array(jobDependency) }).meta({ id: "JobDependencies" });

/** POST /jobs/{job_id}/retry's answer: `ids` with `with_dependents` only. */
export const retriedJobResponse = z
  .object({
    id: z.uuid().describe("The retry of this job"),
    ids: z
      .array(z.uuid())
      .optional()
      .describe("With with_dependents: every job created, the retry of this one first, then the retries of its cancelled dependents in their creation order"),
  })
  .meta({ id: "RetriedJob" });

/** POST /jobs/{job_id}/retry's `with_dependents`. */
export const withDependentsField = z
  .boolean()
  .optional()
  .describe(
    "true: also retry every job cancelled because this one failed or was cancelled (reason dependency_failed, at any depth, not retried yet), " +
      "in one transaction, each depending on the retries of the jobs it depended on. Default false",
  );
