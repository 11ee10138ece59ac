/**
 * Creating jobs: `POST /jobs` and `POST /jobs/batch`, each one named prepared statement — one
 * round trip, no explicit transaction, no query building per request (CONTRACT §3 "Job", §6.6).
 *
 * Each statement, in one snapshot:
 * - reads the automation(s) `FOR KEY SHARE` — what the job's foreign key takes anyway — so a
 *   deactivation (`FOR UPDATE`) either waits for the insert and then cancels the new jobs with the
 *   other queued ones, or committed first and is seen here (a row lock taken after waiting re-reads
 *   the latest row). Claims and edits (`FOR NO KEY UPDATE`) do not conflict, so creating jobs never
 *   queues behind them;
 * - checks every context against the parameters it read (each parameter a string), so a PUT
 *   that changed them counts from the moment it committed — no cache to go stale;
 * - sets each job's `key_value` from the `concurrency_key` it read (CONTRACT §6.13). A PUT that
 *   changes the key locks the row `FOR UPDATE` before rewriting the jobs, so the key cannot change
 *   between this read and the commit (packages/db/functions/hub_job_key_value.sql, `key-value.test.ts`);
 * - remembers the Idempotency-Key, inserts the job(s) and their `job.created` events.
 * When it creates nothing, it returns what the caller needs to say why: the automations' parameters
 * (the caller derives the exact 422 issues from them), whether they are active (409), or the job an
 * earlier request with the same key created.
 *
 * Idempotency-Key of a batch: `idempotency_keys` binds the key to the batch's first job, and a
 * batch's ids are consecutive uuids (see {@link newBatchJobIds}) so the rest are found again by
 * an index range scan from the first: no column beyond the current schema is needed.
 */
import { randomUUID } from "node:crypto";
import { IDEMPOTENCY_WINDOW_HOURS } from "@hub/shared";
import type { AutomationParameter } from "../../schema";
import type { JobRef } from "./dispatch-scan";
import type { Executor } from "../../executor";
import { automationIdReachedText, reachesEverything, type Reach } from "../../reach";
import { HELD_JOB_STATUS } from "@hub/shared";
import { APPROVAL_COLUMNS, APPROVAL_RETURNING, approvalRequestedEvents, approvalValues } from "./approval-columns";

/** How long an Idempotency-Key remembers its job(s), as SQL. */
export const IDEMPOTENCY_WINDOW = `interval '${IDEMPOTENCY_WINDOW_HOURS} hours'`;

/**
 * SQL that is true when the jsonb `context` holds every parameter named in the jsonb array
 * `parameters` as a string: the rule a job's context must meet (CONTRACT §3 "Job"), checked by
 * POST /jobs, its batch form and a schedule's fire against the parameters as they are now.
 */
export function contextFitsParameters(context: string, parameters: string): string {
  return `not exists (
      select 1 from jsonb_array_elements(${parameters}) as parameter
      where jsonb_typeof(${context} -> (parameter ->> 'name')) is distinct from 'string')`;
}

/** Most jobs one batch may create (CONTRACT §6.6); also bounds the consecutive-id range. */
export const MAX_JOBS_PER_BATCH = 500;

/** What the creating statement saw of an automation it refused to create jobs for. */
export interface AutomationSeen {
  id: string;
  parameters: AutomationParameter[];
  isActive: boolean;
}

export type CreateJobsOutcome =
  /** `held`: the ids of the jobs created held (awaiting approval, CONTRACT §6.17): offer only the others. */
  | { kind: "created"; jobs: JobRef[]; held: ReadonlySet<string> }
  /** An earlier request with the same Idempotency-Key created these jobs (input order); nothing new was created. */
  | { kind: "replayed"; jobIds: string[] }
  /**
   * Nothing was created: an automation is unknown (absent from `automations`), inactive, or a
   * context does not match its automation's parameters as read by the statement.
   */
  | { kind: "refused"; automations: AutomationSeen[] };

export interface NewJob {
  automationId: string;
  context: Record<string, unknown>;
  /** When to run it (CONTRACT §6.8); absent or null = now. `available_at` = the later of it and now, on PostgreSQL's clock. */
  runAt?: Date | null | undefined;
  /** Claim priority, −100 to 100; default 0. */
  priority?: number | undefined;
  /** The job asks for an approval itself (CONTRACT §6.17); `false` never lifts its automation's requirement. */
  requiresApproval?: boolean | undefined;
}

