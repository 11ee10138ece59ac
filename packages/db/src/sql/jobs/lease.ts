/**
 * A worker's calls about the jobs it holds — heartbeat, complete, fail, one at a time or in
 * batches — and the lease sweeper. Each is one named prepared statement: the lease fence, the
 * change and its outbox event in one round trip, no explicit transaction (batches: lease-batch.ts).
 *
 * The fence: a job of another automation is `not_found`; a job not `running` under this worker's
 * unexpired lease (in the attempt the worker names, if it names one) is `not_leased`, and nothing
 * changes. The UPDATE re-checks its WHERE on the row's latest version when it had to wait for a
 * concurrent change (cancel, sweep), so the verdict is never taken on a stale row. Statements
 * touching several rows lock them in id order, as unregistering does (requeue.ts), so two
 * of them never deadlock; none locks an automation row, so none can deadlock with a claim.
 */
import type { Job } from "../../schema";
import { fromRow, leasedBy, ofAutomation } from "./row";
import { runStatement, type NamedStatement, type Executor } from "../../executor";
import { signalNotifySql } from "../workers/signals";

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
export type FencedRow = Record<string, unknown> & { owner_automation_id: string | null; id: string | null };

/** Wraps a single-job UPDATE (`$1` job, `$2` automation, `$3` worker, `$4` attempt) so its verdict comes back with it. */
const fenced = (changed: string, changedEvent = "") => `
  with changed as (${changed})${changedEvent}
  select (select automation_id from jobs where id = $1) as owner_automation_id, changed.*
  from (select 1) as one left join changed on true`;

/** ISO 8601 in UTC with milliseconds and `Z`, as the API writes times. */
const isoTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const singleJobFence = `j.id = $1 and ${ofAutomation("$2")} and ${leasedBy("$3", "$4::int")}`;

/** Why a fenced statement's row refuses the call, or null when the statement changed the job. */
function refusalOf(row: FencedRow | undefined, automationId: string): LeaseRefusal | null {
  if (!row || row.owner_automation_id !== automationId) return "not_found";
  return row.id ? null : "not_leased";
}

/** What a fenced statement's row says: the changed job, or why the call was refused. */
export function fencedVerdict(row: FencedRow | undefined, automationId: string): LeasedJobResult {
  const refusal = refusalOf(row, automationId);
  return refusal ? { ok: false, refusal } : { ok: true, job: fromRow(row!) };
}

// $6 true: the progress becomes {percent $7, message $8, updated_at now} (CONTRACT §6.12); false: unchanged.
const heartbeatStatement: NamedStatement = {
  name: "hub_jobs_heartbeat",
  text: fenced(`update jobs j set lease_expires_at = now() + make_interval(secs => $5::int),
    progress = case when $6::boolean then jsonb_build_object('percent', $7::float8, 'message', $8::text, 'updated_at', ${isoTime("now()")}) else j.progress end
    where ${singleJobFence} returning j.id, j.lease_expires_at`),
};

/** A heartbeat's progress: it replaces the whole (an omitted field is null). */
export interface ProgressReport {
  percent: number | null;
  message: string | null;
}

/** A heartbeat's verdict: the new lease's end, or why it was refused. */
export type ExtendedLease = { ok: true; leaseExpiresAt: Date } | { ok: false; refusal: LeaseRefusal };

/**
 * Extends the lease by `leaseSeconds` from now; with `progress`, replaces the job's progress too.
 * Only the lease's end comes back: the heartbeat answers nothing else, and the whole row would cost
 * every heartbeat the parsing of each of its columns.
 */
