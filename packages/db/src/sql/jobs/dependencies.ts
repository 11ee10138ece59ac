/**
 * What a worker gets about a job's dependencies (CONTRACT §6.16): the `dependencies` of every job a
 * claim hands out — read in one statement for all the handed-out jobs that have any, and not at all
 * for a claim of jobs without — and GET /jobs/{id}/dependencies, the same items in full.
 */
import { runStatement, type Executor, type NamedStatement } from "../../executor";
import type { Job } from "../../schema";
import { fromRow, leasedBy, ofAutomation } from "./row";

/** One dependency as a worker reads it; `status` as shown (a held job reads `queued`). */
export interface JobDependency {
  id: string;
  automationId: string;
  status: string;
  result: Record<string, unknown> | null;
  error: string | null;
  /** The result passed the cap of the job's dependencies and is not carried (null). */
  resultOmitted: boolean;
}

interface DependencyRow {
  job_id: string;
  id: string;
  automation_id: string;
  status: string;
  result: Record<string, unknown> | null;
  error: string | null;
  result_omitted: boolean;
}

// $1: [{job_id, depends_on}]; $2: the most bytes of results one job's dependencies carry (null: no cap). Results count
// in depends_on order, as the text PostgreSQL gives them (about the size of their compact JSON); from the first
// that passes the cap on, every result is left out.
const dependenciesStatement: NamedStatement = {
  name: "hub_jobs_dependencies",
  text: `
  with wanted as (
    select w.job_id, d.id as dependency_id, d.k
    from jsonb_to_recordset($1::jsonb) as w(job_id uuid, depends_on uuid[])
    cross join lateral unnest(w.depends_on) with ordinality as d(id, k)
  ), sized as (
    select wanted.job_id, wanted.k, j.id, j.automation_id, j.status, j.error, j.result,
      sum(coalesce(octet_length(j.result::text), 0)) over (partition by wanted.job_id order by wanted.k) as total
    from wanted join jobs j on j.id = wanted.dependency_id
  )
  select job_id, id, automation_id, case when status = 'held' then 'queued' else status end as status, error,
    case when $2::bigint is null or total <= $2::bigint then result end as result,
    (result is not null and $2::bigint is not null and total > $2::bigint) as result_omitted
  from sized order by job_id, k`,
};

/**
 * The dependencies of each of `handedOut` (jobs a claim just handed out), in `depends_on` order,
 * their results capped at `maxResultBytes` per job. Jobs without dependencies get `[]` and, when
 * none has any, no statement runs.
 */
export async function dependenciesOf(
  executor: Executor,
  handedOut: ReadonlyArray<Pick<Job, "id" | "dependsOn">>,
  maxResultBytes: number | null,
): Promise<Map<string, JobDependency[]>> {
  const byJob = new Map<string, JobDependency[]>(handedOut.map((job) => [job.id, []]));
  const wanted = handedOut.filter((job) => (job.dependsOn?.length ?? 0) > 0).map((job) => ({ job_id: job.id, depends_on: job.dependsOn }));
  if (wanted.length === 0) return byJob;
  const rows = await runStatement<DependencyRow>(executor, dependenciesStatement, [JSON.stringify(wanted), maxResultBytes]);
  for (const row of rows) {
    byJob.get(row.job_id)!.push({
      id: row.id,
      automationId: row.automation_id,
      status: row.status,
      result: row.result,
      error: row.error,
      resultOmitted: row.result_omitted,
    });
  }
  return byJob;
}

const leasedDependsOnStatement: NamedStatement = {
  name: "hub_jobs_leased_depends_on",
  text: `
  select (select automation_id from jobs where id = $1) as owner_automation_id,
    (select j.depends_on from jobs j where j.id = $1 and ${ofAutomation("$2")} and ${leasedBy("$3", "null::int")}) as depends_on,
    exists (select 1 from jobs j where j.id = $1 and ${ofAutomation("$2")} and ${leasedBy("$3", "null::int")}) as leased`,
};

/**
 * GET /jobs/{id}/dependencies: the whole dependencies of a job the worker holds (running under its
 * unexpired lease), every result in full. `not_found` for a job of another automation or none,
 * `not_leased` when the worker does not hold it.
 */