const NONE_HELD: ReadonlySet<string> = new Set();

/** The creating request's W3C trace context (CONTRACT §6.20), stored with its job(s); absent while tracing is off. */
export interface JobTrace {
  traceparent: string;
  tracestate?: string | null | undefined;
}

// `accepted` is empty unless the automation exists, is active, every parameter is a string in
// the context, and the key (if any) is not bound yet in this snapshot. A concurrent request with
// the same key that committed meanwhile is caught by the insert into idempotency_keys: it waits
// on the primary key, then its ON CONFLICT branch returns the earlier job instead of ours (a
// stale binding, older than the window, is taken over), and the job insert sees that and skips.
// The binding is inserted before its job in the plan; both commit together (the binding has no
// foreign key to its job since migration 0010: retention may remove the job after the binding's window).
const CREATE_ONE = `
with automation as (
  select id, parameters, is_active, concurrency_key, requires_approval, approval_timeout_seconds from automations where id = $1 for key share
), earlier as (
  select job_id from idempotency_keys
  where user_id = $3 and key = $5 and created_at > now() - ${IDEMPOTENCY_WINDOW}
), accepted as (
  select id, concurrency_key, requires_approval or $10::boolean as needs_approval, approval_timeout_seconds from automation
  where is_active and not exists (select 1 from earlier)
    and ${contextFitsParameters("$2::jsonb", "automation.parameters")}
), bound as (
  insert into idempotency_keys (user_id, key, job_id)
  select $3, $5, $4 from accepted where $5::text is not null
  on conflict (user_id, key) do update set
    job_id = case when idempotency_keys.created_at <= now() - ${IDEMPOTENCY_WINDOW} then excluded.job_id else idempotency_keys.job_id end,
    created_at = case when idempotency_keys.created_at <= now() - ${IDEMPOTENCY_WINDOW} then now() else idempotency_keys.created_at end
  returning job_id
), created as (
  insert into jobs (id, automation_id, context, created_by, run_at, priority, available_at, key_value, traceparent, tracestate, ${APPROVAL_COLUMNS})
  select $4, id, $2::jsonb, $3, $6::timestamptz, $7::int, greatest($6::timestamptz, now()), hub_job_key_value_of($2::jsonb, concurrency_key),
         $8::text, $9::text, ${approvalValues("needs_approval", "approval_timeout_seconds")} from accepted
  where $5::text is null or exists (select 1 from bound where job_id = $4)
  returning id, automation_id, created_at, available_at, seq, priority, status, ${APPROVAL_RETURNING}
), event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select id, 'job.created', $3, jsonb_build_object('automation_id', automation_id, 'context', $2::jsonb) from created
  ${approvalRequestedEvents("created", "$3")}
)
select created.id, created.created_at, created.available_at, created.seq, created.priority, created.status,
       coalesce((select job_id from earlier), (select job_id from bound where job_id <> $4)) as earlier_job_id,
       automation.id as automation_id, automation.is_active,
       case when created.id is null then automation.parameters end as parameters
from (select 1) as one
left join automation on true
left join created on true`;

interface CreateOneRow {
  id: string | null;
  status: string | null;
  created_at: Date | null;
  available_at: Date | null;
  seq: string | null;
  priority: number | null;
  earlier_job_id: string | null;
  automation_id: string | null;
  is_active: boolean | null;
  parameters: AutomationParameter[] | null;
}

/**
 * `POST /jobs`: creates one job with its `job.created` event (and the Idempotency-Key binding,
 * when `idempotencyKey` is given), in one prepared statement — see the module comment.
 */
export async function insert(
  db: Executor,
  reach: Reach,
  createdBy: string,
  job: NewJob,
  idempotencyKey?: string,
  trace?: JobTrace,
): Promise<CreateJobsOutcome> {
  const outside = await refusalOutsideReach(db, reach, [job]);
  if (outside) return outside;
  const id = randomUUID();
  const { rows } = await db.query<CreateOneRow>({
    name: "jobs_create_one",
    text: CREATE_ONE,
    values: [
      job.automationId,
      JSON.stringify(job.context),
      createdBy,
      id,
      idempotencyKey ?? null,
      job.runAt ?? null,
      job.priority ?? 0,
      trace?.traceparent ?? null,
      trace?.tracestate ?? null,
      job.requiresApproval === true,
    ],
  });
  const row = rows[0]!;
  if (row.earlier_job_id) return { kind: "replayed", jobIds: [row.earlier_job_id] };
  if (row.id) {
    return {
      kind: "created",
      jobs: [{ id: row.id, automationId: job.automationId, seq: Number(row.seq), priority: row.priority!, availableAt: row.available_at! }],
      held: row.status === HELD_JOB_STATUS ? new Set([row.id]) : NONE_HELD,
    };
  }
  return {
    kind: "refused",
    automations: row.automation_id ? [{ id: row.automation_id, parameters: row.parameters ?? [], isActive: row.is_active === true }] : [],
  };
}

