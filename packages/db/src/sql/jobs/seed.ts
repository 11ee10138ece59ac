/**
 * Seeding many jobs straight into the database, for benchmarks and tests that need a large queue
 * due at chosen times. Not an API path: clients set a job's time with `run_at` on POST /jobs
 * (CONTRACT §6.8). The jobs are what POST /jobs would write — a queued job and its `job.created`
 * event — with `available_at` set; the dispatcher's reconciler offers each one as it comes due.
 */
import { runStatement, type NamedStatement, type Executor } from "../../executor";

export interface SeededJob {
  automationId: string;
  context: Record<string, unknown>;
  /** When it may be claimed. */
  availableAt: Date;
}

/** Most jobs one {@link seed} call inserts: one statement, one transaction. */
export const MAX_SEEDED_JOBS_PER_CALL = 10_000;

const seedJobsStatement: NamedStatement = {
  name: "jobs_seed",
  text: `
with item as (
  select * from rows from (unnest($1::uuid[]), jsonb_array_elements($2::jsonb), unnest($3::timestamptz[]))
    with ordinality as item(automation_id, context, available_at, position)
), created as (
  insert into jobs (automation_id, context, available_at, created_by)
  select automation_id, context, available_at, $4 from item order by position
  returning id, automation_id, context
), event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select id, 'job.created', $4, jsonb_build_object('automation_id', automation_id, 'context', context) from created
)
select count(*)::int as created from created`,
};

/**
 * Inserts up to {@link MAX_SEEDED_JOBS_PER_CALL} queued jobs with their `job.created` events, as
 * `createdBy`, in one statement. The automations must exist; their parameters are not checked.
 */
export async function seed(db: Executor, createdBy: string, jobs: readonly SeededJob[]): Promise<number> {
  if (jobs.length > MAX_SEEDED_JOBS_PER_CALL) throw new RangeError(`seed at most ${MAX_SEEDED_JOBS_PER_CALL} jobs per call`);
  if (jobs.length === 0) return 0;
  const [row] = await runStatement<{ created: number }>(db, seedJobsStatement, [
    jobs.map((job) => job.automationId),
    JSON.stringify(jobs.map((job) => job.context)),
    jobs.map((job) => job.availableAt),
    createdBy,
  ]);
  return row!.created;
}
