/**
 * Which worker key holds a running job (CONTRACT §6.21): the key that claimed it or last
 * heartbeated it. Outside a rotation's overlap a worker has one key and it holds every job; during
 * an overlap, `worker_key_holds` names the jobs the previous key holds, in their attempt (a row of
 * another attempt, or of a job no longer running under the worker, holds nothing). Rows are
 * written only while an overlap lasts, so the hot paths pay nothing the rest of the time.
 *
 * Lock order, as unregistering (../jobs/requeue.ts): the automation row, then the worker row, then
 * job rows in id order.
 */
import { sql } from "drizzle-orm";
import { queryBuilder, type Executor } from "../../executor";

const idsOf = (jobIds: readonly string[]) => sql`(select value::uuid from jsonb_array_elements_text(${JSON.stringify(jobIds)}::jsonb))`;

/** The previous key claimed or heartbeated these jobs: it holds them now, in the attempt each runs. */
export async function holdWithPreviousKey(executor: Executor, workerId: string, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await queryBuilder(executor).execute(sql`
    insert into worker_key_holds (job_id, worker_id, attempt)
    select id, worker_id, attempts from jobs where id in ${idsOf(jobIds)} and worker_id = ${workerId} and status = 'running'
    on conflict (job_id) do update set worker_id = excluded.worker_id, attempt = excluded.attempt`);
}

/** The current key heartbeated these jobs: it holds them now. */
export async function holdWithCurrentKey(executor: Executor, workerId: string, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await queryBuilder(executor).execute(sql`
    delete from worker_key_holds where worker_id = ${workerId} and job_id in ${idsOf(jobIds)}`);
}

/**
 * A rotation with an overlap: the key being replaced holds every running job of the worker the
 * current key held (call it after the jobs the earlier previous key held were re-queued, and with
 * the worker locked: no claim or heartbeat of it changes holds meanwhile).
 */
export async function holdAllRunningWithPreviousKey(executor: Executor, workerId: string): Promise<void> {
  const tx = queryBuilder(executor);
  await tx.execute(sql`delete from worker_key_holds where worker_id = ${workerId}`);
  await tx.execute(sql`
    insert into worker_key_holds (job_id, worker_id, attempt)
    select id, worker_id, attempts from jobs where worker_id = ${workerId} and status = 'running'`);
}

/** The running jobs the worker's previous key holds (to re-queue when it stops working). */
export async function runningHeldByPreviousKey(executor: Executor, workerId: string): Promise<string[]> {
  const result = await queryBuilder(executor).execute<{ id: string }>(sql`
    select j.id from worker_key_holds h join jobs j on j.id = h.job_id
    where h.worker_id = ${workerId} and j.worker_id = ${workerId} and j.status = 'running' and j.attempts = h.attempt
    order by j.id`);
  return result.rows.map((row) => row.id);
}

/** The previous key is gone: no job is held by it any more. */
export async function forgetPreviousKeyHolds(executor: Executor, workerId: string): Promise<void> {
  await queryBuilder(executor).execute(sql`delete from worker_key_holds where worker_id = ${workerId}`);
}

/** The automations whose worker's previous key has stopped working but is still on record (the overlap sweep's work). */
export async function endedOverlaps(executor: Executor, limit: number): Promise<string[]> {
  const result = await queryBuilder(executor).execute<{ automation_id: string }>(sql`
    select automation_id from workers
    where previous_api_key_expires_at <= now() and unregistered_at is null
    order by previous_api_key_expires_at limit ${limit}`);
  return result.rows.map((row) => row.automation_id);
}

/**
 * Ends the worker's overlap if its time is up (call with the worker locked): the previous key is
 * dropped. Answers whether it was up (false: a rotation or another process got there first).
 */
export async function dropExpiredPreviousKey(executor: Executor, workerId: string): Promise<boolean> {
  const result = await queryBuilder(executor).execute(sql`
    update workers set previous_api_key_hash = null, previous_api_key_expires_at = null
    where id = ${workerId} and previous_api_key_expires_at <= now()`);
  return (result.rowCount ?? 0) > 0;
}
