/**
 * Approvals (CONTRACT §6.17): deciding a job's pending approval, expiring the requests whose time
 * is up, and the reads behind GET /approvals. A job without an approval has every `approval_*`
 * column null, is in none of the indexes these statements read (jobs_approval_pending_idx,
 * jobs_approval_expiry_idx) and meets none of them.
 *
 * Locking: a decision and an expiry both change a job only while its approval is `pending`, under
 * the job's row lock, so of two approvers deciding at once, or a decision racing the expiry, exactly
 * one changes it; the other finds it decided. Only job rows are locked (never an automation row
 * after a job row: the house order).
 */
import { sql } from "drizzle-orm";
import { jobs, type Job } from "../../schema";
import { fromRow } from "./row";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { automationIdReached, type Reach } from "../../reach";
import { actorSetting } from "./hold";

/** A job and what a decision needs to know of its automation: who may decide it now. */
export interface JobForDecision {
  job: Job;
  approverIds: string[];
  /** Its approval is pending and its time is up by PostgreSQL's clock, so it expires rather than being decided. */
  expiryDue: boolean;
}

/**
 * The job with its automation's approvers, locked `FOR UPDATE` when `lock` names the decider
 * (inside the deciding transaction); undefined when unknown or outside `reach`.
 */
export async function findForDecision(
  executor: Executor,
  reach: Reach,
  jobId: string,
  lock: { deciderId: string } | false,
): Promise<JobForDecision | undefined> {
  const db = queryBuilder(executor);
  const reached = automationIdReached(reach, sql.raw("j.automation_id")) ?? sql`true`;
  // Locking, it also names the decider as the actor of the dependents a rejection cancels (./hold.ts).
  const { rows } = await db.execute<Record<string, unknown>>(sql`
    select j.*, a.approver_ids::text[] as approver_ids_of_automation, ${lock ? actorSetting(lock.deciderId) : sql`null`} as actor_set,
      coalesce(j.approval_status = 'pending' and j.approval_expires_at <= now(), false) as approval_expiry_due
    from jobs j join automations a on a.id = j.automation_id
    where j.id = ${jobId} and ${reached}
    ${lock ? sql`for update of j` : sql``}`);
  const row = rows[0];
  if (!row) return undefined;
  return {
    job: fromRow(row),
    approverIds: (row.approver_ids_of_automation as string[]).map((id) => id.toLowerCase()),
    expiryDue: row.approval_expiry_due === true,
  };
}

/** Whether `user` may decide the approval of a job of an automation with `approverIds`: an admin or an approver, never its creator. */
export function mayDecide(
  user: { id: string; isAdmin: boolean },
  job: Pick<Job, "createdBy">,
  approverIds: readonly string[],
): "yes" | "creator" | "not_approver" {
  if (job.createdBy !== null && job.createdBy.toLowerCase() === user.id.toLowerCase()) return "creator";
  if (user.isAdmin || approverIds.includes(user.id.toLowerCase())) return "yes";
  return "not_approver";
}

/**
 * Records the decision on a pending approval the caller locked: `approved` (the job stays held
 * until the caller releases it) or `rejected` (the job becomes `cancelled`, `job.cancelled`
 * `{reason: "rejected"}`), with `job.approved` / `job.rejected` `{automation_id, comment}` by the
 * decider. Returns the job after the change; undefined when the approval was not pending.
 */
export async function decide(
  executor: Executor,
  decision: { jobId: string; deciderId: string; approve: boolean; comment: string | null },
): Promise<Job | undefined> {
  const { rows } = await executor.query<Record<string, unknown>>({
    text: `
    with decided as (
      update jobs j set
        approval_status = case when $3 then 'approved' else 'rejected' end,
        approval_decided_by = $2, approval_decided_at = now(), approval_comment = $4,
        status = case when $3 then j.status else 'cancelled' end,
        finished_at = case when $3 then j.finished_at else now() end
      where j.id = $1 and j.approval_status = 'pending'
      returning j.*
    ), event as (
      -- One insert, so the decision's event comes before a rejection's job.cancelled.
      insert into events (aggregate_id, event_type, actor_id, payload)
      select id, case when $3 then 'job.approved' else 'job.rejected' end, $2::uuid,
             jsonb_build_object('automation_id', automation_id, 'comment', $4::text)
      from decided
      union all
      select id, 'job.cancelled', $2::uuid, jsonb_build_object('automation_id', automation_id, 'reason', 'rejected')
      from decided where not $3
    )
    select * from decided`,
    values: [decision.jobId, decision.deciderId, decision.approve, decision.comment],
  });
  return rows[0] ? fromRow(rows[0]) : undefined;
}

