/**
 * A hub's history written straight into the database with `generate_series`, for retention tests
 * and the `scale` benchmark: finished jobs with their events, and the events the hub repeats by
 * itself (`worker.status_changed`, `schedule.skipped`), spread over a window of past days. Sizes
 * and ages are what matter here, not lives: each job has a `job.created`, a `job.started` and its
 * terminal event, all already published (`dispatched_at` set), so the relay has nothing to do.
 */
import type pg from "pg";
import type { Executor } from "@hub/db";

/** The outcomes of seeded jobs, by `i % 100`: 90 % completed, 7 % failed, 3 % cancelled. */
const STATUS_OF_INDEX = "case when i % 100 < 90 then 'completed' when i % 100 < 97 then 'failed' else 'cancelled' end";

/**
 * Seeded job i has the context `{invoice_id: "inv-<i>", customer_id: "cust-<i mod HISTORY_CUSTOMERS>"}`:
 * an invoice matches one job, a customer 1 / HISTORY_CUSTOMERS of them (10,000 of 5 million, the
 * most CONTRACT §6.14's context-filter target names).
 */
export const HISTORY_CUSTOMERS = 500;

/** Rows one seeding statement writes at most (one transaction each, so progress shows and WAL stays modest). */
export const HISTORY_CHUNK = 50_000;

export interface HistoryWindow {
  /** The newest rows end this many days ago (0 = now). */
  newestDaysAgo: number;
  /** The oldest rows end this many days ago. */
  oldestDaysAgo: number;
}

export interface SeedHistoryOptions {
  /** The automations the jobs are spread over (round robin). */
  automationIds: readonly string[];
  /** Finished jobs, each with 3 events. */
  jobs: number;
  /** `worker.status_changed` (aggregate: an automation) and `schedule.skipped` (aggregate: a made-up schedule id) events, half each. */
  selfGrowingEvents: number;
  /** Their `finished_at` / `created_at` are spread evenly over this window, oldest first. */
  window: HistoryWindow;
  /** Called after each statement with the rows written so far. */
  onProgress?: (written: { jobs: number; events: number }) => void;
}

/** What {@link seedHistory} wrote. */
export interface SeededHistory {
  jobs: number;
  /** Events of the jobs plus the self-growing ones. */
  events: number;
}

/** The moment of row `i` of `count`, spread over the window, oldest first, as SQL. */
function momentOf(window: HistoryWindow, count: number): string {
  return `now() - make_interval(secs => (${window.oldestDaysAgo}::float8 - (${window.oldestDaysAgo - window.newestDaysAgo}::float8 * i / ${Math.max(count, 1)})) * 86400)`;
}

const SEED_JOBS = (window: HistoryWindow, count: number) => `
with automation as (select $3::uuid[] as ids),
job as (
  insert into jobs (automation_id, status, context, result, error, attempts, created_at, available_at, started_at, finished_at)
  select a.ids[1 + (i % cardinality(a.ids))], s.status, jsonb_build_object('invoice_id', 'inv-' || i, 'customer_id', 'cust-' || (i % ${HISTORY_CUSTOMERS})),
    case when s.status = 'completed' then jsonb_build_object('rows', i % 1000) end,
    case when s.status = 'failed' then 'the ledger refused invoice inv-' || i end,
    case when s.status = 'cancelled' then 0 else 1 end,
    s.finished_at - interval '12 seconds', s.finished_at - interval '12 seconds',
    case when s.status <> 'cancelled' then s.finished_at - interval '10 seconds' end, s.finished_at
  from generate_series($1::int, $2::int) as i
  cross join automation a
  cross join lateral (select ${STATUS_OF_INDEX} as status, ${momentOf(window, count)} as finished_at) s
  returning id, automation_id, status, context, result, error, created_at, started_at, finished_at
),
event as (
  insert into events (aggregate_id, event_type, payload, created_at, dispatched_at)
  select j.id, e.event_type, e.payload, e.at, e.at + interval '5 milliseconds'
  from job j
  cross join lateral (values
    (1, 'job.created', jsonb_build_object('automation_id', j.automation_id, 'context', j.context), j.created_at),
    (2, 'job.started', jsonb_build_object('automation_id', j.automation_id, 'worker_id', gen_random_uuid(), 'attempt', 1), j.started_at),
    (3, 'job.' || j.status, case j.status
       when 'completed' then jsonb_build_object('automation_id', j.automation_id, 'worker_id', gen_random_uuid(), 'result', j.result)
       when 'failed' then jsonb_build_object('automation_id', j.automation_id, 'error', j.error, 'attempts', 1)
       else jsonb_build_object('automation_id', j.automation_id, 'reason', 'cancelled_by_user') end, j.finished_at)
  ) as e(n, event_type, payload, at)
  where e.at is not null
  order by j.finished_at, e.n
  returning 1
)
select (select count(*) from job)::int as jobs, (select count(*) from event)::int as events`;

