/**
 * The AUDIT of CONTRACT §6.13 (limits per key, rate limits, fair sharing) from the event log of
 * one automation, for system tests that ran it through many processes and faults. It complements
 * {@link auditJobs} (nothing lost or doubled) with the three limits:
 *
 * - Concurrency: replaying `job.started` against `job.completed` / `job.failed` / `job.requeued` /
 *   `job.cancelled` in `position` order, at no `job.started` do more than `max_concurrent_jobs`
 *   jobs run, nor more than `max_concurrent_per_key` of one key value (the value of
 *   `context[concurrency_key]`, JSON `null` when absent). Position order, not time order: claims
 *   of an automation are serialised on its row, so positions of starts follow that lock order,
 *   and an end a claim saw committed was written before the claim's `job.started` — the replay
 *   never shows fewer running than the claim counted (see audit.ts). `created_at` is the
 *   writing transaction's start, and a completion that began before a claim may commit after it,
 *   so a replay by times would report overlaps that never existed.
 * - Rate: sorted by `created_at` (`now()` of the claim, stored to the millisecond), no `count + 1`
 *   starts of the automation (of one key value, with `per_key`) lie within less than
 *   `period_seconds`. Exact despite the rounding: rounding to whole milliseconds keeps order and
 *   commutes with adding a whole period.
 * - Fairness (the rule of §6.13: the next start goes to the allowed key value whose last start is
 *   oldest by the start counter, never-started values first, among them §6.8's order of their
 *   first due job; a higher priority due first). At each `job.started` S (key value v), for every
 *   other value w the log proves was allowed and waiting, w must not have been ahead of v. The
 *   log proves, at S (its `now()`, from `created_at`):
 *   - w waited: one of its jobs had never started before S, is due, and the test saw it
 *     committed before S began (a {@link CommitWitness} reading of PostgreSQL's clock taken after
 *     POST /jobs returned — the log alone cannot tell when an insert committed);
 *   - w was below `max_concurrent_per_key` as S counted it: each job of w that started before S
 *     counts as running unless its end is proven visible to S — it started again before S (the
 *     claim that did saw it queued), or it is its final end and a worker's completion of it was
 *     acknowledged before S began (the witness again);
 *   - with `per_key`, w's window allowed a start at S: its ring (the last `count` start times,
 *     each the later of the claim's `now()` and the previous entry, as the claim keeps it) is
 *     rebuilt from the log, with a millisecond of margin for the rounding.
 *   Then w ahead of v is a violation: w offered a higher priority; or the same priority and w
 *   never started while v had, or both started and w's last start is earlier in the start order
 *   (positions), or neither started and w's due job comes before S's job in §6.8's order. Values
 *   the log cannot prove waiting or allowed are not judged, so a pass proves the rule for every
 *   (start, value) pair counted in `fairnessChecks`, no more. Within a key value (or an automation
 *   without a key) no job that provably waited may come before the started one in §6.8's order.
 *   That order takes each job's `available_at` as it was at the start: as inserted, then as its
 *   latest `job.requeued` (whose payload carries it) moved it.
 */
import type pg from "pg";
import type { Database } from "@hub/db";

export interface AutomationLimits {
  maxConcurrentJobs: number;
  /** With `maxConcurrentPerKey`; null without a key. */
  concurrencyKey: string | null;
  maxConcurrentPerKey: number | null;
  rateLimit: { count: number; periodSeconds: number; perKey: boolean } | null;
}

export interface LimitLogJob {
  id: string;
  /** Its key value as JSON text (`"acme"`, `null` when the context lacks it). */
  key: string;
  priority: number;
  /** `available_at` as inserted, in milliseconds since the epoch (a `job.requeued` event moves it). */
  availableAtMs: number;
  seq: number;
}

export type LimitLogEventType = "job.started" | "job.completed" | "job.failed" | "job.requeued" | "job.cancelled";

