/**
 * The keyed claim's per-value probes read `jobs_key_claim_idx`, whatever the statistics say.
 *
 * `hub_claim_jobs_v4` looks up a key value's first due job, and whether it has any queued, once per
 * value it considers. PL/pgSQL runs those statements on generic plans, which estimate
 * `key_value = $1` as 1 / n_distinct of the analysed column. When one customer's backlog is
 * analysed before the others' jobs arrive (the usual month-end shape), n_distinct is 1: the planner
 * then expected every queued row to match, walked the automation's claim order (`jobs_claim_idx`)
 * and filtered on the key, reading the whole backlog for every small customer's job — 2.5 ms a
 * probe at 20,000 queued, 15 ms of PostgreSQL per keyed start in all. Migration 0020 fixes the
 * column's n_distinct so a value is estimated as rare. Here the claim runs under
 * `force_generic_plan` with auto_explain on, after exactly that analyse, and every nested plan that
 * filters jobs by key value must reach them through `jobs_key_claim_idx`.
 */
import { sql } from "drizzle-orm";
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { connectReportingPlans, stageAutomation, useTestDatabase, type StagedAutomation } from "../../test-kit";
import { claim } from "./claim";

const hub = useTestDatabase();
const BACKLOG = 5_000;
const SMALL_VALUES = 12;

let subject: StagedAutomation;
let client: pg.PoolClient;
const plans: string[] = [];

beforeAll(async () => {
  subject = await stageAutomation(hub(), { maxConcurrentJobs: 32, parameters: [{ name: "customer", description: "" }] });
  await hub().pool.query(`update automations set concurrency_key = 'customer', max_concurrent_per_key = 2 where id = $1`, [subject.automationId]);
  // One customer's backlog, analysed as autovacuum would before anyone else's job arrives.
  await hub().db.execute(sql`
    insert into jobs (automation_id, context) select ${subject.automationId}, '{"customer": "big"}'::jsonb from generate_series(1, ${BACKLOG})`);
  await hub().pool.query("analyze jobs");
  await hub().db.execute(sql`
    insert into jobs (automation_id, context)
    select ${subject.automationId}, jsonb_build_object('customer', 'small-' || i) from generate_series(1, ${SMALL_VALUES}) as i`);

  client = await connectReportingPlans(hub(), "force_generic_plan", plans);
}, 120_000);

afterAll(() => client?.release());

it("when one value's analysed backlog dwarfs the others, then every claim finds a value's jobs through the key index", async () => {
  const started: string[] = [];
  // Claims of 8 until every small customer has started (2 of the backlog's at most run at once; completed at once).
  for (let round = 0; round < 6 && started.filter((key) => key !== "big").length < SMALL_VALUES; round++) {
    const outcome = await claim(client, { automationId: subject.automationId, workerId: subject.worker.id, maxJobs: 8, leaseSeconds: 60, candidateIds: [] });
    if (outcome.kind !== "claimed") continue;
    started.push(...outcome.jobs.map((job) => String(job.context.customer)));
    await client.query(`update jobs set status = 'completed', finished_at = now() where id = any($1::uuid[])`, [outcome.jobs.map((job) => job.id)]);
  }
  expect(started.filter((key) => key !== "big")).toHaveLength(SMALL_VALUES);

  const keyProbes = plans.filter((plan) => /key_value = /.test(plan) && /on jobs j/.test(plan));
  expect(keyProbes.length).toBeGreaterThan(0);
  const misplanned = keyProbes.filter((plan) => !plan.includes("jobs_key_claim_idx"));
  expect(misplanned).toEqual([]);
});
