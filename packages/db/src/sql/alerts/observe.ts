/**
 * What an evaluation round measures (CONTRACT §6.19), for every rule and every automation it
 * covers at once: one aggregate statement over the jobs of the automations the rules name (never
 * one per automation), and, only for the alerts whose queue holds, one look at the first job in line
 * of each for its waiting reason.
 *
 * "Due queued" is `status = 'queued' and available_at <= now()`: held jobs (dependencies,
 * approvals) are stored as `held` and never match, and the automations a maintenance window holds
 * are left out by {@link MAINTENANCE_HOLDS}.
 */
import type { AlertKind } from "@hub/shared";
import type { Executor } from "../../executor";
import { waitingReasonsOf, type QueuedJobKey } from "../jobs/waiting";

/**
 * THE place where maintenance windows (§6.18) plug into alerts: an SQL condition on the automation
 * row `a`, true while a window holds its jobs (packages/db/functions/hub_maintenance_until.sql), so
 * a planned window pages nobody.
 */
export const MAINTENANCE_HOLDS = "hub_maintenance_until(a.id, a.sector_id, a.timeout_seconds) is not null";

/** One rule × one active automation it covers, measured now. */
export interface AlertMeasurement {
  ruleId: string;
  automationId: string;
  automationName: string;
  kind: AlertKind;
  threshold: number | null;
  forSeconds: number;
  windowSeconds: number;
  /** Whether the condition holds now. */
  holds: boolean;
  value: number;
  dueJobs: number;
  finishedJobs: number;
  workerRegistered: boolean;
}

interface MeasurementRow {
  rule_id: string;
  automation_id: string;
  automation_name: string;
  kind: AlertKind;
  threshold: number | null;
  for_seconds: number;
  window_seconds: number;
  holds: boolean;
  value: number;
  due: number;
  finished: number;
  worker_registered: boolean;
}

/**
 * The statement: each rule joined to the active automations it covers; the due queued jobs
 * counted per automation named by a queue rule (the partial `jobs_claim_idx`), the running ones
 * per automation named by a duration rule (`jobs_running_lease_idx`), the finished ones of each
 * failure-rate rule's window (`jobs_automation_finished_idx`, a range per automation); only the
 * rows whose condition holds, or whose alert has a state to end, come back.
 */
const MEASURE_NAME = "alerts_measure_v1";
const MEASURE = `
with targets as (
  select r.id as rule_id, r.kind, r.threshold, r.for_seconds, r.window_seconds, r.min_jobs,
    a.id as automation_id, a.name as automation_name, (${MAINTENANCE_HOLDS}) as in_maintenance
  from alert_rules r
  join automations a on a.is_active and (a.id = r.automation_id or r.automation_id is null)
),
queue_automations as (
  select distinct automation_id from targets where kind in ('queue_age', 'queue_depth', 'worker_offline') and not in_maintenance
),
queued as (
  select j.automation_id, count(*)::int as due, extract(epoch from now() - min(j.available_at))::float8 as age
  from jobs j
  where j.status = 'queued' and j.available_at <= now() and j.automation_id in (select automation_id from queue_automations)
  group by j.automation_id
),
-- Jobs finished in a failure_rate window, counted once per automation and window however many
-- rules share them: one range of jobs_automation_finished_idx per outcome (index-only once vacuumed).
finished as (
  select fw.automation_id, fw.window_seconds,
    (select count(*) from jobs fj where fj.automation_id = fw.automation_id and fj.status = 'completed'
       and fj.finished_at is not null and fj.finished_at >= now() - make_interval(secs => fw.window_seconds))::int as completed,
    (select count(*) from jobs fj where fj.automation_id = fw.automation_id and fj.status = 'failed'
       and fj.finished_at is not null and fj.finished_at >= now() - make_interval(secs => fw.window_seconds))::int as failed
  from (select distinct automation_id, window_seconds from targets where kind = 'failure_rate') fw
),
running as (
  select j.automation_id, extract(epoch from now() - min(j.started_at))::float8 as longest
  from jobs j
  where j.status = 'running' and j.automation_id in (select automation_id from targets where kind = 'job_duration')
  group by j.automation_id
),
measured as (
  select t.*, coalesce(q.due, 0) as due, coalesce(q.age, 0) as age, coalesce(rn.longest, 0) as longest,
    w.id is not null as worker_registered, w.status as worker_status,
    extract(epoch from now() - coalesce(w.last_seen_at, w.created_at))::float8 as worker_silent,
    coalesce(f.finished, 0) as finished, coalesce(f.failed, 0) as failed
  from targets t
  left join queued q on q.automation_id = t.automation_id
  left join running rn on rn.automation_id = t.automation_id
  left join workers w on t.kind = 'worker_offline' and w.automation_id = t.automation_id and w.unregistered_at is null
  left join (select automation_id, window_seconds, completed + failed as finished, failed from finished) f
    on t.kind = 'failure_rate' and f.automation_id = t.automation_id and f.window_seconds = t.window_seconds
),
judged as (
  select m.*,
    case m.kind
      when 'queue_age' then m.age
      when 'queue_depth' then m.due
      when 'failure_rate' then coalesce(m.failed::float8 / nullif(m.finished, 0), 0)
      when 'worker_offline' then case when m.worker_registered then m.worker_silent else m.age end
      else m.longest
    end::float8 as value,
    case m.kind
      when 'queue_age' then m.due > 0 and m.age > m.threshold
      when 'queue_depth' then m.due >= m.threshold
      when 'failure_rate' then m.finished >= m.min_jobs and m.failed::float8 / nullif(m.finished, 0) >= m.threshold
      when 'worker_offline' then m.due > 0 and (not m.worker_registered or m.worker_status = 'stopped')
      else m.longest > m.threshold
    end as holds
  from measured m
)
select j.rule_id, j.automation_id, j.automation_name, j.kind, j.threshold, j.for_seconds, j.window_seconds,
  coalesce(j.holds, false) as holds, j.value, j.due, j.finished, j.worker_registered
from judged j
where j.holds or exists (select 1 from alert_states s where s.rule_id = j.rule_id and s.automation_id = j.automation_id)`;