export interface LimitLogEvent {
  jobId: string;
  type: LimitLogEventType;
  position: number;
  /** `created_at` in milliseconds since the epoch (stored to the millisecond). */
  atMs: number;
  /** Of a `job.requeued`: the job's new `available_at` (its payload's), in milliseconds. */
  availableAtMs?: number;
}

/** Readings of PostgreSQL's clock (ms, rounded up) taken after the test knew a commit was done. */
export interface CommitWitnesses {
  /** Per job: after POST /jobs returned it. */
  createdBy: ReadonlyMap<string, number>;
  /** Per job: after a worker's completion of it was acknowledged (its final end). */
  endedBy: ReadonlyMap<string, number>;
}

export interface LimitsReport {
  /** Empty when every rule held; otherwise one line per breach. */
  violations: string[];
  starts: number;
  /** `job.requeued` events: attempts that ended without a result (a lapsed lease, a retryable failure). */
  requeues: number;
  /** Most jobs running at once, in all and of one key value (replay in position order). */
  peakRunning: number;
  peakRunningPerKey: number;
  /** Most starts within any `period_seconds` (of one key value with `per_key`); 0 without a rate limit. */
  busiestWindow: number;
  /** (start, waiting and allowed other key value) pairs the fairness rule was checked on. */
  fairnessChecks: number;
  /** Of those, pairs whose other value had started before and provably had nothing running: an idle key. */
  idleKeyChecks: number;
}

const ENDS = new Set<LimitLogEventType>(["job.completed", "job.failed", "job.requeued", "job.cancelled"]);
const TERMINAL = new Set<LimitLogEventType>(["job.completed", "job.failed", "job.cancelled"]);

