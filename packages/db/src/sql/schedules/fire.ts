/**
 * Firing schedules (CONTRACT §6.9): any number of dispatchers, no leader, exactly one job per fire.
 *
 * A fire pass is one transaction of three statements, whatever the number of schedules it fires:
 * 1. lock the due schedules (`next_run_at <= now()`), earliest first, `FOR UPDATE SKIP LOCKED`,
 *    with their automation `FOR KEY SHARE SKIP LOCKED` — what a job insert takes anyway, so a
 *    deactivation (`FOR UPDATE`) either waits for the pass or committed first and disabled the
 *    schedule. Nothing here ever waits on a lock, so a pass cannot deadlock with anything. A
 *    schedule another dispatcher fired meanwhile is re-checked on its new `next_run_at` and
 *    dropped: the row lock is the compare-and-set;
 * 2. the caller decides each schedule's fires from what was read (cron in JavaScript);
 * 3. one statement inserts the jobs with their `job.created` events, the `schedule.skipped`
 *    events, and moves every schedule's `next_run_at` (and `last_run_at`, `last_job_id`).
 * The unique index on `jobs (schedule_id, fire_time)` is the last word: a second job for a fire
 * cannot commit, whatever happens above.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { HELD_JOB_STATUS, type ScheduleOverlapPolicy, type ScheduleSkipReason } from "@hub/shared";
import { contextFitsParameters, type JobTrace } from "../jobs/insert";
import { APPROVAL_COLUMNS, APPROVAL_RETURNING, approvalRequestedPayload, approvalValues } from "../jobs/approval-columns";
import type { JobRef } from "../jobs/dispatch-scan";
import { runStatement, withTransaction, type NamedStatement, type Executor } from "../../executor";

/** A due schedule a fire pass holds, with what deciding its fires needs. */
export interface DueSchedule {
  id: string;
  automationId: string;
  cron: string;
  timezone: string;
  overlap: ScheduleOverlapPolicy;
  /** The fire that is due (≤ `now`). */
  nextRunAt: Date;
  /** A job of this schedule is still queued or running (the `overlap: "skip"` check). */
  hasActiveJob: boolean;
  /** The schedule's context still fits its automation's parameters (each a string). */
  contextFits: boolean;
}

/** One fire of a schedule: a job created, or skipped and why. */
export interface ScheduleFire {
  fireTime: Date;
  outcome: "created" | ScheduleSkipReason;
  /** The fire's own trace (CONTRACT §6.20), stored with the job it creates; only while tracing is on. */
  trace?: JobTrace | undefined;
}

/** What a pass decided for one locked schedule: its fires, in time order, and its next fire time. */
export interface ScheduleAdvance {
  scheduleId: string;
  fires: ScheduleFire[];
  /** Null: the expression fires never again. */
  nextRunAt: Date | null;
}

/** A job a fire created: what dispatch needs, and the fire it belongs to. */
export interface FiredJobRef extends JobRef {
  scheduleId: string;
  fireTime: Date;
  /** Created held, awaiting approval (CONTRACT §6.17): offered once approved, not now. */
  held: boolean;
}

export interface FirePassOutcome {
  /** Due schedules this pass held (0: none due, or all held by other passes). */
  locked: number;
  created: FiredJobRef[];
  skipped: Array<{ scheduleId: string; fireTime: Date; reason: ScheduleSkipReason }>;
}

const lockDueStatement: NamedStatement = {
  name: "schedules_lock_due",
  text: `
select s.id, s.automation_id, s.cron, s.timezone, s.overlap, s.next_run_at, now() as now,
  exists (select 1 from jobs j where j.schedule_id = s.id and j.status in ('queued', 'held', 'running')) as has_active_job,
  ${contextFitsParameters("s.context", "a.parameters")} as context_fits
from schedules s join automations a on a.id = s.automation_id
where s.next_run_at <= now() and a.is_active
order by s.next_run_at
limit $1
for update of s skip locked
for key share of a skip locked`,
};

interface DueRow extends pg.QueryResultRow {
  id: string;
  automation_id: string;
  cron: string;
  timezone: string;
  overlap: ScheduleOverlapPolicy;
  next_run_at: Date;
  now: Date;
  has_active_job: boolean;
  context_fits: boolean;
}