// The batch form of CREATE_ONE: the items come as parallel arrays (automation ids, contexts as a
// jsonb array, job ids, run_at, priorities), zipped WITH ORDINALITY so every row keeps its input position. All or
// nothing: `accepted` holds a row only when every item passes. Jobs are inserted in input order
// (a per-row default sequence then follows it).
const CREATE_BATCH = `
with item as (
  select * from rows from (unnest($1::uuid[]), jsonb_array_elements($2::jsonb), unnest($3::uuid[]), unnest($6::timestamptz[]), unnest($7::int[]),
      unnest($10::boolean[]))
    with ordinality as item(automation_id, context, job_id, run_at, priority, asks_approval, position)
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
  insert into jobs (id, automation_id, context, created_by, run_at, priority, available_at, key_value, traceparent, tracestate, ${APPROVAL_COLUMNS})
  select item.job_id, item.automation_id, item.context, $4, item.run_at, item.priority, greatest(item.run_at, now()),
         hub_job_key_value_of(item.context, automation.concurrency_key), $8::text, $9::text,
         ${approvalValues("(automation.requires_approval or item.asks_approval)", "automation.approval_timeout_seconds")}
  from item join automation on automation.id = item.automation_id
  where exists (select 1 from accepted)
    and ($5::text is null or exists (select 1 from bound where job_id = ($3::uuid[])[1]))
  order by item.position
  returning id, automation_id, context, created_at, available_at, seq, priority, status, ${APPROVAL_RETURNING}
), event as (
  insert into events (aggregate_id, event_type, actor_id, payload)
  select id, 'job.created', $4, jsonb_build_object('automation_id', automation_id, 'context', context) from created
  ${approvalRequestedEvents("created", "$4")}
)
select (select count(*) from created)::int as created,
       (select jsonb_object_agg(id, jsonb_build_array(seq, (extract(epoch from available_at) * 1000)::bigint, status = '${HELD_JOB_STATUS}')) from created) as placed,
       coalesce((select job_id from earlier), (select job_id from bound where job_id <> ($3::uuid[])[1])) as earlier_job_id,
       case when not exists (select 1 from created) then
         (select coalesce(jsonb_agg(jsonb_build_object('id', id, 'parameters', parameters, 'is_active', is_active)), '[]') from automation)
       end as automations`;

interface CreateBatchRow {
  created: number;
  /** Per created job id: its `seq`, `available_at` (ms) and whether it was created held (awaiting approval). */
  placed: Record<string, [seq: number, availableAtMs: number, held: boolean]> | null;
  earlier_job_id: string | null;
  automations: Array<{ id: string; parameters: AutomationParameter[]; is_active: boolean }> | null;
}

/**
 * `POST /jobs/batch`: creates every job of `batch` (1 to {@link MAX_JOBS_PER_BATCH}), in input
 * order, with their events and the Idempotency-Key binding, in one prepared statement — or none
 * of them. Ids come back in input order.
 */
