/**
 * The figures of limits per key and rate limits (CONTRACT §6.13) outside the claim: `by_key` and
 * `rate_limit_remaining` of the stats, and the gauges. The state they read (jobs.key_value,
 * job_key_states, automation_start_states) is described in packages/db/functions/hub_claim_jobs_v4.sql.
 */
import { sql } from "drizzle-orm";
import { queryBuilder, type Executor } from "../../executor";

/** A key value as the API shows it: the context's text, or null (no value, or JSON null). */
export type KeyValue = string | null;

/** One key value's queue in `GET /automations/{id}/stats` `by_key`. */
export interface KeyQueueDepth {
  key: KeyValue;
  queued: number;
  running: number;
  /** Starts its window still allows now under a per-key rate limit; null otherwise. */
  rateLimitRemaining: number | null;
}

/**
 * Rows of `by_key` (CONTRACT §6.13): the `limit` key values with the most due queued jobs (ties by
 * key value, no value last), key values with only running jobs after them; [] without a key. Queued
 * jobs are grouped through `jobs_key_claim_idx`, running ones by context (at most
 * `max_concurrent_jobs` rows).
 */
export async function readKeyDepths(executor: Executor, automationId: string, limit: number): Promise<KeyQueueDepth[]> {
  const db = queryBuilder(executor);
  const result = await db.execute<Record<string, unknown>>(sql`
    with a as (
      select id, concurrency_key, rate_limit_count, rate_limit_period_seconds, rate_limit_per_key
      from automations where id = ${automationId} and concurrency_key is not null
    ), queued as (
      select j.key_value, count(*)::int as queued from jobs j, a
      where j.automation_id = a.id and j.status = 'queued' and j.key_value is not null and j.available_at <= now()
      group by j.key_value
    ), running as (
      select coalesce(r.context -> a.concurrency_key, 'null'::jsonb) as key_value, count(*)::int as running from jobs r, a
      where r.automation_id = a.id and r.status = 'running'
      group by 1
    ), by_key as (
      select coalesce(q.key_value, r.key_value) as key_value, coalesce(q.queued, 0) as queued, coalesce(r.running, 0) as running
      from queued q full join running r on r.key_value = q.key_value
    )
    select k.key_value #>> '{}' as key, k.queued, k.running,
      case when a.rate_limit_per_key then ${sql.raw(windowRemaining("ks", "a"))} end as rate_limit_remaining
    from by_key k cross join a
    left join job_key_states ks on ks.automation_id = a.id and ks.key_value = k.key_value
    order by k.queued desc, k.key_value #>> '{}' nulls last
    limit ${limit}`);
  return result.rows.map((row) => ({
    key: (row.key as string | null) ?? null,
    queued: row.queued as number,
    running: row.running as number,
    rateLimitRemaining: row.rate_limit_remaining == null ? null : Number(row.rate_limit_remaining),
  }));
}

/**
 * Starts a window still allows now: `count` minus the recorded starts after now() − period
 * (an O(count) look at the ring, for reading only; the claim's check is one array read).
 */
function windowRemaining(state: string, automation: string): string {
  return `greatest(${automation}.rate_limit_count - coalesce((select count(*) from unnest(${state}.starts) as t(at)
    where t.at > now() - make_interval(secs => ${automation}.rate_limit_period_seconds)), 0), 0)::int`;
}

/** The automation-wide `rate_limit_remaining` of the stats (CONTRACT §6.13): null without a limit or under `per_key`. */
export async function readRateLimitRemaining(executor: Executor, automationId: string): Promise<number | null> {
  const db = queryBuilder(executor);
  const result = await db.execute<{ remaining: number | null }>(sql`
    select case when a.rate_limit_count is not null and not a.rate_limit_per_key then ${sql.raw(windowRemaining("s", "a"))} end as remaining
    from automations a left join automation_start_states s on s.automation_id = a.id
    where a.id = ${automationId}`);
  const remaining = result.rows[0]?.remaining;
  return remaining == null ? null : Number(remaining);
}

