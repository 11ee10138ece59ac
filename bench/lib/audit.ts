/**
 * The correctness audit, read straight from the database (the hub's or a baseline's: the schema is
 * the same): every job completed exactly once, every event dispatched, and the concurrency limit
 * never exceeded, sampled throughout the run.
 */
import type pg from "pg";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConcurrencySampler } from "@hub/testing";
import type { PhaseRecorder } from "./load";
import { summarize, type LatencySummary } from "./stats";

export interface AuditCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SamplerReport {
  samples: number;
  violations: number;
  /** Highest running count seen per automation slug, with its limit. */
  maxRunning: Record<string, { max: number; limit: number }>;
  firstViolation: string | null;
}

/** What the audit reads of the {@link ConcurrencySampler} that watched a run, by automation slug. */
export function samplerReport(sampler: ConcurrencySampler, automations: ReadonlyMap<string, { slug: string; limit: number }>): SamplerReport {
  const maxRunning: SamplerReport["maxRunning"] = {};
  for (const [id, { slug, limit }] of automations) maxRunning[slug] = { max: sampler.peakRunning.get(id) ?? 0, limit };
  return { samples: sampler.samples, violations: sampler.overLimit, maxRunning, firstViolation: sampler.firstOverLimit ?? null };
}

/** Waits until no event is left undispatched, or `timeoutMs` passed: how many are left, after how many looks. */
export async function waitForRelayDrain(pool: pg.Pool, timeoutMs: number): Promise<{ left: number; polls: number }> {
  const deadline = Date.now() + timeoutMs;
  for (let polls = 1; ; polls++) {
    const { rows } = await pool.query<{ left: number }>("select count(*)::int as left from events where dispatched_at is null");
    const left = rows[0]?.left ?? 0;
    if (left === 0 || Date.now() > deadline) return { left, polls };
    await sleep(50);
  }
}

/** Relay lag (`dispatched_at − created_at`, database clock) of the events of these jobs. */
export async function relayLag(pool: pg.Pool, jobIds: readonly string[]): Promise<LatencySummary> {
  const { rows } = await pool.query<{ lag_ms: number }>(
    `select (extract(epoch from dispatched_at - created_at) * 1000)::float8 as lag_ms
       from events where aggregate_id = any($1::uuid[]) and dispatched_at is not null`,
    [jobIds],
  );
  return summarize(rows.map((row) => row.lag_ms));
}

/** Every check of the audit, over all the phases of one target. */
export async function auditRun(
  pool: pg.Pool,
  phases: readonly PhaseRecorder[],
  sampler: SamplerReport,
  undispatchedLeft: number | null,
): Promise<AuditCheck[]> {
  const created = new Map<string, number>();
  const errors: string[] = [];
  let expected = 0;
  let completedTwice = 0;
  let completedUnknown = 0;
  for (const phase of phases) {
    expected += phase.expected;
    for (const id of phase.createdAt.keys()) created.set(id, 0);
    for (const [key, count] of phase.errors) errors.push(`${count}× ${key}`);
  }
  for (const phase of phases) {
    for (const [id, count] of phase.completions) {
      if (!created.has(id)) completedUnknown++;
      else created.set(id, created.get(id)! + count);
      if (count > 1) completedTwice++;
    }
  }
  const neverCompleted = [...created.values()].filter((count) => count === 0).length;
  const ids = [...created.keys()];

  const statusRows = await pool.query<{ status: string; count: number }>("select status, count(*)::int as count from jobs group by status");
  const statuses = Object.fromEntries(statusRows.rows.map((row) => [row.status, row.count]));
  const totalJobs = statusRows.rows.reduce((sum, row) => sum + row.count, 0);
  const eventRows = await pool.query<{ jobs: number; completed_not_once: number; started_not_once: number }>(
    `select count(*)::int as jobs,
            count(*) filter (where completed <> 1)::int as completed_not_once,
            count(*) filter (where started <> 1)::int as started_not_once
       from (select count(*) filter (where event_type = 'job.completed') as completed,
                    count(*) filter (where event_type = 'job.started') as started
               from events where aggregate_id = any($1::uuid[]) group by aggregate_id) per_job`,
    [ids],
  );
  const events = eventRows.rows[0] ?? { jobs: 0, completed_not_once: 0, started_not_once: 0 };

  const checks: AuditCheck[] = [
    {
      name: "every job created",
      ok: created.size === expected && totalJobs === expected,
      detail: `${created.size} created of ${expected} asked; ${totalJobs} rows in jobs`,
    },
    {
      name: "every job completed exactly once (worker side)",
      ok: neverCompleted === 0 && completedTwice === 0 && completedUnknown === 0,
      detail: `${neverCompleted} never completed, ${completedTwice} completed twice, ${completedUnknown} unknown ids completed`,
    },
    {
      name: "every job completed exactly once (database)",
      ok: statuses.completed === expected && totalJobs === expected && events.jobs === ids.length && events.completed_not_once === 0,
      detail: `statuses ${JSON.stringify(statuses)}; ${events.completed_not_once} jobs without exactly one job.completed event`,
    },
    {
      name: "no job started twice (no lease lapsed)",
      ok: events.started_not_once === 0,
      detail: `${events.started_not_once} jobs without exactly one job.started event`,
    },
    {
      name: "no request failed",
      ok: errors.length === 0,
      detail: errors.length === 0 ? "none" : errors.slice(0, 5).join("; "),
    },
    {
      name: "concurrency limit never exceeded",
      ok: sampler.violations === 0 && sampler.samples > 0,
      detail: `${sampler.samples} samples, ${sampler.violations} over the limit${sampler.firstViolation ? ` (first: ${sampler.firstViolation})` : ""}; max running/limit ${Object.values(
        sampler.maxRunning,
      )
        .map((seen) => `${seen.max}/${seen.limit}`)
        .join(" ")}`,
    },
  ];
  if (undispatchedLeft !== null) {
    checks.push({ name: "no event left undispatched", ok: undispatchedLeft === 0, detail: `${undispatchedLeft} left after the run` });
  }
  return checks;
}
