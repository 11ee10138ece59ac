/**
 * How deep each automation's queue is (CONTRACT §6.3): `GET /automations/{id}/stats` and the
 * per-automation gauges.
 *
 * Every statement compares times with PostgreSQL's clock (`now()`, constant within a statement),
 * as claims do, so a reason never disagrees with what the next claim would do because of a skewed
 * API host.
 */
import { sql, type SQL } from "drizzle-orm";
import { queryBuilder, type Executor } from "../../executor";
import { automationRowReached, type Reach } from "../../reach";

/** `GET /automations/{id}/stats` (CONTRACT §6.3). */
export interface AutomationStats {
  automationId: string;
  /** Queued jobs whose `available_at` has come. */
  queued: number;
  running: number;
  /** Queued jobs whose `available_at` is still ahead (delayed or in back-off). */
  scheduled: number;
  maxConcurrentJobs: number;
  /** The earliest `available_at` among the due queued jobs. */
  oldestQueuedAt: Date | null;
  completedLastHour: number;
  failedLastHour: number;
  workerStatus: "running" | "stopped" | null;
  workerLastSeenAt: Date | null;
  /** Held jobs waiting for dependencies (CONTRACT §6.16): never in `queued` or `oldestQueuedAt`. */
  blocked: number;
  /** §6.18: the end of the maintenance windows holding the automation now; null when none does. */
  maintenanceUntil: Date | null;
  /** Held jobs awaiting an approval, their dependencies (if any) finished (CONTRACT §6.17): never in `queued`. */
  awaitingApproval: number;
}

/** The statement behind {@link readStats} (exported for EXPLAIN in tests). */
export function statsQuery(automationId: string, reach: Reach): SQL {
  const reached = automationRowReached(reach, { id: sql.raw("a.id"), sectorId: sql.raw("a.sector_id") }) ?? sql`true`;
  return sql`
  select a.id, a.max_concurrent_jobs, w.status as worker_status, w.last_seen_at as worker_last_seen_at,
    q.queued, q.scheduled, q.oldest_queued_at,
    (select count(*)::int from jobs r where r.automation_id = a.id and r.status = 'running') as running,
    (select count(*)::int from jobs f where f.automation_id = a.id and f.status = 'completed'
       and f.finished_at >= now() - interval '1 hour') as completed_last_hour,
    (select count(*)::int from jobs f where f.automation_id = a.id and f.status = 'failed'
       and f.finished_at >= now() - interval '1 hour') as failed_last_hour,
    -- §6.16: held for dependencies (a range of jobs_automation_status_created_idx, empty for an automation without).
    (select count(*)::int from jobs b where b.automation_id = a.id and b.status = 'held' and b.pending_dependencies > 0) as blocked,
    -- §6.18 (packages/db/functions/hub_maintenance_until.sql).
    hub_maintenance_until(a.id, a.sector_id, a.timeout_seconds) as maintenance_until,
    -- §6.17: awaiting approval, counted once (after dependencies, as waiting_reason); the same index range, empty without.
    (select count(*)::int from jobs h where h.automation_id = a.id and h.status = 'held' and h.approval_status = 'pending'
       and coalesce(h.pending_dependencies, 0) <= 0) as awaiting_approval
  from automations a
  left join workers w on w.automation_id = a.id and w.unregistered_at is null
  cross join lateral (
    select count(*) filter (where j.available_at <= now())::int as queued,
      count(*) filter (where j.available_at > now())::int as scheduled,
      min(j.available_at) filter (where j.available_at <= now()) as oldest_queued_at
    from jobs j where j.automation_id = a.id and j.status = 'queued'
  ) q
  where a.id = ${automationId} and ${reached}`;
}

/**
 * One automation's queue depth and last hour, in one statement; undefined for an unknown id.
 * The queued figures come from one index-only pass over `jobs_claim_idx` (the automation's queued
 * jobs); the last-hour counts need `jobs_automation_finished_idx` (docs/CAPACITY.md, "The indexes of `jobs`") to
 * stay a range scan on a large table.
 */
export async function readStats(executor: Executor, reach: Reach, automationId: string): Promise<AutomationStats | undefined> {
  const db = queryBuilder(executor);
  const result = await db.execute<Record<string, unknown>>(statsQuery(automationId, reach));
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    automationId: row.id as string,
    queued: row.queued as number,
    running: row.running as number,
    scheduled: row.scheduled as number,
    maxConcurrentJobs: row.max_concurrent_jobs as number,
    oldestQueuedAt: toDate(row.oldest_queued_at),
    completedLastHour: row.completed_last_hour as number,
    failedLastHour: row.failed_last_hour as number,
    workerStatus: (row.worker_status as AutomationStats["workerStatus"]) ?? null,
    workerLastSeenAt: toDate(row.worker_last_seen_at),
    blocked: row.blocked as number,
    maintenanceUntil: toDate(row.maintenance_until),
    awaitingApproval: row.awaiting_approval as number,
  };
}