/** Checks a run's log against the limits (see the module comment); `events` in any order. */
export function checkLimitLog(
  limits: AutomationLimits,
  jobs: readonly LimitLogJob[],
  events: readonly LimitLogEvent[],
  witnesses?: CommitWitnesses,
): LimitsReport {
  const violations: string[] = [];
  const jobById = new Map(jobs.map((job) => [job.id, job]));
  const ordered = [...events].sort((a, b) => a.position - b.position);
  const keyed = limits.concurrencyKey !== null && limits.maxConcurrentPerKey !== null;
  const rate = limits.rateLimit;
  const periodMs = rate ? rate.periodSeconds * 1000 : 0;

  /** Each job's `available_at` at the event at hand: as inserted, then as its latest `job.requeued` set it. */
  const availableAt = new Map(jobs.map((job) => [job.id, job.availableAtMs]));
  /** §6.8's claim order at the event at hand: a negative number when `a` comes first. */
  const claimOrder = (a: LimitLogJob, b: LimitLogJob): number => b.priority - a.priority || availableAt.get(a.id)! - availableAt.get(b.id)! || a.seq - b.seq;
  const jobsOfKey = new Map<string, LimitLogJob[]>();
  for (const job of jobs) jobsOfKey.set(job.key, [...(jobsOfKey.get(job.key) ?? []), job]);

  const running = new Set<string>();
  const runningOfKey = new Map<string, Set<string>>();
  /** Per job: its latest start before the event at hand, and the end of that start (if any). */
  const lastStart = new Map<string, number>();
  const endOfLastStart = new Map<string, LimitLogEventType>();
  const startedOfKey = new Map<string, Set<string>>();
  /** Per key value: the start counter's value at its last start. */
  const lastStartIndex = new Map<string, number>();
  /** Per key value (with `per_key`): its ring of start times, oldest first, all of them. */
  const ringOfKey = new Map<string, number[]>();
  const startTimes = new Map<string, number[]>();
  let starts = 0;
  let requeues = 0;
  let peakRunning = 0;
  let peakRunningPerKey = 0;
  let fairnessChecks = 0;
  let idleKeyChecks = 0;

  /** Jobs of `key` that S may have counted running: started, and no end of theirs proven visible to S. */
  const maybeRunning = (key: string, nowMs: number): number => {
    let count = 0;
    for (const jobId of startedOfKey.get(key) ?? []) {
      if (running.has(jobId)) count += 1;
      else {
        const end = endOfLastStart.get(jobId)!;
        const ackedBy = witnesses?.endedBy.get(jobId);
        if (!(TERMINAL.has(end) && ackedBy !== undefined && ackedBy < nowMs)) count += 1;
      }
    }
    return count;
  };

  /** A job that never started before the event at hand, due and witnessed committed before `nowMs`. */
  const provablyWaiting = (candidate: LimitLogJob, nowMs: number): boolean => {
    const createdBy = witnesses?.createdBy.get(candidate.id);
    // nowMs is now() rounded to the millisecond: the claim's now() is at least nowMs - 0.5.
    return createdBy !== undefined && createdBy < nowMs && availableAt.get(candidate.id)! < nowMs - 0.5 && !lastStart.has(candidate.id);
  };

  for (const event of ordered) {
    const job = jobById.get(event.jobId);
    if (!job) {
      violations.push(`event ${event.type} at position ${event.position} is of job ${event.jobId}, which is not among the automation's jobs`);
      continue;
    }
    if (ENDS.has(event.type)) {
      if (event.type === "job.requeued") {
        requeues += 1;
        if (event.availableAtMs !== undefined) availableAt.set(job.id, event.availableAtMs);
      }
      if (running.delete(job.id)) runningOfKey.get(job.key)!.delete(job.id);
      if (lastStart.has(job.id)) endOfLastStart.set(job.id, event.type);
      continue;
    }
    // job.started: first fairness, against the state the claim saw, then the start itself.
    const nowMs = event.atMs;
    // Within a key value (or the automation without a key) §6.8's order holds: no job of its own that provably waited
    // comes before the one started.
    for (const own of jobsOfKey.get(job.key) ?? []) {
      if (own.id === job.id || !provablyWaiting(own, nowMs) || claimOrder(own, job) >= 0) continue;
      violations.push(
        `start of job ${job.id} (key ${job.key}, position ${event.position}): job ${own.id} of the same key waited and comes first in claim order` +
          ` (priority ${own.priority}/${job.priority}, available_at ${availableAt.get(own.id)}/${availableAt.get(job.id)} ms, seq ${own.seq}/${job.seq}${lastStart.has(job.id) ? ", a restart" : ""})`,
      );
      break;
    }
    if (keyed) {
      for (const [other, otherJobs] of jobsOfKey) {
        if (other === job.key) continue;
        let head: LimitLogJob | undefined;
        for (const candidate of otherJobs) {
          if (provablyWaiting(candidate, nowMs) && (!head || claimOrder(candidate, head) < 0)) head = candidate;
        }
        if (!head || head.priority < job.priority) continue;
        const busy = maybeRunning(other, nowMs);
        if (busy >= limits.maxConcurrentPerKey!) continue;
        if (rate?.perKey) {
          const ring = ringOfKey.get(other) ?? [];
          if (ring.length >= rate.count && ring[ring.length - rate.count]! + periodMs + 1 > nowMs) continue;
        }
        fairnessChecks += 1;
        const otherLast = lastStartIndex.get(other);
        if (otherLast !== undefined && busy === 0) idleKeyChecks += 1;
        const ownLast = lastStartIndex.get(job.key);
        const where = `start of job ${job.id} (key ${job.key}, position ${event.position})`;
        if (head.priority > job.priority) violations.push(`${where}: key ${other} offered the higher priority ${head.priority} (job ${head.id})`);
        else if (otherLast === undefined && ownLast !== undefined) violations.push(`${where}: key ${other} never started and waited (job ${head.id})`);
        else if (otherLast !== undefined && ownLast !== undefined && otherLast < ownLast) {
          violations.push(`${where}: key ${other} waited (job ${head.id}) with an older last start (#${otherLast} before #${ownLast})`);
        } else if (otherLast === undefined && ownLast === undefined && claimOrder(head, job) < 0) {
          violations.push(`${where}: key ${other} never started either and its job ${head.id} comes first in claim order`);
        }
      }
    }

    if (running.has(job.id)) violations.push(`job ${job.id} started at position ${event.position} while running`);
    starts += 1;
    running.add(job.id);
    const ofKey = runningOfKey.get(job.key) ?? new Set<string>();
    runningOfKey.set(job.key, ofKey);
    ofKey.add(job.id);
    lastStart.set(job.id, event.position);
    endOfLastStart.delete(job.id);
    startedOfKey.set(job.key, (startedOfKey.get(job.key) ?? new Set<string>()).add(job.id));
    lastStartIndex.set(job.key, starts);
    peakRunning = Math.max(peakRunning, running.size);
    if (running.size > limits.maxConcurrentJobs) {
      violations.push(`${running.size} jobs running at position ${event.position} (max_concurrent_jobs ${limits.maxConcurrentJobs})`);
    }
    if (keyed) {
      peakRunningPerKey = Math.max(peakRunningPerKey, ofKey.size);
      if (ofKey.size > limits.maxConcurrentPerKey!) {
        violations.push(`${ofKey.size} jobs of key ${job.key} running at position ${event.position} (max_concurrent_per_key ${limits.maxConcurrentPerKey})`);
      }
    }
    if (rate) {
      const scope = rate.perKey ? job.key : "";
      startTimes.set(scope, [...(startTimes.get(scope) ?? []), nowMs]);
      if (rate.perKey) {
        const ring = ringOfKey.get(job.key) ?? [];
        ring.push(Math.max(nowMs, ring[ring.length - 1] ?? nowMs));
        ringOfKey.set(job.key, ring);
      }
    }
  }

  let busiestWindow = 0;
  if (rate) {
    for (const [scope, times] of startTimes) {
      times.sort((a, b) => a - b);
      let from = 0;
      for (let to = 0; to < times.length; to += 1) {
        while (times[to]! - times[from]! >= periodMs) from += 1;
        busiestWindow = Math.max(busiestWindow, to - from + 1);
      }
      for (let i = 0; i + rate.count < times.length; i += 1) {
        if (times[i + rate.count]! - times[i]! < periodMs) {
          const which = rate.perKey ? `of key ${scope} ` : "";
          violations.push(
            `${rate.count + 1} starts ${which}within ${times[i + rate.count]! - times[i]!} ms from ${new Date(times[i]!).toISOString()} (rate_limit ${rate.count} per ${rate.periodSeconds} s)`,
          );
        }
      }
    }
  }

  return { violations, starts, requeues, peakRunning, peakRunningPerKey, busiestWindow, fairnessChecks, idleKeyChecks };
}

