/**
 * What every statement that creates jobs writes for approvals (CONTRACT §6.17), as SQL text to
 * splice into it: POST /jobs and batches (insert.ts, insert-flow.ts), retries (retry.ts) and a
 * schedule's fire (../schedules/fire.ts). A job needs an approval when its automation requires one
 * or the job asked for one itself; it is then created `held` (never handed out, offered or
 * counted as queued: ./hold.ts) with a pending approval, and `job.approval_requested` is written
 * beside its `job.created`, in the same statement. Any other job is created `queued` with every
 * approval column null, as before: the only cost is these expressions.
 */
import { HELD_JOB_STATUS } from "@hub/shared";

/** An ISO 8601 UTC text of a timestamp (as `Date.toISOString()` writes it), for event payloads. */
const isoTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The columns {@link approvalValues} fills, for the INSERT's column list. */
export const APPROVAL_COLUMNS = "status, approval_status, approval_expires_at";

/**
 * The values of {@link APPROVAL_COLUMNS}: `needed` is SQL that is true when the job needs an
 * approval, `timeoutSeconds` the automation's `approval_timeout_seconds` (null: never expires; the
 * timeout runs from the creation); `otherHold` SQL that is true when something else holds the job
 * (its dependencies, CONTRACT §6.16).
 */
export function approvalValues(needed: string, timeoutSeconds: string, otherHold = "false"): string {
  return `case when ${needed} or ${otherHold} then '${HELD_JOB_STATUS}' else 'queued' end,
    case when ${needed} then 'pending' end,
    case when ${needed} and ${timeoutSeconds} is not null then now() + make_interval(secs => ${timeoutSeconds}) end`;
}

/** The RETURNING columns {@link approvalRequestedEvents} reads from the created rows. */
export const APPROVAL_RETURNING = "approval_status, approval_expires_at";

/** The payload of `job.approval_requested` of the created row aliased `row`. */
export const approvalRequestedPayload = (row: string) =>
  `jsonb_build_object('automation_id', ${row}.automation_id, 'expires_at', ${isoTime(`${row}.approval_expires_at`)})`;

/**
 * One `job.approval_requested {automation_id, expires_at}` event row (aggregate, type, actor,
 * payload, then `extraColumns`) per created job awaiting approval: `created` names the CTE of the
 * created rows.
 */
export function approvalRequestedSelect(created: string, actor: string, extraColumns = ""): string {
  return `select ${created}.id, 'job.approval_requested', ${actor}, ${approvalRequestedPayload(created)}${extraColumns}
  from ${created} where ${created}.approval_status = 'pending'`;
}

/**
 * {@link approvalRequestedSelect} as a `union all` to append to the SELECT that writes the created
 * jobs' `job.created` events, so each job's request follows its creation, in one insert.
 */
export function approvalRequestedEvents(created: string, actor: string): string {
  return `union all
  ${approvalRequestedSelect(created, actor)}`;
}
