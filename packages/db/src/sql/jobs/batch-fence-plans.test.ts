/**
 * Worker fences find their jobs by primary key only, whatever the planner believes of the
 * automation: complete-batch, heartbeat-batch, complete, heartbeat, the log append and
 * complete-and-claim; so do the claim's check of the candidates the ready set offered and the keyed
 * claim's lock of the job it picked (packages/db/functions/hub_claim_jobs_v4.sql: a custom plan of the check had read the
 * automation's whole stretch of jobs_claim_idx, every queued job, on each claim). A prepared
 * statement (and a PL/pgSQL function's statement) runs custom plans first — the automation id is
 * then a constant the planner estimates from the statistics — and during a burst those statistics
 * say the automation has few jobs long after it has thousands: a
 * plan that walked the automation's index, alone or intersected with the primary key (a BitmapAnd),
 * read every index entry of the automation, dead versions included, on each call. In a 40,000-job
 * burst that made a batch completion cost 8 ms and 1,700 buffers instead of about 1 ms
 * (bench/README.md). statement-plans.test.ts runs generic plans, which did not show it; this one
 * forces custom plans on statistics that are out of date in exactly that way. No timing is asserted.
 */
import { EVERYWHERE } from "../../reach";
import { sql } from "drizzle-orm";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobLogs, jobs, withTransaction } from "../../index";
import { connectReportingPlans, stageAutomation, useTestDatabase, type StagedAutomation } from "../../test-kit";

const hub = useTestDatabase();
/**
 * What a plan that finds jobs by id alone never shows: another index of `jobs` that leads with
 * automation_id (reading one reads every job, or every queued job, of the automation), a partial
 * index of queued jobs, or an intersection with one.
 */
const BEYOND_THE_PRIMARY_KEY = /jobs_automation_\w+_idx|jobs_claim_idx|jobs_key_claim_idx|jobs_queued_available_idx|BitmapAnd/;

let client: pg.PoolClient;
let burst: StagedAutomation;
const plans: string[] = [];

beforeAll(async () => {
  const busy = await stageAutomation(hub(), { maxConcurrentJobs: 10 });
  burst = await stageAutomation(hub(), { maxConcurrentJobs: 100 });
  const history = (automationId: string, count: number) =>
    hub().db.execute(sql`
      insert into jobs (automation_id, status, attempts, context, result, created_at, available_at, started_at, finished_at)
      select ${automationId}, 'completed', 1, '{}'::jsonb, '{}'::jsonb, t, t, t, t
      from generate_series(1, ${count}) as i, lateral (select now() - interval '1 day' + i * interval '1 millisecond' as t) as at`);
  // Analysed while the burst's automation had no job at all, as autovacuum last saw it...
  await history(busy.automationId, 20_000);
  await hub().db.execute(sql`analyze jobs`);
  // ...then its burst: thousands of jobs the statistics do not know of.
  await history(burst.automationId, 5_000);
  client = await connectReportingPlans(hub(), "force_custom_plan", plans);
}, 120_000);

afterAll(() => client?.release());

async function runningJobsOfBurst(count: number): Promise<string[]> {
  for (let i = 0; i < count; i++) {
    const created = await jobs.insert(client, EVERYWHERE, burst.userId, { automationId: burst.automationId, context: {} });
    if (created.kind !== "created") throw new Error(`job not created: ${created.kind}`);
  }
  const claim = await jobs.claim(client, { automationId: burst.automationId, workerId: burst.worker.id, maxJobs: count, leaseSeconds: 60, candidateIds: [] });
  if (claim.kind !== "claimed") throw new Error(`jobs not claimed: ${claim.kind}`);
  return claim.jobs.map((job) => job.id);
}

/** The plans of `work`'s statements, run in a transaction that is rolled back. */
async function plansOf(work: () => Promise<void>): Promise<string[]> {
  const captured: string[] = [];
  await withTransaction(client, async () => {
    plans.length = 0;
    await work();
    captured.push(...plans);
    throw new RollBack();
  }).catch((error: unknown) => {
    if (!(error instanceof RollBack)) throw error;
  });
  return captured;
}
class RollBack extends Error {}