/** Reads one automation's limits, jobs and job events from the hub's database and checks them. */
export async function auditLimits(database: Database, automationId: string, witnesses?: CommitWitnesses): Promise<LimitsReport & { limits: AutomationLimits }> {
  const { pool } = database;
  const {
    rows: [automation],
  } = await pool.query<{
    max_concurrent_jobs: number;
    concurrency_key: string | null;
    max_concurrent_per_key: number | null;
    rate_limit_count: number | null;
    rate_limit_period_seconds: number | null;
    rate_limit_per_key: boolean;
  }>(
    `select max_concurrent_jobs, concurrency_key, max_concurrent_per_key, rate_limit_count, rate_limit_period_seconds, rate_limit_per_key
       from automations where id = $1`,
    [automationId],
  );
  if (!automation) throw new Error(`automation ${automationId} not found`);
  const limits: AutomationLimits = {
    maxConcurrentJobs: automation.max_concurrent_jobs,
    concurrencyKey: automation.concurrency_key,
    maxConcurrentPerKey: automation.max_concurrent_per_key,
    rateLimit:
      automation.rate_limit_count === null || automation.rate_limit_period_seconds === null
        ? null
        : { count: automation.rate_limit_count, periodSeconds: automation.rate_limit_period_seconds, perKey: automation.rate_limit_per_key },
  };
  // available_at as inserted: the stored one unless a job.requeued moved it, else greatest(run_at, now()) of the insert.
  const { rows: jobRows } = await pool.query<{ id: string; key: string; priority: number; available_at_ms: string; seq: string }>(
    `select j.id, coalesce(j.context -> $2::text, 'null'::jsonb)::text as key, j.priority, j.seq::text as seq,
            (extract(epoch from case
              when exists (select 1 from events e where e.aggregate_id = j.id and e.event_type = 'job.requeued')
              then greatest(j.created_at, coalesce(j.run_at, j.created_at)) else j.available_at end) * 1000)::bigint::text as available_at_ms
       from jobs j where j.automation_id = $1`,
    [automationId, automation.concurrency_key ?? ""],
  );
  const { rows: eventRows } = await pool.query<{ job_id: string; type: LimitLogEventType; position: string; at_ms: string; available_at_ms: string | null }>(
    `select e.aggregate_id as job_id, e.event_type as type, e.position::text as position,
            round(extract(epoch from e.created_at) * 1000)::bigint::text as at_ms,
            (extract(epoch from (e.payload ->> 'available_at')::timestamptz) * 1000)::bigint::text as available_at_ms
       from events e join jobs j on j.id = e.aggregate_id
      where j.automation_id = $1 and e.event_type = any($2::text[])`,
    [automationId, ["job.started", ...ENDS]],
  );
  const jobs = jobRows.map((row) => ({
    id: row.id,
    key: automation.concurrency_key === null ? "null" : row.key,
    priority: row.priority,
    availableAtMs: Number(row.available_at_ms),
    seq: Number(row.seq),
  }));
  const events = eventRows.map((row) => ({
    jobId: row.job_id,
    type: row.type,
    position: Number(row.position),
    atMs: Number(row.at_ms),
    ...(row.type === "job.requeued" && row.available_at_ms !== null ? { availableAtMs: Number(row.available_at_ms) } : {}),
  }));
  return { ...checkLimitLog(limits, jobs, events, witnesses), limits };
}

