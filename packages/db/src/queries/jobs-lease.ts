/**
 * A worker's calls about the jobs it holds — heartbeat, complete, fail, one at a time or in
 * batches — and the lease sweeper. Each is one named prepared statement: the lease fence, the
 * change and its outbox event in one round trip, no explicit transaction (batches: jobs-lease-batch.ts).
 *
 * The fence: a job of another automation is `not_found`; a job not `running` under this worker's
 * unexpired lease (in the attempt the worker names, if it names one) is `not_leased`, and nothing
 * changes. The UPDATE re-checks its WHERE on the row's latest version when it had to wait for a
 * concurrent change (cancel, sweep), so the verdict is never taken on a stale row. Statements
 * touching several rows lock them in id order, as unregistering does (jobs-admin.ts), so two
 * of them never deadlock; none locks an automation row, so none can deadlock with a claim.
 */
import type { Job } from "../schema";
import { jobFromRow, leasedBy, runStatement, type NamedStatement, type Queryable } from "./jobs-row";

/** Who is calling about a job: the worker, its automation, and optionally the attempt it holds. */
export interface LeaseHolder {
  id: string;
  automationId: string;
  /** The job's `attempts` when this worker claimed it; when set, other attempts are refused. */
  attempt?: number | undefined;
}

/** Why a worker's call about a job was refused. */
export type LeaseRefusal = "not_found" | "not_leased";

export type LeasedJobResult = { ok: true; job: Job } | { ok: false; refusal: LeaseRefusal };

/** `owner_automation_id` is the job's automation (null: no such job); the other columns are the changed row, if any. */
type FencedRow = Record<string, unknown> & { owner_automation_id: string | null; id: string | null };

/** Wraps a single-job UPDATE (`$1` job, `$2` automation, `$3` worker, `$4` attempt) so its verdict comes back with it. */
const fenced = (changed: string, changedEvent = "") => `
  with changed as (${changed})${changedEvent}
  select (select automation_id from jobs where id = $1) as owner_automation_id, changed.*
  from (select 1) as one left join changed on true`;

const singleJobFence = `j.id = $1 and j.automation_id = $2 and ${leasedBy("$3", "$4::int")}`;

function verdict(row: FencedRow | undefined, automationId: string): LeasedJobResult {
  if (!row || row.owner_automation_id !== automationId) return { ok: false, refusal: "not_found" };
  if (!row.id) return { ok: false, refusal: "not_leased" };
  return { ok: true, job: jobFromRow(row) };
}

const heartbeatStatement: NamedStatement = {
  name: "hub_jobs_heartbeat",
  text: fenced(`update jobs j set lease_expires_at = now() + make_interval(secs => $5::int) where ${singleJobFence} returning j.*`),
};

/** Extends the lease by `leaseSeconds` from now. */
export async function extendLease(db: Queryable, jobId: string, worker: LeaseHolder, leaseSeconds: number): Promise<LeasedJobResult> {
  const [row] = await runStatement<FencedRow>(db, heartbeatStatement, [jobId, worker.automationId, worker.id, worker.attempt ?? null, leaseSeconds]);
  return verdict(row, worker.automationId);
}

const completeStatement: NamedStatement = {
  name: "hub_jobs_complete",
  text: fenced(
    `update jobs j set status = 'completed', result = $5::jsonb, finished_at = now(), lease_expires_at = null
     where ${singleJobFence} returning j.*`,
    `, completed_event as (
      insert into events (aggregate_id, event_type, actor_id, payload)
      select id, 'job.completed', null, jsonb_build_object('automation_id', automation_id, 'worker_id', worker_id, 'result', result)
      from changed)`,
  ),
};

/** Records the job's result once. */
export async function completeJob(db: Queryable, jobId: string, worker: LeaseHolder, result: Record<string, unknown>): Promise<LeasedJobResult> {
  const [row] = await runStatement<FencedRow>(db, completeStatement, [jobId, worker.automationId, worker.id, worker.attempt ?? null, JSON.stringify(result)]);
  return verdict(row, worker.automationId);
}