const SEED_SELF_GROWING = (window: HistoryWindow, count: number) => `
with automation as (select $3::uuid[] as ids)
insert into events (aggregate_id, event_type, payload, created_at, dispatched_at)
select case when i % 2 = 0 then a.ids[1 + (i % cardinality(a.ids))] else gen_random_uuid() end,
  case when i % 2 = 0 then 'worker.status_changed' else 'schedule.skipped' end,
  case when i % 2 = 0
    then jsonb_build_object('worker_id', gen_random_uuid(), 'from', case when i % 4 = 0 then 'running' else 'stopped' end,
                            'to', case when i % 4 = 0 then 'stopped' else 'running' end)
    else jsonb_build_object('fire_time', to_char(t.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'reason', 'overlap') end,
  t.at, t.at + interval '5 milliseconds'
from generate_series($1::int, $2::int) as i
cross join automation a
cross join lateral (select ${momentOf(window, count)} as at) t`;

/**
 * Writes `jobs` finished jobs (3 events each) and `selfGrowingEvents` events, spread over
 * `window`, in statements of at most {@link HISTORY_CHUNK} jobs or events: on a pool each commits
 * on its own; on a client inside a transaction, everything appears at once.
 */
export async function seedHistory(pool: Executor, options: SeedHistoryOptions): Promise<SeededHistory> {
  if (options.automationIds.length === 0) throw new Error("seedHistory needs at least one automation");
  const written = { jobs: 0, events: 0 };
  const jobsStatement = SEED_JOBS(options.window, options.jobs);
  for (let first = 0; first < options.jobs; first += HISTORY_CHUNK) {
    const last = Math.min(options.jobs, first + HISTORY_CHUNK) - 1;
    const { rows } = await pool.query<{ jobs: number; events: number }>({ text: jobsStatement, values: [first, last, options.automationIds] });
    written.jobs += rows[0]!.jobs;
    written.events += rows[0]!.events;
    options.onProgress?.(written);
  }
  const eventsStatement = SEED_SELF_GROWING(options.window, options.selfGrowingEvents);
  for (let first = 0; first < options.selfGrowingEvents; first += HISTORY_CHUNK) {
    const last = Math.min(options.selfGrowingEvents, first + HISTORY_CHUNK) - 1;
    const result = await pool.query({ text: eventsStatement, values: [first, last, options.automationIds] });
    written.events += result.rowCount ?? 0;
    options.onProgress?.(written);
  }
  return written;
}

/**
 * `count` active automations in a new sector, each with a registered worker (80 % `running`, seen
 * now; the rest `stopped`), as a large hub has them; returns their ids. Their workers' keys are
 * unknown (random digests): no worker can call as them.
 */
export async function seedHistoryAutomations(pool: pg.Pool, count: number, label = "history"): Promise<string[]> {
  const suffix = `${label}-${Date.now().toString(36)}`;
  const { rows } = await pool.query<{ id: string }>(
    `with sector as (insert into sectors (name, color) values ($1, '#6B7280') returning id),
automation as (
  insert into automations (name, slug, sector_id, max_concurrent_jobs)
  select 'History ' || i, $1 || '-' || i, sector.id, 1 + i % 8 from generate_series(1, $2::int) as i cross join sector
  returning id
),
worker as (
  insert into workers (automation_id, cloud_instance_id, api_key_hash, status, last_seen_at)
  select id, 'i-' || left(id::text, 8), encode(sha256(convert_to(id::text || random()::text, 'UTF8')), 'hex'),
    case when random() < 0.8 then 'running' else 'stopped' end, now()
  from automation
)
select id from automation`,
    [suffix, count],
  );
  return rows.map((row) => row.id);
}
