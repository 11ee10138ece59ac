/**
 * Why a queued job waits (CONTRACT §6.3, §6.8): the `waiting_reason` and `queue_position` of job
 * records, for one job (GET /jobs/{id}) or a list page's queued jobs (GET /jobs).
 *
 * Every statement compares times with PostgreSQL's clock (`now()`, constant within a statement),
 * as claims do, so a reason never disagrees with what the next claim would do because of a skewed
 * API host.
 */
import { sql, type SQL } from "drizzle-orm";
import { queryBuilder, type Executor } from "../../executor";
import { automationIdReached, type Reach } from "../../reach";

/**
 * Why a queued job waits, in the order the reasons are checked: the first whose condition holds is
 * reported (CONTRACT §6.21 gives the whole order). What the job itself waits for comes first —
 * dispatch paused, its time not come — then what its automation waits for, so a job due next month
 * says `scheduled` whatever its worker's state. Each condition reads `p` (the job), `s` (its
 * automation's state), `k` (its key value's) and `n` (the free slots' cutoff), only once every one
 * before it failed; a job whose rules all fail stands behind the jobs the free slots take
 * (`concurrency_limit`). A reason of a later feature is one more line at its place here.
 */
const WAITING_RULES = [
  ["dependencies", "p.pending_dependencies > 0"],
  ["awaiting_approval", "p.approval_status = 'pending'"],
  ["development_mode", "s.is_development"],
  // §6.18: a maintenance window in effect (or, with drain, beginning within the automation's timeout) holds it.
  ["maintenance_window", "s.maintenance_until is not null"],
  ["scheduled", "p.available_at > now() and p.attempts = 0"],
  ["scheduled_retry", "p.available_at > now()"],
  ["no_worker", "s.worker_id is null"],
  ["worker_offline", "s.worker_status = 'stopped'"],
  ["rate_limited", "coalesce(s.window_opens_at, k.window_opens_at) > now()"],
  ["concurrency_limit", "s.running >= s.max_concurrent_jobs"],
  // With a concurrency_key, fair sharing across values (not the free slots' cutoff) decides.
  ["key_concurrency_limit", "s.concurrency_key is not null and k.key_running + k.key_ahead >= s.max_concurrent_per_key"],
  ["next_in_line", `s.concurrency_key is not null or p.seq = n.seq or ${claimsBefore("p", "n")}`],
] as const satisfies ReadonlyArray<readonly [string, string]>;

export type WaitingReason = (typeof WAITING_RULES)[number][0];
/** `waiting_reason` values, in the order they are checked. */
// The cast keeps the non-empty tuple type z.enum needs; WAITING_RULES is a non-empty literal list.
export const WAITING_REASONS = WAITING_RULES.map(([reason]) => reason) as unknown as readonly [WaitingReason, ...WaitingReason[]];

/**
 * Claim order as SQL (CONTRACT §6.8): true when job `a` is handed out before job `b` — higher
 * priority, then earlier `available_at`, then creation order.
 */
function claimsBefore(a: string, b: string): string {
  return `(${a}.priority > ${b}.priority or (${a}.priority = ${b}.priority and (${a}.available_at, ${a}.seq) < (${b}.available_at, ${b}.seq)))`;
}

/**
 * The waiting reason of each row of `page` (a CTE with `id, automation_id, status, priority,
 * available_at, seq, attempts, key_value, pending_dependencies`; `status` as stored, so a held job
 * has a reason and, its status not being `queued`, no queue position and no place in another's), as the CTEs to append after `page` and the select list's
 * expression. Per automation of the page's queued jobs, not per row: one look at the automation and
 * its worker, one index-only count of its running jobs (at most `max_concurrent_jobs` entries), and
 * one ordered walk of at most `max_concurrent_jobs` entries of `jobs_claim_idx` to find the last job
 * the free slots would take now (`next_cutoff`: the F-th due job, or the last one when fewer are due).
 *
 * `next_in_line` reading: with F slots free, the next claims (or one claim-batch of F) hand out the
 * first F due jobs in claim order; each of those is `next_in_line`. A due job behind them waits
 * because the jobs ahead of it will fill every free slot, which is the concurrency limit at work,
 * so it reports `concurrency_limit` (the contract's "running = max_concurrent_jobs" case is the one
 * with F = 0). Every queued job thus has a non-null reason.
 *
 * The limits of §6.13 (the state they read is described in packages/db/functions/hub_claim_jobs_v4.sql): `rate_limited` while the
 * window that governs the job (the automation's, or its key value's under `per_key`) is full, by one
 * read of its ring; with a `concurrency_key`, a job whose key value runs `max_concurrent_per_key`
 * jobs, or that stands behind as many of its value's due jobs as the value has room for, waits for
 * `key_concurrency_limit`; the free slots' cutoff is not used then, since fair sharing, not claim
 * order, decides across values.
 */
