/**
 * Creating jobs with dependencies (CONTRACT §6.16): `POST /jobs` or `POST /jobs/batch` where an item
 * has a `depends_on` (or asks for `on_dependency_failure: "run"`). Jobs without take the one-statement
 * path of insert.ts, which this leaves as it was.
 *
 * One transaction:
 * 1. the dependencies that are existing jobs are locked (`FOR UPDATE`, in id order) within the
 *    caller's reach, and each is marked `has_dependents`. A dependency finishing at
 *    the same time either committed first (its status is read here, finished) or waits for this
 *    commit, and then its finish sees the mark and the new dependents (the trigger of
 *    packages/db/functions/hub_finish_dependency_v1.sql), so no release is ever missed;
 * 2. every problem is gathered before anything is created: a dependency naming no job the caller
 *    may read, a dependency already `failed` or `cancelled` under `"cancel"` (the first in item and
 *    `depends_on` order), an unknown or inactive automation, a context that does not fit. Any one
 *    rolls everything back;
 * 3. one statement (the batch statement of insert.ts, with the dependency columns) inserts every job:
 *    `held` with `pending_dependencies` = its unfinished dependencies (the earlier items of the same
 *    batch count as unfinished), or `queued` when none is pending; `job.created` carries `depends_on`.
 * A dependency is always an existing job or an earlier item, so a cycle cannot be made.
 */
import type { DependencyFailurePolicy } from "@hub/shared";
import type { AutomationParameter } from "../../schema";
import { withTransaction, type Executor } from "../../executor";
import { automationIdReachedText, type Reach } from "../../reach";
import {
  contextFitsParameters,
  findBatchJobIds,
  IDEMPOTENCY_WINDOW,
  MAX_JOBS_PER_BATCH,
  newBatchJobIds,
  type AutomationSeen,
  type JobTrace,
  type NewJob,
} from "./insert";
import type { JobRef } from "./dispatch-scan";
import { APPROVAL_COLUMNS, APPROVAL_RETURNING, approvalRequestedPayload, approvalValues } from "./approval-columns";

/** A job to create with its dependencies: ids of existing jobs, or indexes of earlier items of the same batch. */
export interface NewFlowJob extends NewJob {
  dependsOn: ReadonlyArray<string | number>;
  onDependencyFailure: DependencyFailurePolicy;
  /** A retry (POST /jobs/{id}/retry): the job it retries, and whether it runs with a context of its own. */
  retryOf?: string | undefined;
  contextChanged?: boolean | undefined;
}

/** Why dependencies refused a creation. */
export interface DependencyProblems {
  /** Each `depends_on` entry naming no job the caller may read: its item's index and its own. */
  unknown: Array<{ item: number; k: number }>;
  /** The first dependency, in item and `depends_on` order, already failed or cancelled under `"cancel"`. */
  failed: { id: string; status: string } | null;
}

export type CreateFlowOutcome =
  | { kind: "created"; jobs: JobRef[]; /** Ids of the jobs created held: offer only the others. */ held: Set<string> }
  | { kind: "replayed"; jobIds: string[] }
  | { kind: "refused"; automations: AutomationSeen[]; dependencies: DependencyProblems };

const FINISHED = ["completed", "failed", "cancelled"];

/** Rolls the transaction back and carries the outcome out of it. */
class Refusal {
  constructor(readonly outcome: CreateFlowOutcome) {}
}

// The dependencies that exist within reach, locked in id order, and marked (a finished one too: retention keeps it
// while its dependent is unfinished). FOR UPDATE returns the latest version of a row it waited for, so the status
// read is the one a concurrent finish committed.
const lockDependencies = (reached: string) => `
  with locked as (
    select j.id, j.status from jobs j where j.id = any($1::uuid[]) and ${reached} order by j.id for update of j
  ), marked as (
    update jobs j set has_dependents = true from locked
    where j.id = locked.id and j.has_dependents is not true
  )
  select id, status from locked`;