// The fires as parallel arrays zipped WITH ORDINALITY (input order kept); the schedules' new
// positions likewise. Jobs are created as POST /jobs would (the schedule's context and priority,
// no creator), each job.created carrying schedule_id and fire_time (CONTRACT §4). The key value comes
// from the automation row the pass has held FOR KEY SHARE since its first statement (functions/hub_job_key_value.sql says why).
//
// With `traced`, the fires' trace contexts ($9, $10) are stored with their jobs: a second named
// statement, so a dispatcher that does not trace sends exactly the statement it always did.
const recordFiresStatementOf = (traced: boolean): NamedStatement => ({
  name: traced ? "schedules_record_fires_traced" : "schedules_record_fires",
  text: `
with fire as (
  select * from rows from (unnest($1::uuid[]), unnest($2::text[]), unnest($3::text[]), unnest($4::uuid[])${traced ? ", unnest($9::text[]), unnest($10::text[])" : ""})
    with ordinality as fire(schedule_id, fire_time, outcome, job_id${traced ? ", traceparent, tracestate" : ""}, position)
), created as (
  insert into jobs (id, automation_id, context, priority, created_by, schedule_id, fire_time, key_value, ${APPROVAL_COLUMNS}${traced ? ", traceparent, tracestate" : ""})
  select fire.job_id, s.automation_id, s.context, s.priority, null, s.id, fire.fire_time::timestamptz,
    hub_job_key_value_of(s.context, a.concurrency_key), ${approvalValues("a.requires_approval", "a.approval_timeout_seconds")}${traced ? ", fire.traceparent, fire.tracestate" : ""}
  from fire join schedules s on s.id = fire.schedule_id join automations a on a.id = s.automation_id
  where fire.outcome = 'created'
  order by fire.position
  returning id, automation_id, context, schedule_id, created_at, available_at, seq, priority, status, ${APPROVAL_RETURNING}
), created_event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select aggregate_id, event_type, null::uuid, payload from (
    select created.id as aggregate_id, 'job.created' as event_type,
      jsonb_build_object('automation_id', created.automation_id, 'context', created.context,
        'schedule_id', created.schedule_id, 'fire_time', fire.fire_time) as payload, fire.position, 0 as step
    from created join fire on fire.job_id = created.id
    union all
    -- §6.17: a fire of an automation that requires approval asks for one.
    select created.id, 'job.approval_requested', ${approvalRequestedPayload("created")}, fire.position, 1
    from created join fire on fire.job_id = created.id where created.approval_status = 'pending'
  ) e order by position, step
), skipped_event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select fire.schedule_id, 'schedule.skipped', null, jsonb_build_object('fire_time', fire.fire_time, 'reason', fire.outcome)
  from fire where fire.outcome <> 'created'
  order by fire.position
), advanced as (
  update schedules s
  set next_run_at = advance.next_run_at,
      last_run_at = coalesce(advance.last_run_at, s.last_run_at),
      last_job_id = coalesce(advance.last_job_id, s.last_job_id)
  from unnest($5::uuid[], $6::timestamptz[], $7::timestamptz[], $8::uuid[]) as advance(id, next_run_at, last_run_at, last_job_id)
  where s.id = advance.id
)
select id, automation_id, created_at, available_at, seq, priority, status from created`,
});
const recordFiresStatement = recordFiresStatementOf(false);
const recordFiresTracedStatement = recordFiresStatementOf(true);

interface CreatedRow extends pg.QueryResultRow {
  id: string;
  automation_id: string;
  created_at: Date;
  available_at: Date;
  seq: string;
  priority: number;
  status: string;
}

