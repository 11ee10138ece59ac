/**
 * Deciding approvals (CONTRACT §6.17): who may decide, in the contract's order (404, 403, the
 * body's 422, 409), and what a decision does; GET /approvals.
 */
import { jobs, withTransaction, type Executor, type KeysetPage, type KeysetPageRequest, type Reach } from "@hub/db";
import type { AppContext } from "../context";
import type { AuthenticatedUser } from "../http/auth";
import { ConflictError, ForbiddenError, NotFoundError } from "../http/http-errors";
import { offerReleased, offerReleasedDependents } from "../jobs/held-jobs";
import type { JobRecord } from "../jobs/jobs.schemas";
import { getJob, toJobRecord } from "../jobs/jobs.service";
import { releaseApproved } from "./release";
import type { ApprovalRequestRecord } from "./approval-request.schemas";

const decider = (user: AuthenticatedUser) => ({ id: user.id, isAdmin: user.role === "admin" });

/** 403 unless `user` may decide the job's approval: an admin or one of the automation's approvers now, never its creator. */
function assertMayDecide(user: AuthenticatedUser, found: jobs.JobForDecision): void {
  switch (jobs.mayDecide(decider(user), found.job, found.approverIds)) {
    case "creator":
      throw new ForbiddenError("A job's creator cannot decide its approval");
    case "not_approver":
      throw new ForbiddenError("Only admins and the automation's approvers decide its approvals");
    case "yes":
      return;
  }
}

/** What POST /jobs/{id}/approve and /reject refuse before the body is read: an unknown job (404), then a caller who may not decide (403). */
export async function checkDecisionAllowed(db: Executor, reach: Reach, user: AuthenticatedUser, jobId: string): Promise<void> {
  const found = await jobs.findForDecision(db, reach, jobId, false);
  if (!found) throw new NotFoundError("Job not found");
  assertMayDecide(user, found);
}

function notPending(status: string | null): ConflictError {
  return new ConflictError(status === null ? "This job has no approval to decide" : `This job's approval is not pending: it is ${status}`);
}

/**
 * Approves or rejects a pending approval. Under the job's row lock, again: 404, 403 (the approvers
 * as they are now), then 409 when it is not pending. An approval whose time is up is expired here
 * (as the dispatchers would within seconds) and answers 409. An approved job is released when
 * nothing else holds it (its dependencies) and offered to dispatch after the commit.
 */
export async function decideApproval(
  ctx: AppContext,
  reach: Reach,
  user: AuthenticatedUser,
  jobId: string,
  decision: { approve: boolean; comment: string | null },
): Promise<JobRecord> {
  const outcome = await withTransaction(ctx.database.pool, async (tx) => {
    const found = await jobs.findForDecision(tx, reach, jobId, { deciderId: user.id });
    if (!found) throw new NotFoundError("Job not found");
    assertMayDecide(user, found);
    if (found.job.approvalStatus !== "pending") throw notPending(found.job.approvalStatus);
    if (found.expiryDue) {
      const expired = await jobs.expireDue(tx, 1, [jobId]);
      return { kind: "expired" as const, expired };
    }
    const job = await jobs.decide(tx, { jobId, deciderId: user.id, approve: decision.approve, comment: decision.comment });
    if (!job) throw notPending(null);
    const released = decision.approve ? await releaseApproved(tx, job) : [];
    return { kind: "decided" as const, job, released };
  });
  if (outcome.kind === "expired") {
    ctx.jobLogs.announce(jobId);
    await offerReleasedDependents(ctx, outcome.expired);
    throw notPending("expired");
  }
  // A released job is offered as a created one is; a rejected one ends its log streams, and the
  // dependents that run anyway (on_dependency_failure "run") may be due now.
  if (decision.approve) offerReleased(ctx, outcome.released);
  else {
    ctx.jobLogs.announce(jobId);
    await offerReleasedDependents(ctx, [outcome.job]);
  }
  return (await getJob(ctx.database.pool, reach, jobId).catch(() => undefined)) ?? toJobRecord(outcome.job);
}

/** GET /approvals: the pending approvals the caller may decide, oldest first. */
export async function listApprovals(db: Executor, reach: Reach, user: AuthenticatedUser, page: KeysetPageRequest): Promise<KeysetPage<ApprovalRequestRecord>> {
  const { items, next } = await jobs.listDecidable(db, reach, decider(user), page);
  // Held jobs show as queued, as everywhere; no position or reason in lists.
  return { items: items.map((job) => ({ ...toJobRecord(job), created_by_email: job.createdByEmail })), next };
}
