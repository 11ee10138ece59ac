/**
 * A new `concurrency_key` (CONTRACT §6.13) written into an automation's active jobs; the state it
 * resets is described in packages/db/functions/hub_claim_jobs_v4.sql.
 */
import { sql } from "drizzle-orm";
import { queryBuilder, type Executor } from "../../executor";

/**
 * After a PUT changed an automation's `concurrency_key` (its row locked FOR UPDATE before this, so no
 * job insert reads the old key and commits after this: packages/db/functions/hub_job_key_value.sql, `key-value.test.ts`): its queued and running jobs take their value under the
 * new key, and the fair-sharing history of the old key's values is dropped (those values mean
 * something else now): the new values start as never started. The automation's own window is
 * kept: starts before a change count.
 */
export async function rekey(executor: Executor, automationId: string, concurrencyKey: string | null): Promise<void> {
  const tx = queryBuilder(executor);
  await tx.execute(sql`
    update jobs set key_value = hub_job_key_value_of(context, ${concurrencyKey}::text)
    where automation_id = ${automationId} and status in ('queued', 'held', 'running')`);
  await tx.execute(sql`delete from job_key_states where automation_id = ${automationId}`);
  // The new values wait, never started, their heads unknown (the claim walks only waiting values, and reads a
  // value whose head is NULL first: functions/hub_claim_jobs_v4.sql).
  await tx.execute(sql`
    insert into job_key_states (automation_id, key_value, waiting)
    select distinct automation_id, key_value, true from jobs
    where automation_id = ${automationId} and status in ('queued', 'held', 'running') and key_value is not null`);
}