export async function measure(executor: Executor): Promise<AlertMeasurement[]> {
  const { rows } = await executor.query<MeasurementRow>({ name: MEASURE_NAME, text: MEASURE });
  return rows.map((row) => ({
    ruleId: row.rule_id,
    automationId: row.automation_id,
    automationName: row.automation_name,
    kind: row.kind,
    threshold: row.threshold,
    forSeconds: row.for_seconds,
    windowSeconds: row.window_seconds,
    holds: row.holds,
    value: Number(row.value),
    dueJobs: row.due,
    finishedJobs: row.finished,
    workerRegistered: row.worker_registered,
  }));
}

interface HeadRow {
  id: string;
  automation_id: string;
  priority: number;
  available_at: Date;
  seq: string;
  attempts: number;
}

/**
 * The waiting reason of the first due queued job in claim order of each of `automationIds` (what
 * holds the queue up), by automation: one statement for the heads (one ordered probe of
 * `jobs_claim_idx` each) and one for their reasons (packages/db/src/sql/jobs/waiting.ts).
 */
export async function leadingWaitingReasons(executor: Executor, automationIds: readonly string[]): Promise<Map<string, string | null>> {
  if (automationIds.length === 0) return new Map();
  const { rows } = await executor.query<HeadRow>({
    name: "alerts_queue_heads_v1",
    text: `select h.id, h.automation_id, h.priority, h.available_at, h.seq, h.attempts
      from unnest($1::uuid[]) as u(id)
      cross join lateral (
        select j.id, j.automation_id, j.priority, j.available_at, j.seq, j.attempts from jobs j
        where j.automation_id = u.id and j.status = 'queued' and j.available_at <= now()
        order by j.priority desc nulls last, j.available_at, j.seq
        limit 1
      ) h`,
    values: [`{${automationIds.join(",")}}`],
  });
  const heads: QueuedJobKey[] = rows.map((row) => ({
    id: row.id,
    automationId: row.automation_id,
    // Heads of the due queue: never held, so no dependency is pending.
    status: "queued",
    pendingDependencies: 0,
    approvalStatus: null,
    priority: row.priority,
    availableAt: new Date(row.available_at),
    seq: Number(row.seq),
    attempts: row.attempts,
  }));
  const reasons = await waitingReasonsOf(executor, heads);
  return new Map(heads.map((head) => [head.automationId, reasons.get(head.id) ?? null]));
}