/**
 * Readings of PostgreSQL's clock taken once the test knows a commit is done, for the fairness
 * check of {@link checkLimitLog}: after POST /jobs returned ({@link recordCreated}) and after a
 * worker's completion was acknowledged ({@link onWorkerEvent}, a `runWorker({ onEvent })` feed).
 */
export class CommitWitness implements CommitWitnesses {
  readonly createdBy = new Map<string, number>();
  readonly endedBy = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();
  private readonly pool: pg.Pool;

  constructor(database: Database | pg.Pool) {
    this.pool = "pool" in database ? database.pool : database;
  }

  /** PostgreSQL's clock now, in milliseconds rounded up. */
  async clock(): Promise<number> {
    const { rows } = await this.pool.query<{ ms: string }>("select ceil(extract(epoch from clock_timestamp()) * 1000)::bigint::text as ms");
    return Number(rows[0]!.ms);
  }

  /** Call after POST /jobs returned for each of `jobIds`. */
  async recordCreated(jobIds: readonly string[]): Promise<void> {
    const ms = await this.clock();
    for (const id of jobIds) this.createdBy.set(id, ms);
  }

  readonly onWorkerEvent = (event: { type: string; job?: { id: string } }): void => {
    if (event.type !== "completed" || !event.job) return;
    const jobId = event.job.id;
    // A reading that fails leaves the end unwitnessed, which the check treats as not proven.
    const reading: Promise<void> = this.clock().then(
      (ms) => {
        this.endedBy.set(jobId, ms);
        this.pending.delete(reading);
      },
      () => {
        this.pending.delete(reading);
      },
    );
    this.pending.add(reading);
  };

  /** Resolves once every reading begun has been taken. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
