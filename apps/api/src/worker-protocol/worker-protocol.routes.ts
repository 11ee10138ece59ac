import type { Request, Response } from "express";
import { jobNotLeasedResponse } from "../http/common-schemas";
import { noteNoEventsWritten } from "../http/outbox-writes";
import { addRequestLogFields } from "../http/request-log";
import { defineRoute } from "../http/route";
import { claimNextJob, claimNextJobs } from "./claim";
import { recordKeyHolds } from "../workers/key-holds.service";
import { handedOutRecords } from "./claimed-job";
import {
  claimJobBody,
  completeAndClaimJobBody,
  completeAndClaimJobResponse,
  claimedJobRecord,
  completeJobBody,
  failJobBody,
  heartbeatJobBody,
  heartbeatResponse,
  jobIdParams,
  jobRecord,
} from "../jobs/jobs.schemas";
import {
  claimBatchBody,
  claimBatchResponse,
  completeBatchBody,
  completeBatchResponse,
  heartbeatBatchBody,
  heartbeatBatchResponse,
} from "./worker-protocol.schemas";
import {
  completeJobAndClaimNext,
  completeJobAsWorker,
  completeJobsAsWorker,
  failJobAsWorker,
  heartbeatJob,
  heartbeatJobsAsWorker,
} from "./worker-protocol.service";