const requeues = `($6::boolean and j.attempts < $7::int)`;
const failStatement: NamedStatement = {
  name: "hub_jobs_fail",
  text: fenced(
    `update jobs j set status = case when ${requeues} then 'queued' else 'failed' end, error = $5::text,
       worker_id = case when ${requeues} then null else j.worker_id end,
       started_at = case when ${requeues} then null else j.started_at end,
       finished_at = case when ${requeues} then null else now() end,
       lease_expires_at = null
     where ${singleJobFence} returning j.*`,
    `, failed_event as (
      insert into events (aggregate_id, event_type, actor_id, payload)
      select id, case when status = 'queued' then 'job.requeued' else 'job.failed' end, null,
        case when status = 'queued' then jsonb_build_object('automation_id', automation_id, 'reason', 'retryable_failure', 'attempts', attempts)
             else jsonb_build_object('automation_id', automation_id, 'error', error, 'attempts', attempts) end
      from changed)`,
  ),
};

/**
 * A worker reports failure. Retryable failures go back to `queued` while attempts remain;
 * everything else ends `failed`. `requeued` tells the caller to offer the job again.
 */
export async function failJob(
  db: Queryable,
  jobId: string,
  worker: LeaseHolder,
  failure: { error: string; retryable: boolean; maxAttempts: number },
): Promise<{ ok: true; job: Job; requeued: boolean } | { ok: false; refusal: LeaseRefusal }> {
  const [row] = await runStatement<FencedRow>(db, failStatement, [
    jobId,
    worker.automationId,
    worker.id,
    worker.attempt ?? null,
    failure.error,
    failure.retryable,
    failure.maxAttempts,
  ]);
  const outcome = verdict(row, worker.automationId);
  return outcome.ok ? { ...outcome, requeued: outcome.job.status === "queued" } : outcome;
}

const lapsedRequeues = `j.attempts < $1::int`;
const expireLapsedLeasesStatement: NamedStatement = {
  name: "hub_jobs_expire_lapsed_leases",
  text: `
  with lapsed as (
    select j.id from jobs j where j.status = 'running' and j.lease_expires_at <= now()
    order by j.lease_expires_at limit $2 for update skip locked
  ), expired as (
    update jobs j set status = case when ${lapsedRequeues} then 'queued' else 'failed' end,
      worker_id = case when ${lapsedRequeues} then null else j.worker_id end,
      started_at = case when ${lapsedRequeues} then null else j.started_at end,
      error = case when ${lapsedRequeues} then j.error else 'lease expired' end,
      finished_at = case when ${lapsedRequeues} then null else now() end,
      lease_expires_at = null
    from lapsed where j.id = lapsed.id
    returning j.*
  ), expired_event as (
    insert into events (aggregate_id, event_type, actor_id, payload)
    select id, case when status = 'queued' then 'job.requeued' else 'job.failed' end, null,
      case when status = 'queued' then jsonb_build_object('automation_id', automation_id, 'reason', 'lease_expired', 'attempts', attempts)
           else jsonb_build_object('automation_id', automation_id, 'error', error, 'attempts', attempts) end
    from expired
  )
  select * from expired`,
};

/**
 * Lease sweeper: running jobs whose lease lapsed go back to `queued`, or to `failed` once they have
 * used `maxAttempts`. One statement, safe with many dispatchers (SKIP LOCKED); at most `batchSize`.
 */
export async function expireLapsedLeases(db: Queryable, input: { maxAttempts: number; batchSize: number }): Promise<{ requeued: Job[]; failed: Job[] }> {
  const expired = (await runStatement(db, expireLapsedLeasesStatement, [input.maxAttempts, input.batchSize])).map(jobFromRow);
  return { requeued: expired.filter((job) => job.status === "queued"), failed: expired.filter((job) => job.status === "failed") };
}
