/**
 * Retention (docs/operations.md and docs/CAPACITY.md, "Retention"): the statements that remove what
 * the hub no longer needs once it is older than HUB_RETENTION_DAYS — finished jobs with their
 * events (and their log lines, which the delete of a job takes along by cascade), the events the hub repeats by itself about aggregates that live on, and webhook delivery
 * records. The dispatcher's sweep (apps/dispatcher/src/tasks/retention.ts) runs them in a loop.
 *
 * Each call is one bounded batch in one short transaction:
 * - under a transaction-level advisory lock taken with `try`, so however many dispatchers run, one
 *   batch at a time removes rows and a second sweeper steps aside rather than scanning the same
 *   rows (a transaction lock, not a session one, so it works through any pooler);
 * - picking its rows `FOR UPDATE SKIP LOCKED`, so it never waits on a row someone else holds;
 * - with `lock_timeout` set, so it never queues for long behind another lock either.
 *
 * What is never removed: an event the relay has not published yet (`dispatched_at` null), an event
 * with a webhook delivery still pending, and so a job with such an event (it goes once they are
 * done); a job that an unfinished job lists in `depends_on` (CONTRACT §6.16). References to removed jobs (`retry_of`, a schedule's `last_job_id`) are plain columns
 * (migration 0010 dropped their foreign keys) and dangle: reading the job answers 404.
 */
import { FINISHED_JOB_STATUSES } from "@hub/shared";
import { withTransaction, type Executor } from "../../executor";
import { sqlLiteralList } from "../../sql-literals";

// Advisory lock keys (two-int4 form: class, object), beside the relay's (outbox-partitions.ts).
const RETENTION_LOCK_CLASS = 727_004;

/** Longest wait for a row or table lock inside a batch; a batch that waits longer fails and is retried on the next sweep. */
const LOCK_TIMEOUT = "5s";

/** Rows one batch removed, by table. */
export interface RemovedRows {
  jobs: number;
  events: number;
  webhookDeliveries: number;
  alertHistory: number;
}

/** What a batch did: the rows it removed and how many it picked (fewer than the batch size: nothing more is due). */
export interface RetentionBatch {
  /** Rows picked for removal (jobs, events or deliveries, as the batch's kind says). */
  picked: number;
  removed: RemovedRows;
}

export interface RetentionBatchOptions {
  /** HUB_RETENTION_DAYS, at least 1: rows older than this many days go. */
  retentionDays: number;
  /** Most rows (jobs, events or deliveries) one batch picks. */
  batchSize: number;
}

const NOTHING: RemovedRows = { jobs: 0, events: 0, webhookDeliveries: 0, alertHistory: 0 };

/**
 * Runs `work` in one transaction under the retention lock; resolves with null, having done
 * nothing, when another session holds the lock (another dispatcher is sweeping).
 */
async function underRetentionLock(pool: Executor, work: (client: Executor) => Promise<RetentionBatch>): Promise<RetentionBatch | null> {
  return withTransaction(pool, async (client) => {
    await client.query({ text: `set local lock_timeout = '${LOCK_TIMEOUT}'` });
    const { rows } = await client.query<{ locked: boolean }>({
      name: "retention_try_lock",
      text: "select pg_try_advisory_xact_lock($1, 0) as locked",
      values: [RETENTION_LOCK_CLASS],
    });
    if (rows[0]?.locked !== true) return null;
    return work(client);
  });
}

/**
 * Holds the retention lock until the end of `client`'s open transaction, waiting for a batch that
 * holds it now. Every sweep batch meanwhile finds it taken and ends its sweep, as when another
 * dispatcher sweeps; rows this transaction writes are therefore met whole by the first sweep after
 * its commit (a bulk import, or a test that must see one sweep remove a known set of rows).
 */
export async function holdRetentionLockInTransaction(client: Executor): Promise<void> {
  await client.query({ name: "retention_hold_lock", text: "select pg_advisory_xact_lock($1, 0)", values: [RETENTION_LOCK_CLASS] });
}