export async function dependenciesOfLeased(
  executor: Executor,
  jobId: string,
  worker: { id: string; automationId: string },
): Promise<{ ok: true; items: JobDependency[] } | { ok: false; refusal: "not_found" | "not_leased" }> {
  const [row] = await runStatement<{ owner_automation_id: string | null; depends_on: string[] | null; leased: boolean }>(executor, leasedDependsOnStatement, [
    jobId,
    worker.automationId,
    worker.id,
  ]);
  if (!row || row.owner_automation_id !== worker.automationId) return { ok: false, refusal: "not_found" };
  if (!row.leased) return { ok: false, refusal: "not_leased" };
  const items = await dependenciesOf(executor, [{ id: jobId, dependsOn: row.depends_on }], null);
  return { ok: true, items: items.get(jobId)! };
}

// The job and every job cancelled because of it (`job.cancelled` with reason dependency_failed naming the job of the
// tree it depends on), at any depth, that no job retries yet; in creation order, the job first.
const cancelledTreeStatement: NamedStatement = {
  name: "hub_jobs_cancelled_dependents_tree",
  text: `
  with recursive tree as (
    select j.id from jobs j where j.id = $1
    union
    select d.id from tree t
    join jobs d on d.depends_on @> array[t.id] and d.depends_on is not null and d.status = 'cancelled'
    where exists (select 1 from events e where e.aggregate_id = d.id and e.event_type = 'job.cancelled'
        and e.payload ->> 'reason' = 'dependency_failed' and e.payload ->> 'dependency_id' = t.id::text)
      and not exists (select 1 from jobs r where r.retry_of = d.id and r.retry_of is not null)
  )
  select j.* from jobs j join tree on tree.id = j.id order by j.seq`,
};

/**
 * POST /jobs/{id}/retry with `with_dependents` (CONTRACT §6.16): the job and the jobs its failure
 * or cancel cancelled through their dependencies, at any depth, less those retried already; the
 * job first, then in creation order (an earlier job of the tree never depends on a later one).
 */
export async function cancelledDependentsTree(executor: Executor, jobId: string): Promise<Job[]> {
  return (await runStatement<Record<string, unknown>>(executor, cancelledTreeStatement, [jobId])).map(fromRow);
}

// The tree's automations FOR KEY SHARE, which creating its retries takes anyway (insert-flow.ts), before any job row:
// the house order (cancel.ts).
const lockTreeAutomationsStatement: NamedStatement = {
  name: "hub_jobs_lock_dependents_tree_automations",
  text: `select a.id from automations a where a.id = any($1::uuid[]) order by a.id for key share of a`,
};

// Then the tree's jobs and every job they depend on, FOR UPDATE in id order: the order insert-flow.ts locks
// dependencies in, so two retries whose trees or dependencies overlap queue behind each other instead of deadlocking.
const lockTreeStatement: NamedStatement = {
  name: "hub_jobs_lock_dependents_tree",
  text: `
  select j.id from jobs j
  where j.id = any($1::uuid[]) or j.id = any(array(select unnest(t.depends_on) from jobs t where t.id = any($1::uuid[])))
  order by j.id for update of j`,
};

/**
 * {@link cancelledDependentsTree} for a retry that creates it again, inside the caller's
 * transaction: the tree is read, its jobs and their dependencies locked, then read again. A retry
 * of an overlapping tree that held the locks first has committed, and the second read leaves out
 * the jobs it retried, so however many retries race, each dependent is retried once. The second
 * read is a subset of the first (a `failed` or `cancelled` job only gains retries), so every job
 * it returns, and every dependency of those, is locked.
 */
export async function lockCancelledDependentsTree(tx: Executor, jobId: string): Promise<Job[]> {
  const candidates = await cancelledDependentsTree(tx, jobId);
  if (candidates.length === 0) return [];
  await runStatement(tx, lockTreeAutomationsStatement, [[...new Set(candidates.map((job) => job.automationId))]]);
  await runStatement(tx, lockTreeStatement, [candidates.map((job) => job.id)]);
  return cancelledDependentsTree(tx, jobId);
}