/** One active automation's gauges (CONTRACT §6.3). */
export interface AutomationQueueDepth {
  slug: string;
  queued: number;
  running: number;
  scheduled: number;
  /** Seconds since the earliest `available_at` among due queued jobs; 0 when none is due. */
  oldestQueuedAgeSeconds: number;
  workerUp: boolean;
  /** Held jobs waiting for dependencies (CONTRACT §6.16). */
  blocked: number;
  /** The automation's max_concurrent_jobs (the gauge `hub_jobs_concurrency_limit`, beside `hub_jobs_running`). */
  maxConcurrentJobs: number;
  /** §6.18: a maintenance window holds the automation now. */
  maintenanceActive: boolean;
  /** Held jobs awaiting an approval (CONTRACT §6.17). */
  awaitingApproval: number;
}

/**
 * The gauges of every active automation from ONE aggregate statement, whatever their number: the
 * queued jobs grouped by automation (index-only over the partial `jobs_queued_idx`/`jobs_claim_idx`),
 * the running ones grouped likewise (the partial `jobs_running_lease_idx` finds exactly them), joined
 * to the active automations and their workers.
 */
export async function readQueueDepths(executor: Executor): Promise<AutomationQueueDepth[]> {
  const db = queryBuilder(executor);
  const result = await db.execute<Record<string, unknown>>(queueDepthQuery());
  return result.rows.map((row) => ({
    slug: row.slug as string,
    queued: row.queued as number,
    running: row.running as number,
    scheduled: row.scheduled as number,
    oldestQueuedAgeSeconds: Math.max(0, Number(row.oldest_queued_age_seconds)),
    workerUp: row.worker_up === true,
    blocked: row.blocked as number,
    maxConcurrentJobs: row.max_concurrent_jobs as number,
    maintenanceActive: row.maintenance_active === true,
    awaitingApproval: row.awaiting_approval as number,
  }));
}

/** The statement behind {@link readQueueDepths} (exported for EXPLAIN in tests). */
export function queueDepthQuery(): SQL {
  return sql`
  select a.slug, coalesce(q.queued, 0)::int as queued, coalesce(q.scheduled, 0)::int as scheduled,
    coalesce(r.running, 0)::int as running,
    coalesce(extract(epoch from now() - q.oldest_queued_at), 0)::float8 as oldest_queued_age_seconds,
    coalesce(w.status = 'running', false) as worker_up, a.max_concurrent_jobs,
    coalesce(b.blocked, 0)::int as blocked,
    -- §6.18: one probe of maintenance_occurrences_end_idx per automation when no window is defined.
    hub_maintenance_until(a.id, a.sector_id, a.timeout_seconds) is not null as maintenance_active,
    coalesce(p.awaiting_approval, 0)::int as awaiting_approval
  from automations a
  left join workers w on w.automation_id = a.id and w.unregistered_at is null
  left join (
    select j.automation_id, count(*) filter (where j.available_at <= now()) as queued,
      count(*) filter (where j.available_at > now()) as scheduled,
      min(j.available_at) filter (where j.available_at <= now()) as oldest_queued_at
    from jobs j where j.status = 'queued' group by j.automation_id
  ) q on q.automation_id = a.id
  left join (
    select j.automation_id, count(*) as running from jobs j where j.status = 'running' group by j.automation_id
  ) r on r.automation_id = a.id
  left join (
    -- §6.16: held for dependencies.
    select j.automation_id, count(*) as blocked from jobs j where j.status = 'held' and j.pending_dependencies > 0 group by j.automation_id
  ) b on b.automation_id = a.id
  left join (
    -- §6.17: awaiting approval (jobs_approval_pending_idx holds exactly the pending ones).
    select j.automation_id, count(*) as awaiting_approval from jobs j
    where j.approval_status = 'pending' and j.status = 'held' and coalesce(j.pending_dependencies, 0) <= 0 group by j.automation_id
  ) p on p.automation_id = a.id
  where a.is_active`;
}

/** Timestamps arrive as text through drizzle's raw `execute`. */
function toDate(value: unknown): Date | null {
  if (value == null) return null;
  return value instanceof Date ? value : new Date(value as string);
}
