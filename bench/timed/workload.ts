/**
 * The `timed` mode's workload: when each job and each schedule's fire is due, how they are created
 * (POST /jobs/batch with `run_at` when the API takes it, else seeded into the database), the
 * workers that take them once due, and the figures read back from the database.
 */
import { setMaxListeners } from "node:events";
import type pg from "pg";
import { openDatabase, jobs } from "@hub/db";
import type { HubBatchTarget, HubSeed } from "../hub/hub-target";
import type { JsonClient } from "../lib/http";
import { CONTEXT_PARAMETER } from "../lib/plan";

/** The long-poll the worker SDK holds by default (`waitSeconds`, packages/worker). */
const SDK_CLAIM_WAIT_SECONDS = 20;

/** The run's clock: nothing is due before `dueFrom`, everything by `dueTo` (ms since the epoch). */
export interface DueWindow {
  dueFrom: number;
  dueTo: number;
}

/** The i-th of `count` instants spread evenly over the window (the middle of its slice). */
export function dueTimeOf(window: DueWindow, i: number, count: number): number {
  return Math.round(window.dueFrom + ((i + 0.5) / count) * (window.dueTo - window.dueFrom));
}

/**
 * A cron expression with a seconds field that fires once an hour, at the whole second of `at`
 * (UTC): in a window shorter than an hour, exactly once. The first second of a window is skipped
 * so that no fire falls before `dueFrom`.
 */
export function hourlyCronAt(at: number): string {
  const date = new Date(Math.ceil(at / 1000) * 1000);
  return `${date.getUTCSeconds()} ${date.getUTCMinutes()} * * * *`;
}

/** How the jobs get their time: the public `run_at` (CONTRACT §6.8) when the API has it. */
export type JobCreationPath = "api-run_at" | "database";

/**
 * Whether POST /jobs takes `run_at`: a probe job an hour ahead, read back (a record with `run_at`)
 * and cancelled. An API that ignores the unknown field would create a job due now, so the record,
 * not the status, decides.
 */
export async function probeRunAt(http: JsonClient, seed: HubSeed): Promise<JobCreationPath> {
  const runAt = new Date(Date.now() + 3_600_000).toISOString();
  const created = await http.send<{ id: string }>("POST", "/jobs", {
    token: seed.creatorToken,
    body: { automation_id: seed.automationIds[0], context: { [CONTEXT_PARAMETER]: "probe" }, run_at: runAt },
    expected: 201,
  });
  const job = await http.send<{ run_at?: string | null }>("GET", `/jobs/${created.id}`, { token: seed.creatorToken, expected: 200 });
  await http.send("POST", `/jobs/${created.id}/cancel`, { token: seed.creatorToken, expected: 200 });
  return job.run_at ? "api-run_at" : "database";
}

const API_BATCH = 500;

/** Creates `count` jobs over the automations, due at {@link dueTimeOf}; resolves with their ids' count. */
export async function createTimedJobs(
  path: JobCreationPath,
  target: { http: JsonClient; seed: HubSeed; databaseUrl: string },
  window: DueWindow,
  count: number,
): Promise<number> {
  const { seed } = target;
  const job = (i: number) => ({
    automationIndex: i % seed.automationIds.length,
    context: { [CONTEXT_PARAMETER]: `inv-timed-${i}` },
    dueAt: dueTimeOf(window, i, count),
  });
  if (path === "api-run_at") {
    let next = 0;
    const lane = async () => {
      while (next < count) {
        const start = next;
        next = Math.min(count, next + API_BATCH);
        const items = Array.from({ length: next - start }, (_, k) => job(start + k));
        await target.http.send("POST", "/jobs/batch", {
          token: seed.creatorToken,
          body: {
            jobs: items.map((item) => ({
              automation_id: seed.automationIds[item.automationIndex],
              context: item.context,
              run_at: new Date(item.dueAt).toISOString(),
            })),
          },
          expected: 201,
        });
      }
    };
    await Promise.all(Array.from({ length: 4 }, lane));
    return count;
  }
  const me = await target.http.send<{ id: string }>("GET", "/identity/me", { token: seed.creatorToken, expected: 200 });
  const database = openDatabase(target.databaseUrl, { max: 2, applicationName: "bench-seed" });
  try {
    let created = 0;
    for (let start = 0; start < count; start += jobs.MAX_SEEDED_JOBS_PER_CALL) {
      const items = Array.from({ length: Math.min(jobs.MAX_SEEDED_JOBS_PER_CALL, count - start) }, (_, k) => job(start + k));
      created += await jobs.seed(
        database.pool,
        me.id,
        items.map((item) => ({ automationId: seed.automationIds[item.automationIndex]!, context: item.context, availableAt: new Date(item.dueAt) })),
      );
    }
    return created;
  } finally {
    await database.close();
  }
}

