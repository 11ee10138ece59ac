/**
 * A worker's calls about many jobs at once (CONTRACT §6.6): complete-batch and heartbeat-batch,
 * each one named prepared statement for the whole batch, with the fence of lease.ts applied
 * to each item on its own. Rows are locked in id order, as unregistering does (requeue.ts),
 * so two batches, or a batch and an unregistration, never deadlock.
 */
import { leasedBy, ofAutomation } from "./row";
import { runStatement, type NamedStatement, type Executor } from "../../executor";
import type { LeaseHolder, LeaseRefusal } from "./lease";

/** One item's verdict in a batch: `null` refusal = done. */
export type BatchItemVerdict = { id: string; refusal: LeaseRefusal | null };

/** Drops repeated ids (the first occurrence is the one recorded); batch statements see each id once. */
function uniqueIds(ids: string[]): string[] {
  return [...new Set(ids)];
}

/** The items' rows that are the automation's, locked in id order (by primary key only: see ofAutomation). */
const lockedItems = (idsParam: string, automationParam: string) =>
  `select j.id from jobs j where j.id = any(${idsParam}::uuid[]) and ${ofAutomation(automationParam)} order by j.id for update`;

/**
 * Whether the job `idExpr` belongs to the automation `automationParam`, as a scalar subquery: one
 * primary-key probe per item. (A join of the items to `jobs` let a generic plan hash-join them
 * against a sequential scan of the table; `= any($1)` in the UPDATEs below does the same service
 * for the rows they change: statement-plans.test.ts.)
 */
const ownedBy = (idExpr: string, automationParam: string) =>
  `coalesce((select owner.automation_id from jobs owner where owner.id = ${idExpr}) = ${automationParam}, false)`;

const completeBatchStatement: NamedStatement = {
  name: "hub_jobs_complete_batch",
  text: `
  with item as (
    select * from unnest($1::uuid[], $2::jsonb[], $3::int[]) as i(id, result, attempt)
  ), locked as (
    ${lockedItems("$1", "$4")}
  ), completed as (
    update jobs j set status = 'completed', result = item.result, finished_at = now(), lease_expires_at = null
    from item join locked on locked.id = item.id
    where j.id = any($1::uuid[]) and j.id = item.id and ${leasedBy("$5", "item.attempt")}
    returning j.id, j.automation_id, j.worker_id, j.result, j.started_at, j.has_dependents
  ), completed_event as (
    insert into events (aggregate_id, event_type, actor_id, payload)
    select id, 'job.completed', null, jsonb_build_object('automation_id', automation_id, 'worker_id', worker_id, 'result', result)
    from completed order by id
  )
  select item.id, ${ownedBy("item.id", "$4")} as ours, completed.id is not null as done, completed.started_at, completed.has_dependents
  from item left join completed on completed.id = item.id`,
};

/** What a batch completion tells the caller about each job: its verdict, and when it started if completed. */
export interface CompletedItem extends BatchItemVerdict {
  startedAt: Date | null;
  /** Jobs wait for it: its completion may have released some (./hold.ts). */
  hasDependents: boolean;
}

/**
 * Records each result on its own (one statement for the batch); verdicts in input order. A job
 * named twice is recorded once: the later item gets the refusal a second complete would.
 */
export async function completeBatch(
  db: Executor,
  worker: Omit<LeaseHolder, "attempt">,
  items: Array<{ id: string; result: Record<string, unknown>; attempt?: number | undefined }>,
): Promise<CompletedItem[]> {
  const firstOfId = new Map<string, (typeof items)[number]>();
  for (const item of items) if (!firstOfId.has(item.id)) firstOfId.set(item.id, item);
  const unique = [...firstOfId.values()];
  const rows = await runStatement<{ id: string; ours: boolean; done: boolean; started_at: Date | null; has_dependents: boolean | null }>(
    db,
    completeBatchStatement,
    [
      unique.map((item) => item.id),
      unique.map((item) => JSON.stringify(item.result)),
      unique.map((item) => item.attempt ?? null),
      worker.automationId,
      worker.id,
    ],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const seen = new Set<string>();
  return items.map(({ id }) => {
    const row = byId.get(id);
    const repeated = seen.has(id);
    seen.add(id);
    if (!row?.ours) return { id, refusal: "not_found", startedAt: null, hasDependents: false };
    if (!row.done || repeated) return { id, refusal: "not_leased", startedAt: null, hasDependents: false };
    return { id, refusal: null, startedAt: row.started_at, hasDependents: row.has_dependents === true };
  });
}

const heartbeatBatchStatement: NamedStatement = {
  name: "hub_jobs_heartbeat_batch",
  text: `
  with locked as (
    ${lockedItems("$1", "$2")}
  ), extended as (
    update jobs j set lease_expires_at = now() + make_interval(secs => $4::int)
    from locked where j.id = any($1::uuid[]) and j.id = locked.id and ${leasedBy("$3", "null::int")}
    returning j.id, j.lease_expires_at
  )
  select item.id, ${ownedBy("item.id", "$2")} as ours, extended.lease_expires_at
  from unnest($1::uuid[]) as item(id) left join extended on extended.id = item.id`,
};

/** Extends each lease on its own (one statement for the batch); verdicts in input order. */
export async function extendLeaseBatch(
  db: Executor,
  worker: Omit<LeaseHolder, "attempt">,
  jobIds: string[],
  leaseSeconds: number,
): Promise<Array<BatchItemVerdict & { leaseExpiresAt: Date | null }>> {
  const rows = await runStatement<{ id: string; ours: boolean; lease_expires_at: Date | null }>(db, heartbeatBatchStatement, [
    uniqueIds(jobIds),
    worker.automationId,
    worker.id,
    leaseSeconds,
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return jobIds.map((id) => {
    const row = byId.get(id);
    if (!row?.ours) return { id, refusal: "not_found", leaseExpiresAt: null };
    if (!row.lease_expires_at) return { id, refusal: "not_leased", leaseExpiresAt: null };
    return { id, refusal: null, leaseExpiresAt: row.lease_expires_at };
  });
}