/** The fires and the schedules' new positions as the statement's arrays; job ids drawn here. */
function recordFiresValues(advances: readonly ScheduleAdvance[]) {
  const fireColumns = { scheduleIds: [] as string[], fireTimes: [] as string[], outcomes: [] as string[], jobIds: [] as (string | null)[] };
  const traceColumns = { traceparents: [] as (string | null)[], tracestates: [] as (string | null)[] };
  const advanceColumns = { ids: [] as string[], nextRunAt: [] as (Date | null)[], lastRunAt: [] as (Date | null)[], lastJobId: [] as (string | null)[] };
  const fireOfJob = new Map<string, { scheduleId: string; fireTime: Date }>();
  for (const advance of advances) {
    let last: { fireTime: Date; jobId: string } | undefined;
    for (const fire of advance.fires) {
      const jobId = fire.outcome === "created" ? randomUUID() : null;
      fireColumns.scheduleIds.push(advance.scheduleId);
      fireColumns.fireTimes.push(fire.fireTime.toISOString());
      fireColumns.outcomes.push(fire.outcome);
      fireColumns.jobIds.push(jobId);
      traceColumns.traceparents.push(fire.trace?.traceparent ?? null);
      traceColumns.tracestates.push(fire.trace?.tracestate ?? null);
      if (jobId) {
        last = { fireTime: fire.fireTime, jobId };
        fireOfJob.set(jobId, { scheduleId: advance.scheduleId, fireTime: fire.fireTime });
      }
    }
    advanceColumns.ids.push(advance.scheduleId);
    advanceColumns.nextRunAt.push(advance.nextRunAt);
    advanceColumns.lastRunAt.push(last?.fireTime ?? null);
    advanceColumns.lastJobId.push(last?.jobId ?? null);
  }
  const values = [
    fireColumns.scheduleIds,
    fireColumns.fireTimes,
    fireColumns.outcomes,
    fireColumns.jobIds,
    advanceColumns.ids,
    advanceColumns.nextRunAt,
    advanceColumns.lastRunAt,
    advanceColumns.lastJobId,
  ];
  const traced = traceColumns.traceparents.some((traceparent) => traceparent !== null);
  if (traced) values.push(traceColumns.traceparents, traceColumns.tracestates);
  return { values, fireOfJob, traced };
}

/**
 * One fire pass over at most `limit` due schedules, in one transaction (see the module comment):
 * `decide` gets the schedules this pass holds and PostgreSQL's `now()` (the transaction's start,
 * also the new jobs' `created_at`), and returns each one's fires and next fire time. Every schedule
 * it was given must be in its answer (its `next_run_at` moves, or it would be due again at once).
 */
export async function fireDue(pool: Executor, limit: number, decide: (due: readonly DueSchedule[], now: Date) => ScheduleAdvance[]): Promise<FirePassOutcome> {
  return withTransaction(pool, async (client) => {
    const rows = await runStatement<DueRow>(client, lockDueStatement, [limit]);
    if (rows.length === 0) return { locked: 0, created: [], skipped: [] };
    const due = rows.map((row): DueSchedule => ({
      id: row.id,
      automationId: row.automation_id,
      cron: row.cron,
      timezone: row.timezone,
      overlap: row.overlap,
      nextRunAt: row.next_run_at,
      hasActiveJob: row.has_active_job,
      contextFits: row.context_fits,
    }));
    const advances = decide(due, rows[0]!.now);
    const held = new Set(due.map((schedule) => schedule.id));
    if (advances.length !== held.size || advances.some((advance) => !held.delete(advance.scheduleId))) {
      throw new Error("a fire pass must advance every schedule it holds, once");
    }
    const { values, fireOfJob, traced } = recordFiresValues(advances);
    const created = await runStatement<CreatedRow>(client, traced ? recordFiresTracedStatement : recordFiresStatement, values);
    return {
      locked: due.length,
      created: created.map((row) => ({
        id: row.id,
        automationId: row.automation_id,
        createdAt: row.created_at,
        availableAt: row.available_at,
        seq: Number(row.seq),
        priority: row.priority,
        held: row.status === HELD_JOB_STATUS,
        ...fireOfJob.get(row.id)!,
      })),
      skipped: advances.flatMap((advance) =>
        advance.fires.flatMap((fire) =>
          fire.outcome === "created" ? [] : [{ scheduleId: advance.scheduleId, fireTime: fire.fireTime, reason: fire.outcome }],
        ),
      ),
    };
  });
}

const nextFireStatement: NamedStatement = {
  name: "schedules_next_fire",
  text: `
select extract(epoch from (s.next_run_at - now())) * 1000 as due_in_ms
from schedules s
where s.next_run_at is not null
  and exists (select 1 from automations a where a.id = s.automation_id and a.is_active)
order by s.next_run_at
limit 1`,
};

/**
 * Milliseconds until the earliest fire of any enabled schedule on PostgreSQL's clock (≤ 0: one
 * is due), or null when none is enabled. One index probe and no transaction: what a dispatcher's
 * timer pays while every schedule waits.
 */
export async function msUntilNextFire(db: Executor): Promise<number | null> {
  const [row] = await runStatement<{ due_in_ms: string | number }>(db, nextFireStatement, []);
  return row ? Number(row.due_in_ms) : null;
}