const CUTOFF = "now() - make_interval(days => $1::int)";

// Oldest outcome first through the partial jobs_finished_idx; a job with an event the relay has not
// published, or whose delivery is pending, is passed over (and found again by a later sweep).
const PICK_JOBS = {
  name: "retention_pick_jobs",
  text: `select j.id from jobs j
 where j.status in (${sqlLiteralList(FINISHED_JOB_STATUSES)}) and j.finished_at < ${CUTOFF}
   and not exists (
     select 1 from events e
      where e.aggregate_id = j.id
        and (e.dispatched_at is null
             or exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')))
   -- A dependency stays while a job that lists it is unfinished (CONTRACT §6.16); read only for a job with dependents.
   and (j.has_dependents is not true or not exists (
     select 1 from jobs w where w.depends_on @> array[j.id] and w.depends_on is not null
       and w.status not in (${sqlLiteralList(FINISHED_JOB_STATUSES)})))
 order by j.finished_at
 limit $2
 for update of j skip locked`,
};

/** The statement a job batch picks its jobs with ($1 days, $2 batch size), exported for EXPLAIN in benchmarks. */
export const RETENTION_PICK_JOBS_SQL = PICK_JOBS.text;

const DELETE_DELIVERIES_OF_JOBS = {
  name: "retention_delete_deliveries_of_jobs",
  text: `delete from webhook_deliveries d using events e
 where e.aggregate_id = any($1::uuid[]) and d.event_id = e.id and d.status <> 'pending'`,
};

// Re-checked here: a delivery redelivered (pending again) since the pick keeps its event, and the
// job then stays (DELETE_JOBS), to go with it in a later sweep.
const DELETE_EVENTS_OF_JOBS = {
  name: "retention_delete_events_of_jobs",
  text: `delete from events e
 where e.aggregate_id = any($1::uuid[]) and e.dispatched_at is not null
   and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)`,
};

const DELETE_JOBS = {
  name: "retention_delete_jobs",
  text: `delete from jobs j where j.id = any($1::uuid[]) and not exists (select 1 from events e where e.aggregate_id = j.id)`,
};

/**
 * Removes up to `batchSize` jobs that finished (completed, failed, cancelled) more than
 * `retentionDays` ago, with their events and those events' finished webhook deliveries, oldest
 * first. Null when another sweeper holds the lock.
 */
export async function removeExpiredJobs(pool: Executor, options: RetentionBatchOptions): Promise<RetentionBatch | null> {
  return underRetentionLock(pool, async (client) => {
    const picked = await client.query<{ id: string }>({ ...PICK_JOBS, values: [options.retentionDays, options.batchSize] });
    const ids = picked.rows.map((row) => row.id);
    if (ids.length === 0) return { picked: 0, removed: NOTHING };
    const deliveries = await client.query({ ...DELETE_DELIVERIES_OF_JOBS, values: [ids] });
    const events = await client.query({ ...DELETE_EVENTS_OF_JOBS, values: [ids] });
    const jobs = await client.query({ ...DELETE_JOBS, values: [ids] });
    return { picked: ids.length, removed: { ...NOTHING, jobs: jobs.rowCount ?? 0, events: events.rowCount ?? 0, webhookDeliveries: deliveries.rowCount ?? 0 } };
  });
}

// Oldest first through events_type_created_idx (event_type, created_at, id): one type per call, so
// the index hands the rows over in order and the scan stops at the batch size.
const PICK_EVENTS_OF_TYPE = {
  name: "retention_pick_events_of_type",
  text: `select e.id from events e
 where e.event_type = $3 and e.created_at < ${CUTOFF} and e.dispatched_at is not null
   and not exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'pending')
 order by e.created_at
 limit $2
 for update of e skip locked`,
};