// CREATE_BATCH of insert.ts with the dependency columns: $10 the items' depends_on (a jsonb array of arrays or
// nulls), $11 on_dependency_failure, $12 pending_dependencies, $13 has_dependents; and, for a retry, $14 retry_of and
// $15 context_changed, which job.created carries as a retry's does (retry.ts).
const CREATE_FLOW = `
with item as (
  select * from rows from (unnest($1::uuid[]), jsonb_array_elements($2::jsonb), unnest($3::uuid[]), unnest($6::timestamptz[]), unnest($7::int[]),
      jsonb_array_elements($10::jsonb), unnest($11::text[]), unnest($12::int[]), unnest($13::boolean[]), unnest($14::uuid[]), unnest($15::boolean[]),
      unnest($16::boolean[]))
    with ordinality as item(automation_id, context, job_id, run_at, priority, depends_on, on_dependency_failure, pending, has_dependents,
      retry_of, context_changed, asks_approval, position)
), automation as (
  select id, parameters, is_active, concurrency_key, requires_approval, approval_timeout_seconds from automations
  where id = any(array(select distinct automation_id from item)) order by id for key share
), earlier as (
  select job_id from idempotency_keys
  where user_id = $4 and key = $5 and created_at > now() - ${IDEMPOTENCY_WINDOW}
), accepted as (
  select 1 where not exists (select 1 from earlier) and not exists (
    select 1 from item left join automation on automation.id = item.automation_id
    where automation.id is null or not automation.is_active
      or not ${contextFitsParameters("item.context", "automation.parameters")})
), bound as (
  insert into idempotency_keys (user_id, key, job_id)
  select $4, $5, ($3::uuid[])[1] from accepted where $5::text is not null
  on conflict (user_id, key) do update set
    job_id = case when idempotency_keys.created_at <= now() - ${IDEMPOTENCY_WINDOW} then excluded.job_id else idempotency_keys.job_id end,
    created_at = case when idempotency_keys.created_at <= now() - ${IDEMPOTENCY_WINDOW} then now() else idempotency_keys.created_at end
  returning job_id
), created as (
  insert into jobs (id, automation_id, context, created_by, run_at, priority, available_at, key_value, traceparent, tracestate,
                    ${APPROVAL_COLUMNS}, depends_on, on_dependency_failure, pending_dependencies, has_dependents, retry_of)
  select item.job_id, item.automation_id, item.context, $4, item.run_at, item.priority, greatest(item.run_at, now()),
         hub_job_key_value_of(item.context, automation.concurrency_key), $8::text, $9::text,
         ${approvalValues("(automation.requires_approval or item.asks_approval)", "automation.approval_timeout_seconds", "item.pending > 0")},
         case when jsonb_typeof(item.depends_on) = 'array'
           then array(select d.id::uuid from jsonb_array_elements_text(item.depends_on) with ordinality as d(id, k) order by d.k) end,
         item.on_dependency_failure, item.pending, item.has_dependents, item.retry_of
  from item join automation on automation.id = item.automation_id
  where exists (select 1 from accepted)
    and ($5::text is null or exists (select 1 from bound where job_id = ($3::uuid[])[1]))
  order by item.position
  returning id, automation_id, context, created_at, available_at, seq, priority, status, depends_on, retry_of, ${APPROVAL_RETURNING}
), event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select aggregate_id, event_type, actor_id, payload from (
    select c.id as aggregate_id, 'job.created' as event_type, $4::uuid as actor_id, jsonb_build_object('automation_id', c.automation_id, 'context', c.context)
      || case when c.retry_of is not null then jsonb_build_object('retry_of', c.retry_of) else '{}'::jsonb end
      || case when item.context_changed then jsonb_build_object('context_changed', true) else '{}'::jsonb end
      || case when c.depends_on is not null then jsonb_build_object('depends_on', to_jsonb(c.depends_on)) else '{}'::jsonb end as payload,
      item.position, 0 as step
    from created c join item on item.job_id = c.id
    union all
    -- §6.17: the request follows its job's creation.
    select c.id, 'job.approval_requested', $4::uuid, ${approvalRequestedPayload("c")}, item.position, 1
    from created c join item on item.job_id = c.id where c.approval_status = 'pending'
  ) e order by position, step
)
select (select count(*) from created)::int as created,
       (select jsonb_object_agg(id, jsonb_build_array(seq, (extract(epoch from available_at) * 1000)::bigint, status)) from created) as placed,
       coalesce((select job_id from earlier), (select job_id from bound where job_id <> ($3::uuid[])[1])) as earlier_job_id,
       case when not exists (select 1 from created) then
         (select coalesce(jsonb_agg(jsonb_build_object('id', id, 'parameters', parameters, 'is_active', is_active)), '[]') from automation)
       end as automations`;

interface CreateFlowRow {
  created: number;
  placed: Record<string, [seq: number, availableAtMs: number, status: string]> | null;
  earlier_job_id: string | null;
  automations: Array<{ id: string; parameters: AutomationParameter[]; is_active: boolean }> | null;
}

/**
 * The automations of `batch` as the caller may see them (unknown and out-of-reach ones absent), for
 * the 422 of a refusal; read `FOR KEY SHARE` (what the insert takes anyway) before any job row is
 * locked, the house order (cancel.ts), so a deactivation never waits for a dependency this holds
 * while this waits for it.
 */
async function automationsSeen(db: Executor, reach: Reach, batch: readonly NewJob[]): Promise<AutomationSeen[]> {
  const reached = automationIdReachedText(reach, "a.id", 2);
  const { rows } = await db.query<{ id: string; parameters: AutomationParameter[]; is_active: boolean }>({
    text: `select a.id, a.parameters, a.is_active from automations a where a.id = any($1::uuid[]) and ${reached.text} order by a.id for key share of a`,
    values: [[...new Set(batch.map((job) => job.automationId))], ...reached.values],
  });
  return rows.map((row) => ({ id: row.id, parameters: row.parameters, isActive: row.is_active }));
}

