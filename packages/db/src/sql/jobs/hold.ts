/**
 * Held jobs (the one claim rule for dependencies, approvals and maintenance windows): a job whose
 * dependencies are not all finished (CONTRACT §6.16) or whose approval is pending (§6.17) is stored
 * with status `held`. Every claim path, dispatch scan, queue position and queue count reads
 * `status = 'queued'` alone, so a held job is never handed out, offered or counted there, and no
 * statement about other jobs changed for it; the API shows it as `queued` (@hub/shared
 * `shownJobStatus`).
 *
 * The release (held → queued) happens in the transaction that removes the last hold, by one UPDATE
 * under the row lock: `status = 'queued', available_at = greatest(available_at, now())`, only
 * where no dependency is pending and no approval (§6.17) is. The dependencies' release is the trigger of
 * packages/db/functions/hub_finish_dependency_v1.sql, which applies the same rule; any other hold
 * releases through {@link release}. After the commit the releasing process offers the released jobs
 * to dispatch as POST /jobs offers a created job (apps/api/src/jobs/held-jobs.ts); if it dies first
 * the dispatcher's reconciler offers them, as it does every due queued job.
 */
import { sql, type SQL } from "drizzle-orm";
import { HELD_JOB_STATUS } from "@hub/shared";
import { runStatement, type Executor, type NamedStatement } from "../../executor";
import type { JobRef } from "./dispatch-scan";

/** SQL over a `jobs` row aliased `j`: it is held and no hold remains but the ones being released. */
export const RELEASABLE = `j.status = '${HELD_JOB_STATUS}' and coalesce(j.pending_dependencies, 0) <= 0 and j.approval_status is distinct from 'pending'`;

/** The SET list of a release (see the module comment). */
export const RELEASE_SET = "status = 'queued', available_at = greatest(j.available_at, now())";

interface JobRefRow {
  id: string;
  automation_id: string;
  seq: string | number;
  priority: number;
  available_at: Date;
}

const toRef = (row: JobRefRow): JobRef => ({
  id: row.id,
  automationId: row.automation_id,
  seq: Number(row.seq),
  priority: row.priority,
  availableAt: row.available_at,
});

/**
 * A CTE body over `source` (released rows with automation_id, key_value, priority, available_at,
 * seq): their key values wait again. A claim marks a value idle while only held jobs of it remain,
 * so a release marks it as the key trigger (packages/db/functions/hub_job_key_value.sql) marks it for
 * an inserted job — one row per value, its first job in claim order as the head. The dependency
 * trigger (hub_finish_dependency_v1.sql) holds the same statement.
 */
export const keyValuesWaitAgain = (source: string) => `
  insert into job_key_states as ks (automation_id, key_value, waiting, head_priority, head_available_at, head_seq)
  select distinct on (c.automation_id, c.key_value) c.automation_id, c.key_value, true, c.priority, c.available_at, c.seq
  from ${source} c where c.key_value is not null
  order by c.automation_id, c.key_value, c.priority desc, c.available_at, c.seq
  on conflict (automation_id, key_value) do update set
    waiting = true,
    ${["priority", "available_at", "seq"]
      .map(
        (column) => `head_${column} = case when not ks.waiting or hub_claim_order_precedes(excluded.head_priority, excluded.head_available_at,
      excluded.head_seq, ks.head_priority, ks.head_available_at, ks.head_seq) then excluded.head_${column} else ks.head_${column} end`,
      )
      .join(",\n    ")}`;

const releaseStatement: NamedStatement = {
  name: "hub_jobs_release_held",
  text: `
  with locked as (select j.id from jobs j where j.id = any($1::uuid[]) order by j.id for update),
  released as (
    update jobs j set ${RELEASE_SET} from locked
    where j.id = locked.id and ${RELEASABLE}
    returning j.id, j.automation_id, j.seq, j.priority, j.available_at, j.key_value
  ), key_waits as (${keyValuesWaitAgain("released")})
  select id, automation_id, seq, priority, available_at from released`,
};

/**
 * Releases those of `jobIds` that are held and have no hold left, in the caller's transaction
 * (rows locked in id order, the house order). Returns the released jobs: offer them after the
 * commit.
 */
export async function release(executor: Executor, jobIds: readonly string[]): Promise<JobRef[]> {
  if (jobIds.length === 0) return [];
  const rows = await runStatement<JobRefRow>(executor, releaseStatement, [jobIds]);
  return rows.map(toRef);
}

// The dependents come from jobs_depends_on_idx alone (the status test written `(…) is true`, which no index serves):
// written plainly, the cached generic plan walked jobs_queued_available_idx — every queued job of every automation,
// and the dead entries since the last vacuum — as the dependency trigger's scan walked the held ones
// (hub_finish_dependency_v1.sql; statement-plans.test.ts checks both). The ids come through an initplan, `(select
// $1)`, whose value no plan's estimate reads: planned with the ids themselves, each custom plan looked cheaper than
// the generic one, so PostgreSQL planned the statement anew on almost every finish (965 plans in 1,331 calls of
// the flows bench, 194 ms planning against 153 ms running); now custom and generic plans cost the same and the
// connection keeps the generic plan.
const queuedDependentsStatement: NamedStatement = {
  name: "hub_jobs_queued_dependents",
  text: `
  select j.id, j.automation_id, j.seq, j.priority, j.available_at from jobs j
  where j.depends_on && (select $1::uuid[]) and j.depends_on is not null and (j.status = 'queued') is true`,
};

/**
 * The queued dependents of `finishedIds` (jobs with `has_dependents` that just finished): the jobs
 * their finish released, for the finishing process to offer after its commit. Only called for a
 * finish of a job that has dependents, so other finishes pay nothing. A dependent released earlier
 * and still queued is offered again, which changes nothing.
 */
export async function queuedDependentsOf(executor: Executor, finishedIds: readonly string[]): Promise<JobRef[]> {
  if (finishedIds.length === 0) return [];
  const rows = await runStatement<JobRefRow>(executor, queuedDependentsStatement, [finishedIds]);
  return rows.map(toRef);
}

/** The ids among `finished` (rows a finishing statement returned) whose jobs have dependents. */
export function withDependents(finished: ReadonlyArray<{ id: string; hasDependents?: boolean | null }>): string[] {
  return finished.filter((job) => job.hasDependents === true).map((job) => job.id);
}

/**
 * Sets the actor the dependency trigger names in the `job.cancelled` events of the dependents a
 * cancel cascades to (`actor_id` as in the event that caused it), for the rest of the caller's
 * transaction: an expression to select beside the cancel's first statement (no statement of its own).
 */
export const actorSetting = (actorId: string | null): SQL => sql`set_config('hub.actor_id', ${actorId ?? ""}::text, true)`;