export async function insertBatch(
  db: Executor,
  reach: Reach,
  createdBy: string,
  batch: NewJob[],
  idempotencyKey?: string,
  trace?: JobTrace,
): Promise<CreateJobsOutcome> {
  if (batch.length === 0 || batch.length > MAX_JOBS_PER_BATCH) throw new RangeError(`a batch holds 1 to ${MAX_JOBS_PER_BATCH} jobs`);
  const outside = await refusalOutsideReach(db, reach, batch);
  if (outside) return outside;
  const ids = newBatchJobIds(batch.length);
  const { rows } = await db.query<CreateBatchRow>({
    name: "jobs_create_batch",
    text: CREATE_BATCH,
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
      batch.map((job) => job.requiresApproval === true),
    ],
  });
  const row = rows[0]!;
  if (row.earlier_job_id) return { kind: "replayed", jobIds: await findBatchJobIds(db, row.earlier_job_id) };
  if (row.created > 0) {
    const placed = row.placed ?? {};
    const held = new Set(ids.filter((id) => placed[id]![2]));
    return {
      kind: "created",
      jobs: batch.map((job, index) => {
        const id = ids[index]!;
        const [seq, availableAtMs] = placed[id]!;
        return { id, automationId: job.automationId, seq: Number(seq), priority: job.priority ?? 0, availableAt: new Date(Number(availableAtMs)) };
      }),
      held: held.size === 0 ? NONE_HELD : held,
    };
  }
  return {
    kind: "refused",
    automations: (row.automations ?? []).map((seen) => ({ id: seen.id, parameters: seen.parameters, isActive: seen.is_active })),
  };
}

/**
 * For a scoped caller (CONTRACT §6.22): when a job names an automation outside `reach`, the refusal
 * the creating statement gives for an unknown automation, with what it would have seen of the
 * reached ones (so their contexts are still checked). Undefined when every automation is reached,
 * and without a query when `reach` reaches everything. An automation moved out of reach between
 * this read and the insert is the same race as a PATCH that lands just after the job was created.
 */
async function refusalOutsideReach(db: Executor, reach: Reach, batch: readonly NewJob[]): Promise<CreateJobsOutcome | undefined> {
  if (reachesEverything(reach)) return undefined;
  const wanted = [...new Set(batch.map((job) => job.automationId))];
  const reached = automationIdReachedText(reach, "a.id", 2);
  const { rows } = await db.query<{ id: string; parameters: AutomationParameter[]; is_active: boolean }>({
    text: `select a.id, a.parameters, a.is_active from automations a where a.id = any($1::uuid[]) and ${reached.text}`,
    values: [wanted, ...reached.values],
  });
  if (rows.length === wanted.length) return undefined;
  return { kind: "refused", automations: rows.map((row) => ({ id: row.id, parameters: row.parameters, isActive: row.is_active })) };
}

const UUID_TAIL_DIGITS = 12;
const UUID_TAIL_LIMIT = 2 ** (UUID_TAIL_DIGITS * 4);

function withTail(uuid: string, tail: number): string {
  return uuid.slice(0, -UUID_TAIL_DIGITS) + tail.toString(16).padStart(UUID_TAIL_DIGITS, "0");
}

/**
 * `count` ids for one batch: a random v4 uuid, then the same uuid with its last 48 bits (random in
 * a v4 uuid; version and variant bits are elsewhere) counted up by one per job. A batch's ids are
 * therefore consecutive in PostgreSQL's uuid order, which lets an Idempotency-Key bound to the first
 * id find the whole batch again ({@link findBatchJobIds}), and orders ties of equal `created_at`
 * in input order.
 */
export function newBatchJobIds(count: number): string[] {
  for (;;) {
    const first = randomUUID();
    const tail = Number.parseInt(first.slice(-UUID_TAIL_DIGITS), 16);
    // Counting must not carry into the variant bits: draw again in the rare case it would.
    if (tail + count > UUID_TAIL_LIMIT) continue;
    return Array.from({ length: count }, (_, index) => withTail(first, tail + index));
  }
}

/**
 * The ids of the batch whose first job is `firstJobId`, in input order: the jobs whose ids follow
 * it consecutively (for a job created alone, just that one). Reads after the statement that found
 * the key bound, so a batch that a concurrent request committed meanwhile is visible.
 */
export async function findBatchJobIds(db: Executor, firstJobId: string): Promise<string[]> {
  const tail = Number.parseInt(firstJobId.slice(-UUID_TAIL_DIGITS), 16);
  const last = withTail(firstJobId, Math.min(tail + MAX_JOBS_PER_BATCH - 1, UUID_TAIL_LIMIT - 1));
  const { rows } = await db.query<{ id: string }>({
    name: "jobs_batch_ids",
    text: "select id from jobs where id between $1 and $2 order by id",
    values: [firstJobId, last],
  });
  const ids: string[] = [];
  // Only the unbroken run from the first id: any other job in the range is not of this batch.
  for (const row of rows) {
    if (row.id !== withTail(firstJobId, tail + ids.length)) break;
    ids.push(row.id);
  }
  return ids;
}