const waitingReasonParts = {
  ctes: `
  automation_state as (
    select a.id as automation_id, a.is_development, a.max_concurrent_jobs,
      w.id as worker_id, w.status as worker_status,
      (select count(*)::int from jobs r where r.automation_id = a.id and r.status = 'running') as running,
      a.concurrency_key, a.max_concurrent_per_key, a.rate_limit_count, a.rate_limit_period_seconds, a.rate_limit_per_key,
      case when a.rate_limit_count is not null and not a.rate_limit_per_key then
        (select hub_start_window_opens_at(st.starts, st.head, a.rate_limit_count, a.rate_limit_period_seconds)
         from automation_start_states st where st.automation_id = a.id) end as window_opens_at,
      -- §6.18: until when maintenance windows hold the automation (packages/db/functions/hub_maintenance_until.sql).
      hub_maintenance_until(a.id, a.sector_id, a.timeout_seconds) as maintenance_until
    from automations a
    left join workers w on w.automation_id = a.id and w.unregistered_at is null
    where a.id in (select p.automation_id from page p where p.status in ('queued', 'held'))
  ),
  key_state as (
    select p.id, p.key_value,
      (select count(*)::int from jobs r where r.automation_id = s.automation_id and r.status = 'running'
         and coalesce(r.context -> s.concurrency_key, 'null'::jsonb) = p.key_value) as key_running,
      -- Due jobs of its value ahead of it, counted up to the value's limit (all the reason needs).
      case when p.available_at <= now() then (select count(*)::int from (select 1 from jobs q
         where q.automation_id = s.automation_id and q.status = 'queued' and q.key_value = p.key_value and q.available_at <= now()
           and ${claimsBefore("q", "p")} limit s.max_concurrent_per_key) ahead) end as key_ahead,
      case when s.rate_limit_per_key then
        (select hub_start_window_opens_at(ks.starts, ks.head, s.rate_limit_count, s.rate_limit_period_seconds)
         from job_key_states ks where ks.automation_id = s.automation_id and ks.key_value = p.key_value) end as window_opens_at
    from page p join automation_state s on s.automation_id = p.automation_id
    where p.status = 'queued' and s.concurrency_key is not null and p.key_value is not null
  ),
  next_cutoff as (
    select s.automation_id, c.priority, c.available_at, c.seq
    from automation_state s
    cross join lateral (
      select t.priority, t.available_at, t.seq from (
        select q.priority, q.available_at, q.seq from jobs q
        where q.automation_id = s.automation_id and q.status = 'queued' and q.available_at <= now()
        -- NULLS LAST as in jobs_claim_idx (plain DESC means NULLS FIRST and would sort every due job).
        order by q.priority desc nulls last, q.available_at, q.seq
        limit s.max_concurrent_jobs - s.running
      ) t
      order by t.priority, t.available_at desc, t.seq desc
      limit 1
    ) c
    where s.running < s.max_concurrent_jobs and s.concurrency_key is null
  )`,
  joins: `
  left join automation_state s on s.automation_id = p.automation_id
  left join next_cutoff n on n.automation_id = p.automation_id
  left join key_state k on k.id = p.id`,
  reason: `
  case
    when p.status not in ('queued', 'held') or s.automation_id is null then null
${WAITING_RULES.map(([reason, condition]) => `    when ${condition} then '${reason}'`).join("\n")}
    else 'concurrency_limit'
  end`,
  /** When the window that holds a `rate_limited` job back next allows a start (CONTRACT §6.13). */
  windowOpensAt: `coalesce(s.window_opens_at, k.window_opens_at)`,
  /** When the maintenance windows holding a queued job end (CONTRACT §6.18 `resumes_at`), whatever reason comes first. */
  resumesAt: `case when p.status = 'queued' then s.maintenance_until end`,
};

/**
 * `queue_position` of a `page` row: null unless queued and due (CONTRACT §6.8). The jobs ahead are
 * counted in two index ranges of `jobs_claim_idx` (higher priority; same priority and earlier key),
 * so the cost is the number of jobs ahead, not the length of the automation's queue. With a
 * `concurrency_key` (§6.13) only the due jobs of the same key value ahead of it count.
 */
