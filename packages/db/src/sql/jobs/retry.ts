/**
 * Retrying finished jobs: `POST /jobs/{id}/retry` and bulk retry, one named prepared statement for
 * any number of ids.
 */
import { RETRYABLE_JOB_STATUSES } from "@hub/shared";
import type { Executor } from "../../executor";
import { sqlLiteralList } from "../../sql-literals";
import type { JobRef } from "./dispatch-scan";

// Retrying finished jobs (CONTRACT §6.4, §6.5): for each id that names a `failed` or `cancelled`
// job of an active automation, a new queued job with the same automation, context and priority,
// `retry_of` = that id, and its `job.created` event; the retry runs now: its `run_at`,
// `schedule_id` and `fire_time` stay null (CONTRACT §6.8). One statement for any number of ids, so
// bulk-retry runs it per batch. The automations are read FOR KEY SHARE, as POST /jobs does, so a
// deactivation either waits and cancels the new jobs or committed first and is seen here. The
// source jobs need no lock: `failed` and `cancelled` are final.
const RETRY_JOBS = `
with source as (
  select j.id, j.automation_id, j.context, j.priority from jobs j
  where j.id = any($1::uuid[]) and j.status in (${sqlLiteralList(RETRYABLE_JOB_STATUSES)})
), automation as (
  select id from automations
  where id = any(array(select distinct automation_id from source)) and is_active order by id for key share
), created as (
  insert into jobs (automation_id, context, priority, created_by, retry_of)
  select source.automation_id, source.context, source.priority, $2, source.id
  from source join automation on automation.id = source.automation_id
  order by source.id
  returning id, automation_id, context, retry_of, available_at, seq, priority
), event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select id, 'job.created', $2, jsonb_build_object('automation_id', automation_id, 'context', context, 'retry_of', retry_of)
  from created order by retry_of
)
select id, automation_id, retry_of, available_at, seq, priority from created`;

/** A job created by {@link retry}: what dispatch needs, and the job it retries. */
export interface RetryJobRef extends JobRef {
  retryOf: string;
}

/**
 * Retries the `failed` or `cancelled` jobs among `jobIds` whose automation is active, as
 * `retriedBy`: one new queued job per such id, with its `job.created` event (carrying `retry_of`),
 * in one statement. Other ids (unknown, not finished that way, inactive automation) create nothing;
 * the caller tells them apart if it must.
 */
export async function retry(db: Executor, retriedBy: string, jobIds: readonly string[]): Promise<RetryJobRef[]> {
  if (jobIds.length === 0) return [];
  const { rows } = await db.query<{ id: string; automation_id: string; retry_of: string; available_at: Date; seq: string; priority: number }>({
    name: "jobs_retry",
    text: RETRY_JOBS,
    values: [jobIds, retriedBy],
  });
  return rows.map((row) => ({
    id: row.id,
    automationId: row.automation_id,
    retryOf: row.retry_of,
    seq: Number(row.seq),
    priority: row.priority,
    availableAt: row.available_at,
  }));
}
