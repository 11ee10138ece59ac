/**
 * The AUDIT every system test ends with: what PostgreSQL, the outbox and the workers recorded
 * must tell one consistent story, whatever processes were killed or whatever Redis lost.
 *
 * - Every job is queued or in exactly one terminal state (none left running).
 * - Every terminal job has exactly one terminal event (job.completed | job.failed | job.cancelled)
 *   and it matches its status; a queued job has none. No job has more than one.
 * - No result was recorded twice, and the workers agree: each completed job was accepted (200)
 *   by exactly one worker call, whose result is the one stored; no other job was accepted. (A job
 *   whose worker's API process was killed mid-call may be completed unanswered: `unanswered`.)
 * - Each job has exactly one job.created event; its `attempts` equals its job.started events; and
 *   its events form a valid life (started only while not running; requeued, completed and failed
 *   only while running).
 * - The concurrency limit held: at no sample of `running` rows (taken every ~20 ms during the run
 *   by {@link ConcurrencySampler}) and at no point of the event timeline did an automation have
 *   more than `max_concurrent_jobs` jobs running.
 *
 * The timeline check orders events by `position` (an identity column, so allocation order). It
 * never over-counts: claims of one automation are serialised on its row, so when claim B writes
 * job.started, every job the timeline shows running had a committed start B saw, and any end B
 * did not see was written after B counted — the timeline is at most what B's check allowed.
 */
import type { Database } from "@hub/db";
import type { RedisConnection } from "@hub/shared";
import type { ConcurrencySampler } from "./concurrency-sampler";

/**
 * What {@link CompletionLedger} reads of a worker loop's events (the reference worker's
 * `WorkerEvent` fits): a result the hub accepted, or a job the hub took back.
 */
export interface LedgerWorkerEvent {
  type: string;
  job?: { id: string };
  result?: Record<string, unknown>;
}

const TERMINAL_EVENT_OF_STATUS = {
  completed: "job.completed",
  failed: "job.failed",
  cancelled: "job.cancelled",
} as const;
const TERMINAL_EVENTS = new Set<string>(Object.values(TERMINAL_EVENT_OF_STATUS));

/** What the workers were told: each result the hub accepted (200 on /complete), per job. */
export class CompletionLedger {
  readonly accepted = new Map<string, Record<string, unknown>[]>();
  /** Results refused because the job was no longer leased (409/404): work the hub took back. */
  refused = 0;

  /** Records a result the hub accepted. */
  accept(jobId: string, result: Record<string, unknown>): void {
    const results = this.accepted.get(jobId) ?? [];
    results.push(result);
    this.accepted.set(jobId, results);
  }

  /** Feed for `runWorker({ onEvent })`. */
  readonly onWorkerEvent = (event: LedgerWorkerEvent): void => {
    if (event.type === "completed" && event.job && event.result) this.accept(event.job.id, event.result);
    if (event.type === "lease_lost") this.refused += 1;
  };

  get acceptedCount(): number {
    let count = 0;
    for (const results of this.accepted.values()) count += results.length;
    return count;
  }
}

export interface AuditOptions {
  /** The automations whose jobs are audited (other tests of the file may leave jobs elsewhere). */
  automationIds: string[];
  /** The workers' record of accepted results; omit when no worker reported through a ledger. */
  ledger?: CompletionLedger;
  /** A stopped sampler that watched the run. */
  sampler?: ConcurrencySampler;
  /**
   * Jobs a worker claimed and never heard back about because the API process it called was
   * SIGKILLed: that process may have committed the result and died before answering, so one of
   * these may be completed without an accepted call. Every other rule still holds for them.
   */
  unanswered?: ReadonlySet<string>;
}

export interface AuditReport {
  /** Empty when the audit passed; otherwise one line per broken rule. */
  violations: string[];
  jobs: number;
  byStatus: Record<string, number>;
  /** Most jobs running at once per automation, by the event timeline. */
  peakRunningByEvents: Record<string, number>;
  /** Most jobs running at once per automation, by sampling. */
  peakRunningSampled: Record<string, number>;
}

interface JobRow {
  id: string;
  automation_id: string;
  status: string;
  attempts: number;
  result: Record<string, unknown> | null;
}

interface EventRow {
  aggregate_id: string;
  event_type: string;
  position: number;
}

const TIMELINE_EVENTS = ["job.started", "job.completed", "job.failed", "job.cancelled", "job.requeued"];
const AUDITED_EVENTS = ["job.created", ...TIMELINE_EVENTS];