const queuePositionExpression = `
  case when k.id is not null then case when p.available_at <= now() then 1
    + (select count(*)::int from jobs q
       where q.automation_id = p.automation_id and q.status = 'queued' and q.key_value = p.key_value and q.available_at <= now()
         and ${claimsBefore("q", "p")}) end
  when p.status = 'queued' and p.available_at <= now() then 1
    + (select count(*)::int from jobs q
       where q.automation_id = p.automation_id and q.status = 'queued' and q.priority > p.priority and q.available_at <= now())
    + (select count(*)::int from jobs q
       where q.automation_id = p.automation_id and q.status = 'queued' and q.priority = p.priority
         and (q.available_at, q.seq) < (p.available_at, p.seq) and q.available_at <= now())
  end`;

/** The job columns the waiting statements read, as the `page` CTE's column list. */
const PAGE_COLUMNS = "id, automation_id, status, priority, available_at, seq, attempts, key_value, pending_dependencies, approval_status";

/**
 * GET /jobs/{id}: the job row with its `waiting_reason` and `queue_position`, in one statement
 * (one snapshot, one `now()`); undefined when no job has this id.
 */
export async function findWithWaitingRow(executor: Executor, reach: Reach, jobId: string): Promise<Record<string, unknown> | undefined> {
  const db = queryBuilder(executor);
  const result = await db.execute<Record<string, unknown>>(withWaitingQuery(jobId, reach));
  return result.rows[0];
}

/** The statement behind {@link findWithWaitingRow} (exported for EXPLAIN in tests). */
export function withWaitingQuery(jobId: string, reach: Reach): SQL {
  const reached = automationIdReached(reach, sql.raw("jobs.automation_id")) ?? sql`true`;
  return sql`
  with page as (select ${sql.raw(PAGE_COLUMNS)} from jobs where id = ${jobId} and ${reached}),${sql.raw(waitingReasonParts.ctes)}
  select j.*, ${sql.raw(waitingReasonParts.reason)} as waiting_reason, ${sql.raw(queuePositionExpression)} as queue_position,
    ${sql.raw(waitingReasonParts.windowOpensAt)} as window_opens_at, ${sql.raw(waitingReasonParts.resumesAt)} as resumes_at
  from page p join jobs j on j.id = p.id ${sql.raw(waitingReasonParts.joins)}`;
}

/** A job as the list reasons need it: its claim-order key and attempts. */
export interface QueuedJobKey {
  id: string;
  automationId: string;
  /** As stored: `queued` or `held`. */
  status: string;
  pendingDependencies: number | null;
  /** Its approval's status (CONTRACT §6.17); null for a job that needs none. */
  approvalStatus: string | null;
  priority: number;
  availableAt: Date;
  seq: number;
  attempts: number;
}

/**
 * The waiting reasons of the queued jobs of a list page, in one statement for the whole page (never
 * one per row); pass only queued jobs (held ones included). Reasons are for each job as listed (its key is passed in),
 * read a moment after the page itself.
 */
export async function waitingReasonsOf(executor: Executor, queued: readonly QueuedJobKey[]): Promise<Map<string, WaitingReason | null>> {
  const db = queryBuilder(executor);
  if (queued.length === 0) return new Map();
  const keys = queued.map((job) => ({
    id: job.id,
    automation_id: job.automationId,
    priority: job.priority,
    available_at: job.availableAt.toISOString(),
    seq: job.seq,
    attempts: job.attempts,
    status: job.status,
    pending_dependencies: job.pendingDependencies,
    approval_status: job.approvalStatus,
  }));
  const result = await db.execute<{ id: string; waiting_reason: WaitingReason | null }>(sql`
  with page as (
    select u.id, u.automation_id, u.status, u.priority, u.available_at, u.seq, u.attempts,
      (select j.key_value from jobs j where j.id = u.id) as key_value, u.pending_dependencies, u.approval_status
    from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb)
      as u(id uuid, automation_id uuid, status text, priority int, available_at timestamptz, seq bigint, attempts int, pending_dependencies int,
        approval_status text)
  ),${sql.raw(waitingReasonParts.ctes)}
  select p.id, ${sql.raw(waitingReasonParts.reason)} as waiting_reason
  from page p ${sql.raw(waitingReasonParts.joins)}`);
  return new Map(result.rows.map((row) => [row.id, row.waiting_reason]));
}
