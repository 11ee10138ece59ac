/**
 * Jobs' stored trace contexts (CONTRACT §6.20), read apart from the statements that offer jobs or
 * relay their events: only a process with tracing on asks, so with it off those paths do not
 * change. (A tracing API's claim reads them in its own statement: ./claim.ts.)
 */
import type { Executor } from "../../executor";

export interface JobTraceRow {
  id: string;
  traceparent: string;
  tracestate: string | null;
  automationId: string;
  automationSlug: string;
}

/** The trace context (and automation slug) of each of `jobIds` that has one; by primary key. */
export async function readTraceContexts(db: Executor, jobIds: readonly string[]): Promise<Map<string, JobTraceRow>> {
  if (jobIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; traceparent: string; tracestate: string | null; automation_id: string; slug: string }>({
    name: "jobs_read_trace_contexts",
    text: `select j.id, j.traceparent, j.tracestate, j.automation_id, a.slug
           from jobs j join automations a on a.id = j.automation_id
           where j.id = any($1::uuid[]) and j.traceparent is not null`,
    values: [jobIds],
  });
  return new Map(
    rows.map((row) => [
      row.id,
      { id: row.id, traceparent: row.traceparent, tracestate: row.tracestate, automationId: row.automation_id, automationSlug: row.slug },
    ]),
  );
}

/** Where an ended attempt began: the `job.started` event just before an ending event, if nothing else ended it first. */
export interface AttemptStart {
  /** The ending event's id. */
  endingEventId: string;
  attempt: number;
  startedAt: Date;
}

/**
 * For each ending job event (`job.completed`, `job.failed`, `job.requeued`, `job.cancelled`), the
 * attempt it ended: the job's latest lifecycle event before it, when that is the `job.started` of
 * the attempt. A cancel or requeue of a job that was not running (its latest lifecycle event
 * is another ending) ended no attempt and is left out. Reads each job's events through
 * events_aggregate_created_idx.
 */
export async function readAttemptStarts(db: Executor, endingEventIds: readonly string[]): Promise<AttemptStart[]> {
  if (endingEventIds.length === 0) return [];
  const { rows } = await db.query<{ ending_id: string; attempt: number; started_at: Date }>({
    name: "events_read_attempt_starts",
    text: `select ending.id as ending_id, (latest.payload ->> 'attempt')::int as attempt, latest.created_at as started_at
           from events ending
           cross join lateral (
             select p.event_type, p.payload, p.created_at from events p
             where p.aggregate_id = ending.aggregate_id and p.position < ending.position
               and p.event_type in ('job.started', 'job.completed', 'job.failed', 'job.requeued', 'job.cancelled')
             order by p.position desc limit 1
           ) latest
           where ending.id = any($1::uuid[]) and latest.event_type = 'job.started'`,
    values: [endingEventIds],
  });
  return rows.map((row) => ({ endingEventId: row.ending_id, attempt: row.attempt, startedAt: row.started_at }));
}