export async function extendLease(
  db: Executor,
  jobId: string,
  worker: LeaseHolder,
  leaseSeconds: number,
  progress?: ProgressReport | undefined,
): Promise<ExtendedLease> {
  const [row] = await runStatement<FencedRow & { lease_expires_at: Date | null }>(db, heartbeatStatement, [
    jobId,
    worker.automationId,
    worker.id,
    worker.attempt ?? null,
    leaseSeconds,
    progress !== undefined,
    progress?.percent ?? null,
    progress?.message ?? null,
  ]);
  const refusal = refusalOf(row, worker.automationId);
  return refusal ? { ok: false, refusal } : { ok: true, leaseExpiresAt: row!.lease_expires_at! };
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
export async function complete(db: Executor, jobId: string, worker: LeaseHolder, result: Record<string, unknown>): Promise<LeasedJobResult> {
  const [row] = await runStatement<FencedRow>(db, completeStatement, [jobId, worker.automationId, worker.id, worker.attempt ?? null, JSON.stringify(result)]);
  return fencedVerdict(row, worker.automationId);
}

/** Longest back-off after a failed attempt (CONTRACT §6.4), in seconds. */
export const MAX_RETRY_BACKOFF_SECONDS = 3600;

/**
 * When a failed attempt of job `j` (automation `a`) may run again: `retry_backoff_seconds ×
 * 2^(attempts−1)`, ±20 % jitter (so jobs that failed together do not come back together), at most
 * {@link MAX_RETRY_BACKOFF_SECONDS}. Capped before `make_interval`, which would overflow at 2^99.
 * PostgreSQL's clock, like every other time the claim compares.
 */
const backedOffAvailableAt = `now() + make_interval(secs => least(${MAX_RETRY_BACKOFF_SECONDS}::float8,
  a.retry_backoff_seconds * power(2::float8, greatest(j.attempts - 1, 0)) * (0.8 + random() * 0.4)))`;

/** Attempts left for job `j` of automation `a`: its own max_attempts, else the hub's default `defaultParam`. */
const attemptsLeft = (defaultParam: string) => `j.attempts < coalesce(a.max_attempts, ${defaultParam}::int)`;

/**
 * The SET list that ends an attempt that failed: when `requeues` holds, back to `queued` after the
 * back-off (the error stays for the reader; the progress is reset), else `failed` with `error`.
 */
const endFailedAttempt = (requeues: string, error: string) => `
  status = case when ${requeues} then 'queued' else 'failed' end, error = ${error},
  worker_id = case when ${requeues} then null else j.worker_id end,
  started_at = case when ${requeues} then null else j.started_at end,
  finished_at = case when ${requeues} then null else now() end,
  available_at = case when ${requeues} then ${backedOffAvailableAt} else j.available_at end,
  progress = case when ${requeues} then null else j.progress end,
  lease_expires_at = null`;

/** The event of an ended attempt (rows of `source`): `job.requeued` with `reason` and `available_at`, or `job.failed`. */
const endedAttemptEvent = (source: string, reason: string) => `
  insert into events (aggregate_id, event_type, actor_id, payload)
  select id, case when status = 'queued' then 'job.requeued' else 'job.failed' end, null,
    case when status = 'queued' then jsonb_build_object('automation_id', automation_id, 'reason', ${reason}, 'attempts', attempts,
                                                        'available_at', ${isoTime("available_at")})
         else jsonb_build_object('automation_id', automation_id, 'error', error, 'attempts', attempts) end
  from ${source}`;

const failStatement: NamedStatement = {
  name: "hub_jobs_fail",
  text: fenced(
    `update jobs j set ${endFailedAttempt(`($6::boolean and ${attemptsLeft("$7")})`, "$5::text")}
     from automations a where a.id = j.automation_id and ${singleJobFence} returning j.*`,
    `, failed_event as (${endedAttemptEvent("changed", "'retryable_failure'")})`,
  ),
};

/**
 * A worker reports failure. Retryable failures go back to `queued` while attempts remain (the
 * automation's `max_attempts`, else `failure.maxAttempts`, the hub's default), claimable after the
 * back-off; everything else ends `failed`. `requeued` tells the caller to offer the job again.
 */
export async function fail(
  db: Executor,
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
  const outcome = fencedVerdict(row, worker.automationId);
  return outcome.ok ? { ...outcome, requeued: outcome.job.status === "queued" } : outcome;
}

/**
 * Running jobs that must end now, oldest first, locked (SKIP LOCKED: sweepers of several
 * dispatchers share the work): `$2` at most.
 */
const sweep = (name: string, due: string, order: string, reason: string, error: string): NamedStatement => ({
  name,
  text: `
  with due as (
    select j.id, j.worker_id, j.attempts from jobs j join automations a on a.id = j.automation_id
    where j.status = 'running' and ${due}
    order by ${order} limit $2 for update of j skip locked
  ), ended as (
    update jobs j set ${endFailedAttempt(attemptsLeft("$1"), error)}
    from due, automations a where j.id = due.id and a.id = j.automation_id
    returning j.*
  ), ended_event as (${endedAttemptEvent("ended", reason)}),
  signalled as (
    select count(${signalNotifySql("due.worker_id", "due.id", "due.attempts", reason)}) as sent
    from due join ended on ended.id = due.id where due.worker_id is not null
  )
  -- signalled is one row (an aggregate), read so that its notifications are sent.
  select ended.* from ended, signalled`,
});

const expireLapsedLeasesStatement = sweep(
  "hub_jobs_expire_lapsed_leases",
  "j.lease_expires_at <= now()",
  "j.lease_expires_at",
  "'lease_expired'",
  "case when " + attemptsLeft("$1") + " then j.error else 'lease expired' end",
);

// Running longer than the automation's timeout, heartbeats or not (CONTRACT §6.4): the planner
// walks the automations that set one and their running jobs (jobs_automation_status_created_idx).
const expireTimedOutJobsStatement = sweep(
  "hub_jobs_expire_timed_out",
  "a.timeout_seconds is not null and j.started_at <= now() - make_interval(secs => a.timeout_seconds)",
  "j.started_at",
  "'timeout'",
  "'timeout'",
);

/**
 * Both sweeps in one statement, for the dispatcher's one timer: a sweep that finds nothing costs
 * one round trip, not two. The two selections are disjoint (a lapsed job is the lease branch's,
 * even past its timeout, as when the sweeps ran one after the other), each oldest first and at most
 * `$2`; each ended row says which ended it (`sweep_reason`).
 */
const expireOverdueStatement: NamedStatement = {
  name: "hub_jobs_expire_overdue",
  text: `
  with lapsed as (
    select j.id, j.worker_id, j.attempts, 'lease_expired'::text as reason from jobs j
    where j.status = 'running' and j.lease_expires_at <= now()
    order by j.lease_expires_at limit $2 for update of j skip locked
  ), timed_out as (
    select j.id, j.worker_id, j.attempts, 'timeout'::text as reason from jobs j join automations a on a.id = j.automation_id
    where j.status = 'running' and a.timeout_seconds is not null and j.started_at <= now() - make_interval(secs => a.timeout_seconds)
      and (j.lease_expires_at <= now()) is not true
    order by j.started_at limit $2 for update of j skip locked
  ), due as (
    select * from lapsed union all select * from timed_out
  ), ended as (
    update jobs j set ${endFailedAttempt(
      attemptsLeft("$1"),
      `case when due.reason = 'timeout' then 'timeout' when ${attemptsLeft("$1")} then j.error else 'lease expired' end`,
    )}
    from due, automations a where j.id = due.id and a.id = j.automation_id
    returning j.*, due.reason as sweep_reason
  ), ended_event as (${endedAttemptEvent("ended", "sweep_reason")}),
  signalled as (
    select count(${signalNotifySql("due.worker_id", "due.id", "due.attempts", "due.reason")}) as sent
    from due join ended on ended.id = due.id where due.worker_id is not null
  )
  -- signalled is one row (an aggregate), read so that its notifications are sent.
  select ended.* from ended, signalled`,
};

/** What {@link expireOverdue} did, by sweep. */
export interface OverdueSweep {
  leases: SweptJobs;
  timeouts: SweptJobs;
}

/**
 * {@link expireLapsedLeases} and {@link expireTimedOut} in one statement (same effects, events and
 * signals): at most `batchSize` of each; a sweep that got a full batch of either should run again.
 */
export async function expireOverdue(db: Executor, input: { maxAttempts: number; batchSize: number }): Promise<OverdueSweep> {
  const rows = await runStatement<Record<string, unknown>>(db, expireOverdueStatement, [input.maxAttempts, input.batchSize]);
  const swept = (reason: string): SweptJobs => {
    const ended = rows.filter((row) => row.sweep_reason === reason).map(fromRow);
    return { requeued: ended.filter((job) => job.status === "queued"), failed: ended.filter((job) => job.status === "failed") };
  };
  return { leases: swept("lease_expired"), timeouts: swept("timeout") };
}

/** What a sweep did: jobs back in `queued` (offer them) and jobs now `failed` (their slots are free). */
export interface SweptJobs {
  requeued: Job[];
  failed: Job[];
}

async function runSweep(db: Executor, statement: NamedStatement, input: { maxAttempts: number; batchSize: number }): Promise<SweptJobs> {
  const ended = (await runStatement(db, statement, [input.maxAttempts, input.batchSize])).map(fromRow);
  return { requeued: ended.filter((job) => job.status === "queued"), failed: ended.filter((job) => job.status === "failed") };
}

/**
 * Lease sweeper: running jobs whose lease lapsed go back to `queued` after the back-off, or to
 * `failed` once they have used their attempts, each with a signal to its worker (../workers/signals.ts) (`maxAttempts`: the hub's default where the
 * automation sets none). One statement, safe with many dispatchers (SKIP LOCKED); at most `batchSize`.
 */
export async function expireLapsedLeases(db: Executor, input: { maxAttempts: number; batchSize: number }): Promise<SweptJobs> {
  return runSweep(db, expireLapsedLeasesStatement, input);
}

/**
 * Timeout sweeper: running jobs older than their automation's `timeout_seconds` end as a
 * retryable failure with error `timeout` (back-off applies, the attempt counts); the worker's later
 * calls about them get 409. Same batching and locking as {@link expireLapsedLeases}.
 */
export async function expireTimedOut(db: Executor, input: { maxAttempts: number; batchSize: number }): Promise<SweptJobs> {
  return runSweep(db, expireTimedOutJobsStatement, input);
}