export async function auditJobs(database: Database, options: AuditOptions): Promise<AuditReport> {
  const { pool } = database;
  const violations: string[] = [];
  const automationIds = options.automationIds;

  const limits = new Map(
    (
      await pool.query<{ id: string; max_concurrent_jobs: number }>("select id, max_concurrent_jobs from automations where id = any($1::uuid[])", [
        automationIds,
      ])
    ).rows.map((row) => [row.id, row.max_concurrent_jobs]),
  );
  const jobs = (await pool.query<JobRow>("select id, automation_id, status, attempts, result from jobs where automation_id = any($1::uuid[])", [automationIds]))
    .rows;
  const jobById = new Map(jobs.map((job) => [job.id, job]));
  const events = (
    await pool.query<EventRow>(
      `select aggregate_id, event_type, position from events
       where event_type = any($1::text[]) and aggregate_id = any($2::uuid[]) order by position`,
      [AUDITED_EVENTS, jobs.map((job) => job.id)],
    )
  ).rows;

  const byStatus: Record<string, number> = {};
  for (const job of jobs) byStatus[job.status] = (byStatus[job.status] ?? 0) + 1;

  // Terminal state and terminal events.
  const eventsOfJob = new Map<string, EventRow[]>();
  for (const event of events) {
    const list = eventsOfJob.get(event.aggregate_id) ?? [];
    list.push(event);
    eventsOfJob.set(event.aggregate_id, list);
  }
  for (const job of jobs) {
    const own = eventsOfJob.get(job.id) ?? [];
    const terminal = own.filter((event) => TERMINAL_EVENTS.has(event.event_type)).map((event) => event.event_type);
    const started = own.filter((event) => event.event_type === "job.started").length;
    const created = own.filter((event) => event.event_type === "job.created").length;
    if (created !== 1) violations.push(`job ${job.id} has ${created} job.created events (expected exactly one)`);
    if (job.status === "queued") {
      if (terminal.length > 0) violations.push(`job ${job.id} is queued but has terminal events ${terminal.join(", ")}`);
    } else if (job.status in TERMINAL_EVENT_OF_STATUS) {
      const expected = TERMINAL_EVENT_OF_STATUS[job.status as keyof typeof TERMINAL_EVENT_OF_STATUS];
      if (terminal.length !== 1 || terminal[0] !== expected) {
        violations.push(`job ${job.id} is ${job.status} but its terminal events are [${terminal.join(", ")}] (expected exactly one ${expected})`);
      }
    } else {
      violations.push(`job ${job.id} is ${job.status}: neither queued nor terminal`);
    }
    if (started !== job.attempts) violations.push(`job ${job.id} has attempts ${job.attempts} but ${started} job.started events`);
  }

  // The workers' record of accepted results against what the hub stored.
  if (options.ledger) {
    for (const [jobId, results] of options.ledger.accepted) {
      const job = jobById.get(jobId);
      if (!job) {
        violations.push(`a worker's result for job ${jobId} was accepted, but the job is not among the audited automations`);
        continue;
      }
      if (results.length > 1) violations.push(`job ${jobId}: ${results.length} results were accepted (at most one may be)`);
      if (job.status !== "completed") violations.push(`job ${jobId}: a result was accepted but the job is ${job.status}`);
      else if (JSON.stringify(canonical(job.result)) !== JSON.stringify(canonical(results[0]))) {
        violations.push(`job ${jobId}: the stored result ${JSON.stringify(job.result)} is not the accepted one ${JSON.stringify(results[0])}`);
      }
    }
    for (const job of jobs) {
      if (job.status === "completed" && !options.ledger.accepted.has(job.id) && !options.unanswered?.has(job.id)) {
        violations.push(`job ${job.id} is completed, but no worker call that completed it was accepted`);
      }
    }
  }

  // The event timeline: a valid life per job, and the concurrency limit at every job.started.
  const running = new Map<string, Set<string>>();
  const peakRunningByEvents: Record<string, number> = {};
  for (const event of events) {
    if (event.event_type === "job.created") continue;
    const job = jobById.get(event.aggregate_id)!;
    const set = running.get(job.automation_id) ?? new Set<string>();
    running.set(job.automation_id, set);
    if (event.event_type === "job.started") {
      if (set.has(job.id)) violations.push(`job ${job.id} started again while running (event position ${event.position})`);
      set.add(job.id);
      peakRunningByEvents[job.automation_id] = Math.max(peakRunningByEvents[job.automation_id] ?? 0, set.size);
      const limit = limits.get(job.automation_id) ?? 0;
      if (set.size > limit) {
        violations.push(`automation ${job.automation_id}: ${set.size} jobs running at event position ${event.position} (limit ${limit})`);
      }
    } else {
      // Only a cancellation may end a job that was not running (a queued job being cancelled).
      if (!set.delete(job.id) && event.event_type !== "job.cancelled") {
        violations.push(`job ${job.id}: ${event.event_type} at position ${event.position} while it was not running`);
      }
    }
  }

  const peakRunningSampled: Record<string, number> = {};
  if (options.sampler) {
    if (options.sampler.samples === 0) violations.push("the concurrency sampler took no sample");
    for (const automationId of automationIds) {
      const peak = options.sampler.peakRunning.get(automationId) ?? 0;
      peakRunningSampled[automationId] = peak;
      const limit = limits.get(automationId) ?? 0;
      if (peak > limit) violations.push(`automation ${automationId}: ${peak} jobs sampled running at once (limit ${limit})`);
    }
  }

  return { violations, jobs: jobs.length, byStatus, peakRunningByEvents, peakRunningSampled };
}