/** Key values per automation the `hub_key_jobs_queued` gauge names at most (CONTRACT §6.13). */
export const GAUGED_KEYS_MAX = 20;

/** One active automation's §6.13 gauges. */
export interface AutomationLimitDepth {
  slug: string;
  /** Due queued jobs whose window (the automation's, or their key value's under `per_key`) is full. */
  rateLimited: number;
  /** Due queued jobs whose key value runs `max_concurrent_per_key` jobs. */
  keyLimited: number;
  /** The {@link GAUGED_KEYS_MAX} key values with the most due queued jobs (ties by value). */
  topKeys: Array<{ key: KeyValue; queued: number }>;
}

/**
 * The §6.13 gauges of every active automation with a key or a rate limit, in one statement (an
 * automation with neither costs nothing here): due queued jobs grouped by key value through
 * `jobs_key_claim_idx`, running ones by context, one ring read per window.
 */
export async function readLimitDepths(executor: Executor): Promise<AutomationLimitDepth[]> {
  const db = queryBuilder(executor);
  const result = await db.execute<Record<string, unknown>>(sql`
    with a as (
      select a.id, a.slug, a.concurrency_key, a.max_concurrent_per_key, a.rate_limit_count, a.rate_limit_period_seconds, a.rate_limit_per_key,
        case when a.rate_limit_count is not null and not a.rate_limit_per_key then
          (select hub_start_window_opens_at(s.starts, s.head, a.rate_limit_count, a.rate_limit_period_seconds)
           from automation_start_states s where s.automation_id = a.id) end as window_opens_at
      from automations a where a.is_active and (a.concurrency_key is not null or a.rate_limit_count is not null)
    ), keyed as (
      select j.automation_id, j.key_value, count(*)::int as queued from jobs j join a on a.id = j.automation_id
      where j.status = 'queued' and j.key_value is not null and j.available_at <= now()
      group by j.automation_id, j.key_value
    ), running as (
      select j.automation_id, coalesce(j.context -> a.concurrency_key, 'null'::jsonb) as key_value, count(*)::int as running
      from jobs j join a on a.id = j.automation_id
      where j.status = 'running' and a.concurrency_key is not null
      group by 1, 2
    ), due as (
      select j.automation_id, count(*)::int as queued from jobs j join a on a.id = j.automation_id
      where j.status = 'queued' and j.available_at <= now()
      group by j.automation_id
    )
    select a.slug,
      (case when a.window_opens_at > now() then coalesce(d.queued, 0)
        when a.rate_limit_per_key then coalesce((
          select sum(k.queued) from keyed k
          join job_key_states ks on ks.automation_id = k.automation_id and ks.key_value = k.key_value
          where k.automation_id = a.id
            and hub_start_window_opens_at(ks.starts, ks.head, a.rate_limit_count, a.rate_limit_period_seconds) > now()), 0)
        else 0 end)::int as rate_limited,
      coalesce((
        select sum(k.queued) from keyed k
        join running r on r.automation_id = k.automation_id and r.key_value = k.key_value
        where k.automation_id = a.id and r.running >= a.max_concurrent_per_key), 0)::int as key_limited,
      coalesce((
        select jsonb_agg(jsonb_build_object('key', t.key_value #>> '{}', 'queued', t.queued) order by t.queued desc, t.key_value #>> '{}' nulls last)
        from (select k.key_value, k.queued from keyed k where k.automation_id = a.id
              order by k.queued desc, k.key_value #>> '{}' nulls last limit ${GAUGED_KEYS_MAX}) t), '[]'::jsonb) as top_keys
    from a left join due d on d.automation_id = a.id`);
  return result.rows.map((row) => ({
    slug: row.slug as string,
    rateLimited: row.rate_limited as number,
    keyLimited: row.key_limited as number,
    topKeys: (row.top_keys as Array<{ key: KeyValue; queued: number }>).map(({ key, queued }) => ({ key: key ?? null, queued })),
  }));
}
