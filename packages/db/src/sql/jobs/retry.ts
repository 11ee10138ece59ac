/**
 * Retrying finished jobs: `POST /jobs/{id}/retry` and bulk retry, one named prepared statement for
 * any number of ids; and `POST /jobs/{id}/retry` with a new context (CONTRACT §6.14), one job.
 */
import { HELD_JOB_STATUS, RETRYABLE_JOB_STATUSES } from "@hub/shared";
import type { Executor } from "../../executor";
import { sqlLiteralList } from "../../sql-literals";
import type { AutomationParameter } from "../../schema";
import type { JobRef } from "./dispatch-scan";
import { contextFitsParameters, type JobTrace } from "./insert";
import { APPROVAL_COLUMNS, APPROVAL_RETURNING, approvalRequestedEvents, approvalRequestedSelect, approvalValues } from "./approval-columns";

/**
 * A retry needs an approval when its automation requires one now, or the job it retries had one
 * (CONTRACT §6.17: a job's own `requires_approval: true` is copied; an approval the automation
 * asked for is kept too, the safe reading of four eyes).
 */
const RETRY_APPROVAL = approvalValues("(automation.requires_approval or source.had_approval)", "automation.approval_timeout_seconds");

// Retrying finished jobs (CONTRACT §6.4, §6.5): for each id that names a `failed` or `cancelled`
// job of an active automation, a new queued job with the same automation, context and priority,
// `retry_of` = that id, and its `job.created` event; the retry runs now: its `run_at`,
// `schedule_id` and `fire_time` stay null (CONTRACT §6.8). One statement for any number of ids, so
// bulk-retry runs it per batch. The automations are read FOR KEY SHARE, as POST /jobs does, so a
// deactivation either waits and cancels the new jobs or committed first and is seen here, and the
// key value is set from the concurrency_key read (functions/hub_job_key_value.sql). The
// source jobs need no lock: `failed` and `cancelled` are final.
const RETRY_JOBS = `
with source as (
  select j.id, j.automation_id, j.context, j.priority, j.approval_status is not null as had_approval from jobs j
  where j.id = any($1::uuid[]) and j.status in (${sqlLiteralList(RETRYABLE_JOB_STATUSES)})
), automation as (
  select id, concurrency_key, requires_approval, approval_timeout_seconds from automations
  where id = any(array(select distinct automation_id from source)) and is_active order by id for key share
), created as (
  insert into jobs (automation_id, context, priority, created_by, retry_of, key_value, traceparent, tracestate, ${APPROVAL_COLUMNS})
  select source.automation_id, source.context, source.priority, $2, source.id, hub_job_key_value_of(source.context, automation.concurrency_key),
         $3::text, $4::text, ${RETRY_APPROVAL}
  from source join automation on automation.id = source.automation_id
  order by source.id
  returning id, automation_id, context, retry_of, available_at, seq, priority, status, ${APPROVAL_RETURNING}
), event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select aggregate_id, event_type, actor_id, payload from (
    select id as aggregate_id, 'job.created' as event_type, $2::uuid as actor_id,
           jsonb_build_object('automation_id', automation_id, 'context', context, 'retry_of', retry_of) as payload, retry_of, 0 as step
    from created
    union all
    ${approvalRequestedSelect("created", "$2::uuid", ", created.retry_of, 1")}
  ) e order by retry_of, step
)
select id, automation_id, retry_of, available_at, seq, priority, status from created`;

/** A job created by {@link retry}: what dispatch needs, and the job it retries. */
export interface RetryJobRef extends JobRef {
  retryOf: string;
  /** Created held, awaiting approval (CONTRACT §6.17): not to be offered. */
  held: boolean;
}

/**
 * Retries the `failed` or `cancelled` jobs among `jobIds` whose automation is active, as
 * `retriedBy`: one new queued job per such id, with its `job.created` event (carrying `retry_of`),
 * in one statement. Other ids (unknown, not finished that way, inactive automation) create nothing;
 * the caller tells them apart if it must.
 */