/** JSON with sorted keys, so jsonb round-trips compare equal. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  return value;
}

/** An entry of the events stream as the audit reads it: the stream id and the event's id and aggregate. */
export interface PublishedEvent {
  streamId: string;
  id: string;
  aggregateId: string;
}

/** Every entry of a stream, oldest first, with its fields by name, through any connection (a cluster's included). */
export async function readStreamEntries(
  redis: Pick<RedisConnection, "xrange">,
  key: string,
): Promise<Array<{ streamId: string; fields: Record<string, string> }>> {
  const entries: Array<{ streamId: string; fields: Record<string, string> }> = [];
  let start = "-";
  for (;;) {
    const page = await redis.xrange(key, start, "+", "COUNT", 1000);
    for (const [streamId, flat] of page) {
      const fields: Record<string, string> = {};
      for (let index = 0; index + 1 < flat.length; index += 2) fields[flat[index]!] = flat[index + 1]!;
      entries.push({ streamId, fields });
    }
    if (page.length < 1000) return entries;
    start = `(${page[page.length - 1]![0]}`;
  }
}

/** Every entry of the events stream (`hub:events`), oldest first: its stream id, event id and aggregate. */
export async function readEventStream(redis: Pick<RedisConnection, "xrange">, key: string): Promise<PublishedEvent[]> {
  return (await readStreamEntries(redis, key)).map(({ streamId, fields }) => ({ streamId, id: fields.id!, aggregateId: fields.aggregate_id! }));
}

/**
 * The outbox side of an audit, for the jobs of `automationIds`: every event was dispatched (its
 * `dispatched_at` set, read from PostgreSQL, so a stream that lost entries with a Redis master does
 * not matter) and — given the `stream`'s entries — each event reached the stream and an aggregate's
 * first occurrences come in position order (a consumer that dedupes by id sees them in order).
 */
export async function auditOutbox(database: Database, options: { automationIds: string[]; stream?: readonly PublishedEvent[] }): Promise<string[]> {
  const { rows } = await database.pool.query<{ id: string; aggregate_id: string; position: string; dispatched_at: Date | null }>(
    `select e.id, e.aggregate_id, e.position::text as position, e.dispatched_at
       from events e join jobs j on j.id = e.aggregate_id
      where j.automation_id = any($1::uuid[])
      order by e.position`,
    [options.automationIds],
  );
  const violations: string[] = [];
  for (const row of rows) {
    if (!row.dispatched_at) violations.push(`event ${row.id} of ${row.aggregate_id} (position ${row.position}) was never dispatched`);
  }
  if (options.stream) {
    const positionOf = new Map(rows.map((row) => [row.id, BigInt(row.position)]));
    const seen = new Set<string>();
    const lastPosition = new Map<string, bigint>();
    for (const entry of options.stream) {
      const position = positionOf.get(entry.id);
      if (position === undefined || seen.has(entry.id)) continue;
      seen.add(entry.id);
      const previous = lastPosition.get(entry.aggregateId);
      if (previous !== undefined && position < previous)
        violations.push(`stream entry ${entry.streamId}: event ${entry.id} of ${entry.aggregateId} came after a later event of it`);
      lastPosition.set(entry.aggregateId, position);
    }
    const missing = rows.filter((row) => !seen.has(row.id));
    if (missing.length > 0) violations.push(`${missing.length} events are not in the stream, e.g. ${missing[0]!.id}`);
  }
  return violations;
}