/** What the dependencies read say is wrong, in item and `depends_on` order. */
function problemsOf(
  batch: readonly NewFlowJob[],
  resolved: string[][],
  batchIds: ReadonlySet<string>,
  statuses: ReadonlyMap<string, string>,
): DependencyProblems {
  const problems: DependencyProblems = { unknown: [], failed: null };
  resolved.forEach((refs, item) => {
    refs.forEach((id, k) => {
      if (batchIds.has(id)) return;
      const status = statuses.get(id);
      if (status === undefined) problems.unknown.push({ item, k });
      else if (!problems.failed && batch[item]!.onDependencyFailure === "cancel" && (status === "failed" || status === "cancelled"))
        problems.failed = { id, status };
    });
  });
  return problems;
}

/**
 * Creates `batch` (1 to {@link MAX_JOBS_PER_BATCH} jobs, in input order) with their dependencies,
 * all or none, in one transaction (see the module comment). Ids come back in input order.
 */
export async function insertFlow(
  pool: Executor,
  reach: Reach,
  createdBy: string,
  batch: NewFlowJob[],
  idempotencyKey?: string,
  trace?: JobTrace,
): Promise<CreateFlowOutcome> {
  if (batch.length === 0 || batch.length > MAX_JOBS_PER_BATCH) throw new RangeError(`a batch holds 1 to ${MAX_JOBS_PER_BATCH} jobs`);
  const ids = newBatchJobIds(batch.length);
  const batchIds = new Set(ids);
  const resolved = batch.map((job) => job.dependsOn.map((ref) => (typeof ref === "number" ? ids[ref]! : ref)));
  const external = [...new Set(resolved.flat().filter((id) => !batchIds.has(id)))];
  const referenced = new Set(batch.flatMap((job) => job.dependsOn.filter((ref): ref is number => typeof ref === "number")));
  try {
    return await withTransaction(pool, async (tx) => {
      const seen = await automationsSeen(tx, reach, batch);
      const statuses = new Map<string, string>();
      if (external.length > 0) {
        const reached = automationIdReachedText(reach, "j.automation_id", 2);
        const { rows } = await tx.query<{ id: string; status: string }>({ text: lockDependencies(reached.text), values: [external, ...reached.values] });
        for (const row of rows) statuses.set(row.id, row.status);
      }
      const dependencies = problemsOf(batch, resolved, batchIds, statuses);
      const outsideReach = seen.length < new Set(batch.map((job) => job.automationId)).size;
      if (dependencies.unknown.length > 0 || dependencies.failed || outsideReach) throw new Refusal({ kind: "refused", automations: seen, dependencies });
      const pending = resolved.map((refs) => refs.filter((id) => batchIds.has(id) || !FINISHED.includes(statuses.get(id)!)).length);
      // Named, as insert.ts's batch statement: a connection plans it for its first few executions, then keeps one
      // generic plan (unnamed, it was planned anew for every request: 1–1.5 ms a batch by pg_stat_statements' clock).
      const { rows } = await tx.query<CreateFlowRow>({
        name: "jobs_create_flow",
        text: CREATE_FLOW,
        values: [
          batch.map((job) => job.automationId),
          JSON.stringify(batch.map((job) => job.context)),
          ids,
          createdBy,
          idempotencyKey ?? null,
          batch.map((job) => job.runAt ?? null),
          batch.map((job) => job.priority ?? 0),
          trace?.traceparent ?? null,
          trace?.tracestate ?? null,
          JSON.stringify(resolved.map((refs) => (refs.length > 0 ? refs : null))),
          batch.map((job) => (job.dependsOn.length > 0 || job.onDependencyFailure !== "cancel" ? job.onDependencyFailure : null)),
          resolved.map((refs, index) => (refs.length > 0 ? pending[index]! : null)),
          batch.map((_, index) => (referenced.has(index) ? true : null)),
          batch.map((job) => job.retryOf ?? null),
          batch.map((job) => job.contextChanged === true),
          batch.map((job) => job.requiresApproval === true),
        ],
      });
      const row = rows[0]!;
      if (row.earlier_job_id) throw new Refusal({ kind: "replayed", jobIds: await findBatchJobIds(tx, row.earlier_job_id) });
      if (row.created === 0) {
        const automations = (row.automations ?? []).map((a) => ({ id: a.id, parameters: a.parameters, isActive: a.is_active }));
        throw new Refusal({ kind: "refused", automations, dependencies });
      }
      const placed = row.placed ?? {};
      const held = new Set(ids.filter((id) => placed[id]![2] === "held"));
      const jobs = batch.map((job, index): JobRef => {
        const id = ids[index]!;
        const [seq, availableAtMs] = placed[id]!;
        return { id, automationId: job.automationId, seq: Number(seq), priority: job.priority ?? 0, availableAt: new Date(Number(availableAtMs)) };
      });
      return { kind: "created", jobs, held } satisfies CreateFlowOutcome;
    });
  } catch (error) {
    if (error instanceof Refusal) return error.outcome;
    throw error;
  }
}