const TAG = "worker protocol";
const notYours = { description: "Unknown job, or a job of another automation" };
const notLeased = {
  description: "The job is not running under this worker's current lease (or not in the attempt named); nothing changed. `status` is the job's status now",
  schema: jobNotLeasedResponse,
};

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
    operationId: "claimJob",
    summary: "Claim the next job (long-poll)",
    description:
      "Hands the worker its automation's next available job in claim order, now running under a lease of HUB_JOB_LEASE_SECONDS, or 204 when none arrives within wait_seconds. Never beyond the automation's max_concurrent_jobs, and nothing while it is in development mode. The body may be left out (wait_seconds 0).",
    tag: TAG,
    auth: "worker",
    body: claimJobBody,
    example: { wait_seconds: 20 },
    responses: {
      200: { description: "The job, now running under a lease, with the trace context to run it in", schema: claimedJobRecord },
      204: { description: "No job became available within wait_seconds" },
    },
    handler: async ({ body, caller, ctx, req, res }) => {
      const job = await claimNextJob(ctx, caller.worker, body.wait_seconds, clientGone(req, res));
      if (!job) noteNoEventsWritten(res);
      else await recordKeyHolds(ctx, caller.worker, [job.id]);
      return job ? { status: 200, body: (await handedOutRecords(ctx, [job]))[0]! } : { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/jobs/claim-batch",
    operationId: "claimJobBatch",
    summary: "Claim up to max_jobs jobs (long-poll)",
    description:
      "As POST /jobs/claim for up to max_jobs jobs at once, in claim order and never beyond max_concurrent_jobs; 204 when none arrives within wait_seconds. For workers that want throughput.",
    tag: TAG,
    auth: "worker",
    body: claimBatchBody,
    example: { max_jobs: 10, wait_seconds: 20 },
    responses: {
      200: { description: "1 to max_jobs jobs, now running under leases; never beyond max_concurrent_jobs", schema: claimBatchResponse },
      204: { description: "No job became available within wait_seconds" },
    },
    handler: async ({ body, caller, ctx, req, res }) => {
      const jobs = await claimNextJobs(ctx, caller.worker, { maxJobs: body.max_jobs, waitSeconds: body.wait_seconds }, clientGone(req, res));
      if (jobs.length === 0) noteNoEventsWritten(res);
      await recordKeyHolds(
        ctx,
        caller.worker,
        jobs.map((job) => job.id),
      );
      return jobs.length > 0 ? { status: 200, body: { jobs: await handedOutRecords(ctx, jobs) } } : { status: 204 };
    },
  }),
  defineRoute({
    method: "post",
    path: "/jobs/complete-batch",
    operationId: "completeJobBatch",
    summary: "Report several results",
    description:
      "Each item is recorded or refused on its own, in input order: `completed`, `conflict` where a single complete would answer 409 (not running under this worker's lease, or another attempt), `not_found` for a job of another automation.",
    tag: TAG,
    auth: "worker",
    body: completeBatchBody,
    example: { items: [{ id: "c2d4e6f8-1a3b-4c5d-9e7f-8a0b2c4d6e8f", result: { rows: 42 }, attempt: 1 }] },
    responses: { 200: { description: "One result per item, in input order", schema: completeBatchResponse } },
    handler: async ({ body, caller, ctx }) => ({ status: 200, body: await completeJobsAsWorker(ctx, caller.worker, body.items) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/heartbeat-batch",
    operationId: "heartbeatJobBatch",
    summary: "Extend several leases",
    description: "Each id is extended (`ok`, with its new lease_expires_at) or refused on its own (`conflict`, `not_found`), in input order.",
    tag: TAG,
    auth: "worker",
    body: heartbeatBatchBody,
    example: { ids: ["c2d4e6f8-1a3b-4c5d-9e7f-8a0b2c4d6e8f", "e4f6a8b0-2c4d-4e6f-8a1b-3c5d7e9f0a2b"] },
    responses: { 200: { description: "One result per id, in input order", schema: heartbeatBatchResponse } },
    handler: async ({ body, caller, ctx }) => ({ status: 200, body: await heartbeatJobsAsWorker(ctx, caller.worker, body.ids) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/heartbeat",
    operationId: "heartbeatJob",
    summary: "Extend a job's lease",
    description:
      "Extends the lease of a job running under this worker to HUB_JOB_LEASE_SECONDS from now. Send one every third of the lease while working: a job whose lease lapses is queued again (or failed after its last attempt) and its later calls get 409. `attempt` (the job's attempts as claimed) also refuses a late call of an earlier attempt. The body may be left out.",
    tag: TAG,
    auth: "worker",
    params: jobIdParams,
    body: heartbeatJobBody,
    example: { attempt: 1 },
    responses: { 200: { description: "The new lease expiry", schema: heartbeatResponse }, 404: notYours, 409: notLeased },
    handler: async ({ params, body, caller, ctx }) => ({ status: 200, body: await heartbeatJob(ctx, caller.worker, params.job_id, body) }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/complete",
    operationId: "completeJob",
    summary: "Report a job's result",
    description:
      "Records the result (a JSON object) and completes the job, once: a job that is not running under this worker's current lease (cancelled, timed out, queued again, already reported) is refused with 409 and nothing changes.",
    tag: TAG,
    auth: "worker",
    params: jobIdParams,
    body: completeJobBody,
    example: { result: { rows: 42 }, attempt: 1 },
    responses: { 200: { description: "The job, now completed", schema: jobRecord }, 404: notYours, 409: notLeased },
    handler: async ({ params, body, caller, ctx }) => ({
      status: 200,
      body: await completeJobAsWorker(ctx, caller.worker, params.job_id, body.result, body.attempt),
    }),
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/complete-and-claim",
    operationId: "completeJobAndClaimNext",
    summary: "Report a job's result and claim the next job (long-poll)",
    description:
      "POST /jobs/{job_id}/complete and POST /jobs/claim in one request, for a worker that takes its next job as soon as it finishes one. The result is recorded exactly as complete records it: a job not running under this worker's current lease is refused with 409 (404 for a job of another automation), nothing changes and nothing is claimed. Once it is recorded, the next job is claimed as POST /jobs/claim claims it (claim order, max_concurrent_jobs, the limits per key and rate limits), waiting up to wait_seconds; `next` is null when none came. A client that goes away while waiting claims nothing, but its result stays recorded; a claim that cannot run once the result is recorded (PostgreSQL unavailable) answers `next: null`, not an error.",
    tag: TAG,
    auth: "worker",
    params: jobIdParams,
    body: completeAndClaimJobBody,
    example: { result: { rows: 42 }, attempt: 1, wait_seconds: 0 },
    responses: {
      200: { description: "The completed job, and the next job now running under a lease (or null)", schema: completeAndClaimJobResponse },
      404: notYours,
      409: notLeased,
    },
    handler: async ({ params, body, caller, ctx, req, res }) => {
      const answer = await completeJobAndClaimNext(
        ctx,
        caller.worker,
        params.job_id,
        { result: body.result, attempt: body.attempt, waitSeconds: body.wait_seconds },
        clientGone(req, res),
      );
      // The job handed out is followed in the logs by its id, as POST /jobs/claim's is.
      if (answer.next) {
        addRequestLogFields(req, { next_job_id: answer.next.id });
        await recordKeyHolds(ctx, caller.worker, [answer.next.id]);
      }
      const next = answer.next ? (await handedOutRecords(ctx, [answer.next]))[0]! : null;
      return { status: 200, body: { job: answer.job, next } };
    },
  }),
  defineRoute({
    method: "post",
    path: "/jobs/{job_id}/fail",
    operationId: "failJob",
    summary: "Report a job's failure",
    description:
      "Records the error. With retryable true the job is queued again after the automation's back-off (retry_backoff_seconds × 2^(attempts−1), ±20 %) while attempts remain; otherwise, or after the last attempt, it is failed. Refused with 409 as complete is.",
    tag: TAG,
    auth: "worker",
    params: jobIdParams,
    body: failJobBody,
    example: { error: "the ERP answered 503", retryable: true, attempt: 1 },
    responses: {
      200: { description: "The job: queued again after a retryable failure while attempts remain, else failed", schema: jobRecord },
      404: notYours,
      409: notLeased,
    },
    handler: async ({ params, body, caller, ctx }) => ({ status: 200, body: await failJobAsWorker(ctx, caller.worker, params.job_id, body) }),
  }),
];
