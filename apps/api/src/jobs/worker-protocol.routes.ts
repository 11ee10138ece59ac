import type { Request, Response } from "express";
import { defineRoute } from "../http/route";
import { claimNextJob, claimNextJobs } from "./claim";
import { claimJobBody, completeJobBody, failJobBody, heartbeatJobBody, heartbeatResponse, jobIdParams, jobRecord } from "./jobs.schemas";
import { toJobRecord } from "./jobs.service";
import {
  claimBatchBody,
  claimBatchResponse,
  completeBatchBody,
  completeBatchResponse,
  heartbeatBatchBody,
  heartbeatBatchResponse,
} from "./worker-protocol.schemas";
import { completeJobAsWorker, completeJobsAsWorker, failJobAsWorker, heartbeatJob, heartbeatJobsAsWorker } from "./worker-protocol.service";

const TAG = "worker protocol";
const notYours = { description: "Unknown job, or a job of another automation" };
const notLeased = { description: "The job is not running under this worker's current lease; nothing changed" };

/** Aborts when the client goes away before the answer is sent, so a long-poll stops waiting for no one. */
function clientGone(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  if (req.socket.destroyed) controller.abort();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * The worker's side of jobs (X-Worker-Api-Key). The literal paths (/jobs/claim, /jobs/claim-batch,
 * /jobs/complete-batch, /jobs/heartbeat-batch) come before any /jobs/{job_id} route.
 */
export const workerProtocolRoutes = [
  defineRoute({
    method: "post",
    path: "/jobs/claim",
    summary: "Claim the oldest available job of the worker's automation (long-poll)",
    tag: TAG,
    auth: "worker",
    body: claimJobBody,
    responses: {
      200: { description: "The job, now running under a lease", schema: jobRecord },
      204: { description: "No job became available within wait_seconds" },
    },
    handler: async ({ body, caller, ctx, req, res }) => {
      const job = await claimNextJob(ctx, caller.worker, body.wait_seconds, clientGone(req, res));
      return job ? { status: 200, body: toJobRecord(job) } : { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/jobs/claim-batch",
    summary: "Claim up to max_jobs available jobs of the worker's automation, in claim order (long-poll)",
    tag: TAG,
    auth: "worker",
    body: claimBatchBody,
    responses: {
      200: { description: "1 to max_jobs jobs, now running under leases; never beyond max_concurrent_jobs", schema: claimBatchResponse },
      204: { description: "No job became available within wait_seconds" },
    },
    handler: async ({ body, caller, ctx, req, res }) => {
      const jobs = await claimNextJobs(ctx, caller.worker, { maxJobs: body.max_jobs, waitSeconds: body.wait_seconds }, clientGone(req, res));
      return jobs.length > 0 ? { status: 200, body: { jobs: jobs.map(toJobRecord) } } : { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/jobs/complete-batch",
    summary: "Report the results of several jobs; each is recorded or refused on its own",
    tag: TAG,
    auth: "worker",
    body: completeBatchBody,
    responses: { 200: { description: "One result per item, in input order", schema: completeBatchResponse } },
    handler: async ({ body, caller, ctx }) => ({ status: 200, body: await completeJobsAsWorker(ctx, caller.worker, body.items) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/heartbeat-batch",
    summary: "Extend the leases of several running jobs; each is extended or refused on its own",
    tag: TAG,
    auth: "worker",
    body: heartbeatBatchBody,
    responses: { 200: { description: "One result per id, in input order", schema: heartbeatBatchResponse } },
    handler: async ({ body, caller, ctx }) => ({ status: 200, body: await heartbeatJobsAsWorker(ctx, caller.worker, body.ids) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/heartbeat",
    summary: "Extend the lease of a running job",
    tag: TAG,
    auth: "worker",
    params: jobIdParams,
    body: heartbeatJobBody,
    responses: { 200: { description: "The new lease expiry", schema: heartbeatResponse }, 404: notYours, 409: notLeased },
    handler: async ({ params, body, caller, ctx }) => ({ status: 200, body: await heartbeatJob(ctx, caller.worker, params.job_id, body.attempt) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/complete",
    summary: "Report a job's result",
    tag: TAG,
    auth: "worker",
    params: jobIdParams,
    body: completeJobBody,
    responses: { 200: { description: "The job, now completed", schema: jobRecord }, 404: notYours, 409: notLeased },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 200,
      body: await completeJobAsWorker(ctx, caller.worker, params.job_id, body.result, body.attempt),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/fail",
    summary: "Report a job's failure",
    tag: TAG,
    auth: "worker",
    params: jobIdParams,
    body: failJobBody,
    responses: {
      200: { description: "The job: queued again after a retryable failure while attempts remain, else failed", schema: jobRecord },
      404: notYours,
      409: notLeased,
    },
    handler: async ({ params, body, caller, ctx }) => ({ status: 200, body: await failJobAsWorker(ctx, caller.worker, params.job_id, body) }),
  }),
];
