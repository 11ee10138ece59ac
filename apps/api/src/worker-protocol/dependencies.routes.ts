/**
 * GET /jobs/{job_id}/dependencies (CONTRACT §6.16): a worker reads the dependencies of a job it
 * holds with every result in full, as a claim hands them out but without the cap that may leave
 * results out (`result_omitted`).
 */
import { jobs } from "@hub/db";
import { jobNotLeasedResponse } from "../http/common-schemas";
import { defineRoute } from "../http/route";
import { jobIdParams } from "../jobs/jobs.schemas";
import { jobDependenciesResponse } from "../jobs/dependencies.schemas";
import { toDependencyRecord } from "./claimed-job";
import { refused } from "./worker-protocol.service";

export const dependencyRoutes = [
  defineRoute({
    method: "get",
    path: "/jobs/{job_id}/dependencies",
    operationId: "getJobDependencies",
    summary: "Read a held job's dependencies in full",
    description:
      "The dependencies of a job running under this worker's lease, in depends_on order, each with its status, result and error, every result in full " +
      "(a claim leaves results out past 1 MiB in all, marking them result_omitted). [] for a job without dependencies.",
    tag: "worker protocol",
    auth: "worker",
    params: jobIdParams,
    responses: {
      200: { description: "The job's dependencies", schema: jobDependenciesResponse },
      404: { description: "Unknown job, or a job of another automation" },
      409: { description: "The job is not running under this worker's current lease; `status` is the job's status now", schema: jobNotLeasedResponse },
    },
    handler: async ({ params, caller, ctx }) => {
      const outcome = await jobs.dependenciesOfLeased(ctx.database.pool, params.job_id, caller.worker);
      if (!outcome.ok) throw await refused(ctx, "dependencies", params.job_id, outcome.refusal);
      return { status: 200, body: { items: outcome.items.map(toDependencyRecord) } };
    },
  }),
];