export async function retry(db: Executor, retriedBy: string, jobIds: readonly string[], trace?: JobTrace): Promise<RetryJobRef[]> {
  if (jobIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; automation_id: string; retry_of: string; available_at: Date; seq: string; priority: number; status: string }>({
    name: "jobs_retry",
    text: RETRY_JOBS,
    values: [jobIds, retriedBy, trace?.traceparent ?? null, trace?.tracestate ?? null],
  });
  return rows.map((row) => ({
    id: row.id,
    automationId: row.automation_id,
    retryOf: row.retry_of,
    seq: Number(row.seq),
    priority: row.priority,
    availableAt: row.available_at,
    held: row.status === HELD_JOB_STATUS,
  }));
}

// As RETRY_JOBS (above) for one job, with the context given ($3) instead of the old one:
// the automation is read FOR KEY SHARE, the context checked against its parameters as they are in
// this snapshot (as POST /jobs checks it), and job.created says the context was changed. When it
// creates nothing it returns what the caller needs to say why, in the contract's order: the job's
// status (409 unless failed or cancelled), the automation's state (409 when inactive), then its
// parameters (422 for the context).
const RETRY_WITH_CONTEXT = `
with source as (
  select id, automation_id, priority, status in (${sqlLiteralList(RETRYABLE_JOB_STATUSES)}) as retryable, approval_status is not null as had_approval
  from jobs where id = $1
), automation as (
  select id, parameters, is_active, concurrency_key, requires_approval, approval_timeout_seconds from automations
  where id = (select automation_id from source) for key share
), created as (
  insert into jobs (automation_id, context, priority, created_by, retry_of, key_value, traceparent, tracestate, ${APPROVAL_COLUMNS})
  select source.automation_id, $3::jsonb, source.priority, $2, source.id, hub_job_key_value_of($3::jsonb, automation.concurrency_key),
         $4::text, $5::text, ${RETRY_APPROVAL}
  from source join automation on automation.id = source.automation_id
  where source.retryable and automation.is_active and ${contextFitsParameters("$3::jsonb", "automation.parameters")}
  returning id, automation_id, retry_of, available_at, seq, priority, status, ${APPROVAL_RETURNING}
), event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select id, 'job.created', $2,
         jsonb_build_object('automation_id', automation_id, 'context', $3::jsonb, 'retry_of', retry_of, 'context_changed', true)
  from created
  ${approvalRequestedEvents("created", "$2")}
)
select created.id, created.automation_id, created.retry_of, created.available_at, created.seq, created.priority, created.status,
       source.retryable, automation.is_active, automation.parameters
from source
left join automation on true
left join created on true`;

export type RetryWithContextOutcome =
  | { kind: "created"; job: RetryJobRef }
  | { kind: "not_found" }
  /** Nothing was created: the job is not failed or cancelled, its automation inactive, or the context does not fit its parameters. */
  | { kind: "refused"; retryable: boolean; automationActive: boolean; parameters: AutomationParameter[] };

/** `POST /jobs/{job_id}/retry` with `{context}`: the new job and its `job.created` (with `retry_of` and `context_changed`) in one statement. */
export async function retryWithContext(
  db: Executor,
  retriedBy: string,
  jobId: string,
  context: Record<string, unknown>,
  trace?: JobTrace,
): Promise<RetryWithContextOutcome> {
  const { rows } = await db.query<{
    id: string | null;
    automation_id: string | null;
    retry_of: string | null;
    available_at: Date | null;
    seq: string | null;
    priority: number | null;
    status: string | null;
    retryable: boolean;
    is_active: boolean | null;
    parameters: AutomationParameter[] | null;
  }>({
    name: "jobs_retry_with_context",
    text: RETRY_WITH_CONTEXT,
    values: [jobId, retriedBy, JSON.stringify(context), trace?.traceparent ?? null, trace?.tracestate ?? null],
  });
  const row = rows[0];
  if (!row) return { kind: "not_found" };
  if (row.id) {
    return {
      kind: "created",
      job: {
        id: row.id,
        automationId: row.automation_id!,
        retryOf: row.retry_of!,
        seq: Number(row.seq),
        priority: row.priority!,
        availableAt: row.available_at!,
        held: row.status === HELD_JOB_STATUS,
      },
    };
  }
  return { kind: "refused", retryable: row.retryable, automationActive: row.is_active === true, parameters: row.parameters ?? [] };
}