/** Creates `count` schedules over the automations, each firing once in the window (seconds field). */
export async function createTimedSchedules(http: JsonClient, adminToken: string, seed: HubSeed, window: DueWindow, count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await http.send("POST", `/automations/${seed.automationIds[i % seed.automationIds.length]}/schedules`, {
        token: adminToken,
        body: { cron: hourlyCronAt(dueTimeOf(window, i, count)), context: { [CONTEXT_PARAMETER]: `inv-fire-${i}` }, key: `bench-${i}` },
        expected: 201,
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
}

/**
 * `loops` claim loops spread evenly over the automations (at least one each), each long-polling for
 * up to `maxJobs` at a time with claim-batch and completing them at once; `stop` ends the
 * long-polls and resolves with the jobs completed.
 */
export function startTimedWorkers(target: HubBatchTarget, automations: number, maxJobs: number, loops: number) {
  const stop = new AbortController();
  // Every open long-poll listens on this one signal (fetch adds a listener per request, and a loop's
  // next request can add its own before the last one's is removed).
  setMaxListeners(2 * loops + 8, stop.signal);
  let completed = 0;
  const loop = async (automation: number) => {
    while (!stop.signal.aborted) {
      let claimed;
      try {
        claimed = await target.claimBatch(automation, maxJobs, SDK_CLAIM_WAIT_SECONDS, stop.signal);
      } catch (error) {
        if (stop.signal.aborted) return;
        throw error;
      }
      if (claimed.length === 0) continue;
      await target.completeBatch(
        automation,
        claimed.map((job) => ({ id: job.id, result: {} })),
      );
      completed += claimed.length;
    }
  };
  const running = Array.from({ length: Math.max(loops, automations) }, (_, i) => loop(i % automations));
  return {
    get completed() {
      return completed;
    },
    async stop(): Promise<number> {
      stop.abort();
      await Promise.all(running);
      return completed;
    },
  };
}

/** What the run's jobs look like in the database: statuses, lateness, and what the audit checks. */
export interface TimedFigures {
  byStatus: Record<string, number>;
  /** started_at − available_at of the jobs created up front (claim time − run_at), ms. */
  claimLatenessMs: number[];
  /** created_at − fire_time of the jobs schedules made, ms. */
  fireLatenessMs: number[];
  /** Jobs claimed before their time (must be none). */
  claimedEarly: number;
  /** Schedules that made no job, or more than one (must be none). */
  schedulesNotFiredOnce: number;
}

export async function readTimedFigures(pool: pg.Pool, automationIds: string[]): Promise<TimedFigures> {
  const statuses = await pool.query<{ status: string; count: number }>(
    "select status, count(*)::int as count from jobs where automation_id = any($1::uuid[]) group by status",
    [automationIds],
  );
  const claims = await pool.query<{ lateness_ms: number }>(
    `select (extract(epoch from started_at - available_at) * 1000)::float8 as lateness_ms from jobs
     where automation_id = any($1::uuid[]) and schedule_id is null and started_at is not null and status <> 'cancelled'`,
    [automationIds],
  );
  const fires = await pool.query<{ lateness_ms: number }>(
    "select (extract(epoch from created_at - fire_time) * 1000)::float8 as lateness_ms from jobs where automation_id = any($1::uuid[]) and schedule_id is not null",
    [automationIds],
  );
  const early = await pool.query<{ count: number }>(
    "select count(*)::int as count from jobs where automation_id = any($1::uuid[]) and started_at < available_at",
    [automationIds],
  );
  const firedOnce = await pool.query<{ count: number }>(
    `select count(*)::int as count from schedules s
     where s.automation_id = any($1::uuid[]) and (select count(*) from jobs j where j.schedule_id = s.id) <> 1`,
    [automationIds],
  );
  return {
    byStatus: Object.fromEntries(statuses.rows.map((row) => [row.status, row.count])),
    claimLatenessMs: claims.rows.map((row) => row.lateness_ms),
    fireLatenessMs: fires.rows.map((row) => row.lateness_ms),
    claimedEarly: early.rows[0]!.count,
    schedulesNotFiredOnce: firedOnce.rows[0]!.count,
  };
}

/**
 * Waits until the event relay has dispatched every event the set-up wrote (100,000 `job.created`
 * take it a while), so that the idle window measures waiting, not the relay draining a backlog.
 * Resolves with how long that took, or null when `until` came first.
 */
export async function waitForOutboxDrained(pool: pg.Pool, until: number): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    const { rows } = await pool.query<{ pending: boolean }>("select exists (select 1 from events where dispatched_at is null) as pending");
    if (!rows[0]!.pending) return Date.now() - started;
    if (Date.now() >= until) return null;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