describe("statements that name jobs by id, on an automation whose statistics are out of date", () => {
  it("when a worker completes a batch, then its jobs are locked by primary key, never through the automation's index", async () => {
    const ids = await runningJobsOfBurst(8);

    const captured = await plansOf(async () => {
      const completed = await jobs.completeBatch(
        client,
        burst.worker,
        ids.map((id) => ({ id, result: {} })),
      );
      expect(completed.map((item) => item.refusal)).toEqual(ids.map(() => null));
    });

    const batchPlans = captured.filter((plan) => /update jobs j set status = 'completed'/i.test(plan));
    expect(batchPlans).toHaveLength(1);
    expect(batchPlans[0]).toContain("jobs_pkey");
    expect(batchPlans[0]).not.toMatch(BEYOND_THE_PRIMARY_KEY);
  });

  it("when a worker heartbeats and completes one job, then the fence probes the primary key, never the automation's index", async () => {
    const [id] = await runningJobsOfBurst(1);

    const captured = await plansOf(async () => {
      expect((await jobs.extendLease(client, id!, burst.worker, 60)).ok).toBe(true);
      expect((await jobs.complete(client, id!, burst.worker, { ok: true })).ok).toBe(true);
    });

    const fencePlans = captured.filter((plan) => /update jobs j set/i.test(plan));
    expect(fencePlans).toHaveLength(2);
    for (const plan of fencePlans) {
      expect(plan).toContain("jobs_pkey");
      expect(plan).not.toMatch(BEYOND_THE_PRIMARY_KEY);
    }
  });

  it("when a worker sends log lines and completes a job while claiming the next, then each fence probes the primary key, never the automation's index", async () => {
    const [running] = await runningJobsOfBurst(1);
    const created = await jobs.insert(client, EVERYWHERE, burst.userId, { automationId: burst.automationId, context: {} });
    if (created.kind !== "created") throw new Error(`job not created: ${created.kind}`);

    const captured = await plansOf(async () => {
      expect((await jobLogs.append(client, running!, burst.worker, [{ level: "info", message: "step 1" }], 1_000_000)).ok).toBe(true);
      const outcome = await jobs.completeAndClaim(
        client,
        running!,
        burst.worker,
        { ok: true },
        { maxJobs: 1, leaseSeconds: 60, candidateIds: [created.jobs[0]!.id] },
      );
      expect(outcome.completed.ok).toBe(true);
    });

    const fencePlans = captured.filter((plan) => /from jobs j\s+where j\.id = \$1|UPDATE jobs j SET status = 'completed'/i.test(plan));
    expect(fencePlans).toHaveLength(2);
    for (const plan of fencePlans) {
      expect(plan).toContain("jobs_pkey");
      expect(plan).not.toMatch(BEYOND_THE_PRIMARY_KEY);
    }
  });

  it("when a worker heartbeats a batch, then its jobs are locked by primary key, never through the automation's index", async () => {
    const ids = await runningJobsOfBurst(8);

    const captured = await plansOf(async () => {
      const extended = await jobs.extendLeaseBatch(client, burst.worker, ids, 60);
      expect(extended.map((item) => item.refusal)).toEqual(ids.map(() => null));
    });

    const batchPlans = captured.filter((plan) => /update jobs j set lease_expires_at/i.test(plan));
    expect(batchPlans).toHaveLength(1);
    expect(batchPlans[0]).toContain("jobs_pkey");
    expect(batchPlans[0]).not.toMatch(BEYOND_THE_PRIMARY_KEY);
  });

  it("when a claim checks the candidates the ready set offered, then each is found by primary key, never through an index of the automation's", async () => {
    const candidateIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await jobs.insert(client, EVERYWHERE, burst.userId, { automationId: burst.automationId, context: {} });
      if (created.kind !== "created") throw new Error(`job not created: ${created.kind}`);
      candidateIds.push(created.jobs[0]!.id);
    }
    const [running] = await runningJobsOfBurst(1);

    const captured = await plansOf(async () => {
      // A stale candidate (running now) among offered ones: the check must tell them apart.
      const claim = await jobs.claim(client, {
        automationId: burst.automationId,
        workerId: burst.worker.id,
        maxJobs: 1,
        leaseSeconds: 60,
        candidateIds: [running!, ...candidateIds],
      });
      expect(claim.kind).toBe("claimed");
      if (claim.kind === "claimed") expect(claim.staleIds).toEqual([running]);
    });

    const checkPlans = captured.filter((plan) => /FROM unnest\(\(SELECT p_candidate_ids\)\)/i.test(plan));
    expect(checkPlans).toHaveLength(1);
    expect(checkPlans[0]).toContain("jobs_pkey");
    expect(checkPlans[0]).not.toMatch(BEYOND_THE_PRIMARY_KEY);
  });

  it("when a keyed claim locks the job it picked, then it finds it by primary key, never through an index of the automation's", async () => {
    const keyed = await stageAutomation(hub(), { maxConcurrentJobs: 8, parameters: [{ name: "customer", description: "" }] });
    await hub().pool.query(`update automations set concurrency_key = 'customer', max_concurrent_per_key = 2 where id = $1`, [keyed.automationId]);
    await hub().db.execute(sql`
      insert into jobs (automation_id, context) select ${keyed.automationId}, jsonb_build_object('customer', 'c-' || (i % 50)) from generate_series(1, 2000) as i`);

    const captured = await plansOf(async () => {
      const claim = await jobs.claim(client, { automationId: keyed.automationId, workerId: keyed.worker.id, maxJobs: 4, leaseSeconds: 60, candidateIds: [] });
      expect(claim.kind).toBe("claimed");
    });

    const lockPlans = captured.filter((plan) => /j\.id = v_pick_id/i.test(plan));
    expect(lockPlans.length).toBeGreaterThan(0);
    for (const plan of lockPlans) {
      expect(plan).toContain("jobs_pkey");
      expect(plan).not.toMatch(BEYOND_THE_PRIMARY_KEY);
    }
  });
});