const DELETE_DELIVERIES_OF_EVENTS = {
  name: "retention_delete_deliveries_of_events",
  text: `delete from webhook_deliveries d where d.event_id = any($1::uuid[]) and d.status <> 'pending'`,
};

const DELETE_EVENTS = {
  name: "retention_delete_events",
  text: `delete from events e where e.id = any($1::uuid[]) and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)`,
};

/**
 * Removes up to `batchSize` events of `eventType` older than `retentionDays` (for the types the
 * catalogue marks `age`: EVENT_TYPES_REMOVED_BY_AGE), with their finished webhook deliveries,
 * oldest first. Null when another sweeper holds the lock.
 */
export async function removeExpiredEventsOfType(pool: Executor, eventType: string, options: RetentionBatchOptions): Promise<RetentionBatch | null> {
  return underRetentionLock(pool, async (client) => {
    const picked = await client.query<{ id: string }>({ ...PICK_EVENTS_OF_TYPE, values: [options.retentionDays, options.batchSize, eventType] });
    const ids = picked.rows.map((row) => row.id);
    if (ids.length === 0) return { picked: 0, removed: NOTHING };
    const deliveries = await client.query({ ...DELETE_DELIVERIES_OF_EVENTS, values: [ids] });
    const events = await client.query({ ...DELETE_EVENTS, values: [ids] });
    return { picked: ids.length, removed: { ...NOTHING, events: events.rowCount ?? 0, webhookDeliveries: deliveries.rowCount ?? 0 } };
  });
}

// Per subscription (deleted ones included: their log stays until it ages out), oldest first through
// webhook_deliveries_list_idx (webhook_id, created_at, id). Pending deliveries are never picked.
const DELETE_FINISHED_DELIVERIES = {
  name: "retention_delete_finished_deliveries",
  text: `with picked as (
  select d.id from webhooks w
  cross join lateral (
    select d.id from webhook_deliveries d
     where d.webhook_id = w.id and d.status <> 'pending' and d.created_at < ${CUTOFF}
     order by d.created_at
     limit $2
     for update of d skip locked
  ) d
  limit $2
)
delete from webhook_deliveries d using picked where d.id = picked.id`,
};

/**
 * Removes up to `batchSize` delivered or failed webhook deliveries created more than
 * `retentionDays` ago (the delivery log of `GET /webhooks/{id}/deliveries`), whatever their event.
 * Null when another sweeper holds the lock.
 */
export async function removeExpiredWebhookDeliveries(pool: Executor, options: RetentionBatchOptions): Promise<RetentionBatch | null> {
  return underRetentionLock(pool, async (client) => {
    const deleted = await client.query({ ...DELETE_FINISHED_DELIVERIES, values: [options.retentionDays, options.batchSize] });
    const removed = deleted.rowCount ?? 0;
    return { picked: removed, removed: { ...NOTHING, webhookDeliveries: removed } };
  });
}

// Oldest first through alert_history_resolved_idx (resolved_at, id).
const DELETE_RESOLVED_ALERTS = {
  name: "retention_delete_resolved_alerts",
  text: `with picked as (
  select id from alert_history where resolved_at < ${CUTOFF} order by resolved_at, id limit $2 for update skip locked
)
delete from alert_history h using picked where h.id = picked.id`,
};

/**
 * Removes up to `batchSize` entries of the alert history (`GET /alerts?state=resolved`) resolved
 * more than `retentionDays` ago. Firing alerts live in `alert_states` and are never touched. Null when
 * another sweeper holds the lock.
 */
export async function removeExpiredAlertHistory(pool: Executor, options: RetentionBatchOptions): Promise<RetentionBatch | null> {
  return underRetentionLock(pool, async (client) => {
    const deleted = await client.query({ ...DELETE_RESOLVED_ALERTS, values: [options.retentionDays, options.batchSize] });
    const removed = deleted.rowCount ?? 0;
    return { picked: removed, removed: { ...NOTHING, alertHistory: removed } };
  });
}