/** A job whose approval request expired: cancelled with `reason: "approval_expired"`. */
export interface ExpiredApproval {
  id: string;
  automationId: string;
  seq: number;
  /** Jobs wait for it: its end may have released some (offer them, ./hold.ts). */
  hasDependents: boolean;
  /** The job's stored trace context (CONTRACT §6.20): the expiry is a span of its trace. */
  traceparent: string | null;
  tracestate: string | null;
}

/**
 * Expires pending approvals whose `approval_expires_at` has come (CONTRACT §6.17): each job becomes
 * `cancelled`, approval `expired`, with `job.cancelled` `{automation_id, reason: "approval_expired"}`
 * (no actor: the hub). One statement, at most `limit` jobs, earliest expiry first; rows another
 * process is deciding or expiring are skipped (`skip locked`) and the status is tested again under
 * the lock, so each expires exactly once however many dispatchers sweep. `jobIds` narrows it to
 * those jobs (a decision that found its approval expired).
 */
export async function expireDue(executor: Executor, limit: number, jobIds?: readonly string[]): Promise<ExpiredApproval[]> {
  const { rows } = await executor.query<{
    id: string;
    automation_id: string;
    seq: string;
    has_dependents: boolean | null;
    traceparent: string | null;
    tracestate: string | null;
  }>({
    name: jobIds ? undefined : "jobs_expire_approvals",
    text: `
    with due as (
      select id from jobs
      where approval_status = 'pending' and approval_expires_at is not null and approval_expires_at <= now()
        and ($2::uuid[] is null or id = any($2::uuid[]))
      order by approval_expires_at
      limit $1
      for update skip locked
    ), expired as (
      update jobs j set status = 'cancelled', finished_at = now(), approval_status = 'expired'
      from due where j.id = due.id and j.approval_status = 'pending'
      returning j.id, j.automation_id, j.seq, j.has_dependents, j.traceparent, j.tracestate
    ), event as (
      insert into events (aggregate_id, event_type, actor_id, payload)
      select id, 'job.cancelled', null, jsonb_build_object('automation_id', automation_id, 'reason', 'approval_expired')
      from expired
    )
    select id, automation_id, seq, has_dependents, traceparent, tracestate from expired`,
    values: [limit, jobIds ? [...jobIds] : null],
  });
  return rows.map((row) => ({
    id: row.id,
    automationId: row.automation_id,
    seq: Number(row.seq),
    hasDependents: row.has_dependents === true,
    traceparent: row.traceparent,
    tracestate: row.tracestate,
  }));
}

/** GET /approvals: oldest first by (created_at, id), through jobs_approval_pending_idx. */
export const APPROVALS_LIST_ORDER: KeysetOrder = { createdAt: jobs.createdAt, id: jobs.id, direction: "oldest first" };

/** A pending approval as GET /approvals lists it: the job and its creator's e-mail (who asks, for the decider). */
export type DecidableJob = Job & { createdByEmail: string | null };

/**
 * One page of GET /approvals: the jobs with a pending approval, within `reach`, that `user` may
 * decide — any an admin did not create, else those of automations naming it in `approver_ids` —
 * oldest first.
 */
export async function listDecidable(
  executor: Executor,
  reach: Reach,
  user: { id: string; isAdmin: boolean },
  page: KeysetPageRequest,
): Promise<KeysetPage<DecidableJob>> {
  const db = queryBuilder(executor);
  const reached = automationIdReached(reach, jobs.automationId) ?? sql`true`;
  const approver = user.isAdmin
    ? sql`true`
    : sql`exists (select 1 from automations a where a.id = ${jobs.automationId} and ${user.id}::uuid = any(a.approver_ids))`;
  return keysetPage(
    APPROVALS_LIST_ORDER,
    page,
    async ({ after, limit }) => {
      const { rows } = await db.execute<Record<string, unknown>>(sql`
        select ${jobs}.*, u.email as created_by_email from ${jobs} left join users u on u.id = ${jobs.createdBy}
        where ${jobs.approvalStatus} = 'pending' and ${jobs.createdBy} is distinct from ${user.id}::uuid
          and ${reached} and ${approver} ${after ? sql`and ${after}` : sql``}
        order by ${jobs.createdAt}, ${jobs.id}
        limit ${limit}`);
      return rows.map((row) => ({ ...fromRow(row), createdByEmail: (row.created_by_email as string | null) ?? null }));
    },
    (job) => job,
  );
}
