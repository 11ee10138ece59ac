/**
 * The worker path's statements read `jobs` and `events` only through indexes, whatever the tables'
 * size. A prepared statement runs a generic plan after its fifth execution, and a
 * generic plan can flip with the table's statistics: the claim statement once joined its rows back
 * to `jobs` and planned a hash join over a sequential scan of the whole table between roughly
 * 10,000 and 300,000 analysed rows (at 1,000,000 it did not, which is why a large-table test missed
 * it). So each statement runs here as the hub runs it — the real query function, a named prepared
 * statement, forced onto its generic plan — at 1,000, 80,000 and 500,000 analysed jobs, and
 * PostgreSQL's own counter of sequential scans (`pg_stat_xact_user_tables`, which counts the scans
 * inside `hub_claim_jobs_v2` too) must stay at zero. No timing is asserted.
 */
import { EVERYWHERE } from "../reach";
import { sql } from "drizzle-orm";
import { jobs, webhookDeliveries, withTransaction, type Executor } from "../index";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectReportingPlans, stageAutomation, useTestDatabase, type StagedAutomation } from "../test-kit";

const hub = useTestDatabase();
const SIZES = [1_000, 80_000, 500_000];
const WATCHED_TABLES = ["jobs", "events", "webhook_deliveries"];
/** More than the five custom plans PostgreSQL tries before it settles on the generic one. */
const RUNS = 6;

let subject: StagedAutomation;
let client: pg.PoolClient;
let seeded = 0;
let webhookId: string;
const plans: string[] = [];

beforeAll(async () => {
  subject = await stageAutomation(hub(), { maxConcurrentJobs: 1000, maxAttempts: 3 });
  const [webhook] = (
    await hub().db.execute<{ id: string }>(
      sql`insert into webhooks (url, event_types, secret_ciphertext) values ('https://hooks.example.test/in', '{*}', 'sealed') returning id`,
    )
  ).rows;
  webhookId = webhook!.id;
  // As the prepared statement runs once PostgreSQL has settled on a generic plan; every plan,
  // nested ones inside functions included, is reported: a failing test names the statement that scanned.
  client = await connectReportingPlans(hub(), "force_generic_plan", plans);
});

afterAll(() => client?.release());

/**
 * Grows `jobs` (finished history, one event each, half of the events delivered to a webhook) to
 * `size` rows and analyses the tables, as autovacuum would.
 */
async function growTo(size: number): Promise<void> {
  const more = size - seeded;
  await hub().db.execute(sql`
    with inserted as (
      insert into jobs (automation_id, status, attempts, context, result, created_at, available_at, started_at, finished_at)
      select ${subject.automationId}, 'completed', 1, '{}'::jsonb, '{}'::jsonb, t, t, t, t + interval '1 second'
      from generate_series(1, ${more}) as i, lateral (select now() - interval '30 days' + i * interval '1 millisecond' as t) as at
      returning id, automation_id
    )
    insert into events (aggregate_id, event_type, payload)
    select id, 'job.completed', jsonb_build_object('automation_id', automation_id, 'worker_id', null, 'result', '{}'::jsonb) from inserted`);
  await hub().db.execute(sql`
    insert into webhook_deliveries (webhook_id, event_id, aggregate_id, event_position, status, attempts, next_attempt_at, delivered_at)
    select ${webhookId}, e.id, e.aggregate_id, e.position, 'delivered', 1, null, e.created_at
    from events e where e.position > (select coalesce(max(event_position), 0) from webhook_deliveries) and e.position % 2 = 0`);
  seeded = size;
  for (const table of WATCHED_TABLES) await hub().db.execute(sql.raw(`analyze ${table}`));
}

/**
 * Runs `work` RUNS times, each after its `setup` (committed first, so the jobs it creates are due
 * by the measured transaction's `now()`), and returns the sequential scans per watched table that
 * the measured transactions made, with the plans that made them.
 */
async function sequentialScansOf<Setup>(
  setup: () => Promise<Setup>,
  work: (prepared: Setup, tx: Executor) => Promise<void>,
): Promise<{ scans: Record<string, number>; scanningPlans: string[]; plans: string[] }> {
  const scans = Object.fromEntries(WATCHED_TABLES.map((table) => [table, 0]));
  const scanningPlans: string[] = [];
  const measuredPlans: string[] = [];
  for (let run = 0; run < RUNS; run++) {
    const prepared = await setup();
    // The counters are this backend's pending statistics, flushed only outside a transaction
    // block: read before and after the work inside one, the difference is the work's.
    await withTransaction(client, async (tx) => {
      const before = await pendingSequentialScans();
      plans.length = 0;
      await work(prepared, tx);
      const after = await pendingSequentialScans();
      for (const table of WATCHED_TABLES) scans[table] = (scans[table] ?? 0) + after[table]! - before[table]!;
    });
    scanningPlans.push(...plans.filter((plan) => WATCHED_TABLES.some((table) => plan.includes(`Seq Scan on ${table} `))));
    measuredPlans.push(...plans);
  }
  return { scans, scanningPlans, plans: measuredPlans };
}

async function pendingSequentialScans(): Promise<Record<string, number>> {
  const { rows } = await client.query<{ relname: string; seq_scan: string }>("select relname, seq_scan from pg_stat_xact_user_tables where relname = any($1)", [
    WATCHED_TABLES,
  ]);
  return Object.fromEntries(WATCHED_TABLES.map((table) => [table, Number(rows.find((row) => row.relname === table)?.seq_scan ?? 0)]));
}

const NO_SCANS = { scans: Object.fromEntries(WATCHED_TABLES.map((table) => [table, 0])), scanningPlans: [], plans: expect.anything() };

async function queuedJob(): Promise<string> {
  const created = await jobs.insert(client, EVERYWHERE, subject.userId, { automationId: subject.automationId, context: {} });
  if (created.kind !== "created") throw new Error(`job not created: ${created.kind}`);
  return created.jobs[0]!.id;
}

async function runningJobs(count: number): Promise<string[]> {
  for (let i = 0; i < count; i++) await queuedJob();
  const claim = await jobs.claim(client, {
    automationId: subject.automationId,
    workerId: subject.worker.id,
    maxJobs: count,
    leaseSeconds: 60,
    candidateIds: [],
  });
  if (claim.kind !== "claimed") throw new Error(`jobs not claimed: ${claim.kind}`);
  return claim.jobs.map((job) => job.id);
}

const worker = () => subject.worker;
const claimOf = (maxJobs: number) =>
  jobs.claim(client, { automationId: subject.automationId, workerId: subject.worker.id, maxJobs, leaseSeconds: 60, candidateIds: [] });

describe.each(SIZES)("on %i analysed jobs", (size) => {
  beforeAll(() => growTo(size), 600_000);

  it("when jobs are created one at a time and in batches, then jobs and events are never scanned", async () => {
    const measured = await sequentialScansOf(
      async () => undefined,
      async () => {
        await queuedJob();
        const batch = await jobs.insertBatch(
          client,
          EVERYWHERE,
          subject.userId,
          [1, 2, 3].map(() => ({ automationId: subject.automationId, context: {} })),
        );
        expect(batch.kind).toBe("created");
      },
    );
    expect(measured).toEqual(NO_SCANS);
  });

  it("when a worker claims one job or a batch, then the claim reads jobs only through indexes", async () => {
    const measured = await sequentialScansOf(
      async () => Promise.all([queuedJob(), queuedJob(), queuedJob()]),
      async () => {
        expect(await claimOf(1)).toMatchObject({ kind: "claimed", jobs: [{}] });
        expect(await claimOf(2)).toMatchObject({ kind: "claimed", jobs: [{}, {}] });
      },
    );
    expect(measured).toEqual(NO_SCANS);
  });

  it("when a worker heartbeats, completes and fails its jobs, one at a time and in batches, then jobs and events are never scanned", async () => {
    const measured = await sequentialScansOf(
      () => runningJobs(5),
      async ([a, b, c, d, e]) => {
        expect((await jobs.extendLease(client, a!, worker(), 60)).ok).toBe(true);
        expect((await jobs.complete(client, a!, worker(), { ok: true })).ok).toBe(true);
        expect((await jobs.fail(client, b!, worker(), { error: "boom", retryable: false, maxAttempts: 3 })).ok).toBe(true);
        expect((await jobs.extendLeaseBatch(client, worker(), [c!, d!], 60)).map((item) => item.refusal)).toEqual([null, null]);
        const completed = await jobs.completeBatch(
          client,
          worker(),
          [c!, d!, e!].map((id) => ({ id, result: {} })),
        );
        expect(completed.map((item) => item.refusal)).toEqual([null, null, null]);
      },
    );
    expect(measured).toEqual(NO_SCANS);
    // The table was analysed with no job running, as it is after a quiet spell: a lease fence
    // written plainly makes the running-lease index look nearly empty, and the planner would walk
    // it (every running job of every automation, and its dead entries after a burst) instead of
    // probing the primary key.
    expect(measured.plans.filter((plan) => plan.includes("jobs_running_lease_idx"))).toEqual([]);
  });

  it("when a worker completes a job and claims the next in one statement, then jobs and events are never scanned and the fence probes the key", async () => {
    const measured = await sequentialScansOf(
      async () => [...(await runningJobs(1)), await queuedJob()],
      async ([running, queued]) => {
        const outcome = await jobs.completeAndClaim(client, running!, worker(), { ok: true }, { maxJobs: 1, leaseSeconds: 60, candidateIds: [queued!] });
        // The claim takes the automation's first job in claim order, which an earlier test may have left queued.
        expect(outcome).toMatchObject({ completed: { ok: true }, claimed: { kind: "claimed", jobs: [{}] } });
      },
    );
    expect(measured).toEqual(NO_SCANS);
    // As complete's fence above (the claim's own count of running jobs is the claim's plan, not a fence).
    const fencePlans = measured.plans.filter((plan) => plan.includes("UPDATE jobs j SET status = 'completed'"));
    expect(fencePlans).toHaveLength(RUNS);
    expect(fencePlans.filter((plan) => plan.includes("jobs_running_lease_idx"))).toEqual([]);
  });

  it("when a job with dependents finishes, then the release and the finisher's look-up find the dependents through jobs_depends_on_idx", async () => {
    // The table was analysed with no job held and none of these queued, so an index on status (jobs_status_created_idx
    // for `held`, jobs_queued_available_idx for `queued`) looks nearly empty to the planner; its entries are every such
    // row and row version since the last vacuum, thousands per wave under a flow load.
    const measured = await sequentialScansOf(
      async () => {
        // An automation per run: the previous run's released dependents would come first in claim order.
        const flows = await stageAutomation(hub(), { maxConcurrentJobs: 1000 });
        const created = await jobs.insertFlow(
          client,
          EVERYWHERE,
          flows.userId,
          [[], [0], [0], [0], [1, 2, 3]].map((dependsOn) => ({
            automationId: flows.automationId,
            context: {},
            dependsOn,
            onDependencyFailure: "cancel" as const,
          })),
        );
        if (created.kind !== "created") throw new Error(`flow not created: ${created.kind}`);
        const root = created.jobs[0]!.id;
        const claim = await jobs.claim(client, { automationId: flows.automationId, workerId: flows.worker.id, maxJobs: 1, leaseSeconds: 60, candidateIds: [] });
        if (claim.kind !== "claimed" || claim.jobs[0]!.id !== root) throw new Error("the flow's root was not claimed");
        return { root, worker: flows.worker };
      },
      async ({ root, worker }) => {
        expect((await jobs.complete(client, root, worker, { ok: true })).ok).toBe(true);
        expect(await jobs.hold.queuedDependentsOf(client, [root])).toHaveLength(3);
      },
    );
    const waves = measured.plans.filter((plan) => plan.includes("WITH hit AS"));
    const lookUps = measured.plans.filter((plan) => plan.includes("j.depends_on && (select $1::uuid[])"));
    expect([waves.length, lookUps.length]).toEqual([RUNS, RUNS]);
    // At 1,000 jobs the planner may rightly read the (30-page) table whole.
    if (size < 80_000) return;
    expect(measured).toEqual(NO_SCANS);
    // A plan node reads "… Scan on <index>" or "… Scan using <index>" (the statement's text, also in the plan, names indexes too).
    const reads = (plan: string, index: string) => new RegExp(`Scan (on|using) ${index} `).test(plan);
    expect(waves.filter((plan) => !reads(plan, "jobs_depends_on_idx") || reads(plan, "jobs_status_created_idx"))).toEqual([]);
    expect(lookUps.filter((plan) => !reads(plan, "jobs_depends_on_idx") || reads(plan, "jobs_queued_available_idx"))).toEqual([]);
  });

  it("when finished jobs are retried and lapsed leases swept, then jobs and events are never scanned", async () => {
    const measured = await sequentialScansOf(
      async () => {
        const [done] = await runningJobs(1);
        await jobs.fail(client, done!, worker(), { error: "boom", retryable: false, maxAttempts: 3 });
        return done!;
      },
      async (done) => {
        expect(await jobs.retry(client, subject.userId, [done])).toHaveLength(1);
        await jobs.expireLapsedLeases(client, { maxAttempts: 3, batchSize: 100 });
        await jobs.expireOverdue(client, { maxAttempts: 3, batchSize: 100 });
      },
    );
    expect(measured).toEqual(NO_SCANS);
  });

  it("when jobs are listed by context values (GET /jobs), with and without automation_id, then the first filter's entries are read in order and jobs only by primary key", async () => {
    const measured = await sequentialScansOf(
      async () => {
        const customer = `customer-${Math.random().toString(36).slice(2)}`;
        for (let i = 0; i < 3; i++)
          await jobs.insert(client, EVERYWHERE, subject.userId, { automationId: subject.automationId, context: { customer, index: String(i) } });
        return customer;
      },
      async (customer, tx) => {
        const context = [{ name: "customer", value: customer }];
        expect((await jobs.list(tx, EVERYWHERE, { context }, { limit: 100 })).items).toHaveLength(3);
        expect((await jobs.list(tx, EVERYWHERE, { context: [...context, { name: "index", value: "1" }] }, { limit: 100 })).items).toHaveLength(1);
        expect((await jobs.list(tx, EVERYWHERE, { automationId: subject.automationId, context }, { limit: 100 })).items).toHaveLength(3);
      },
    );
    const listing = measured.plans.filter((plan) => plan.includes("job_context_values as entry"));
    expect(listing).toHaveLength(3 * RUNS);
    // At 1,000 jobs the planner rightly hashes the whole (30-page) table instead of probing its key.
    if (size < 80_000) return;
    expect(measured).toEqual(NO_SCANS);
    expect(listing.filter((plan) => !plan.includes("job_context_values_pair_created_idx") || !plan.includes("jobs_pkey"))).toEqual([]);
  });

  it("when a relay claims, records and releases webhook deliveries, then jobs, events and deliveries are never scanned", async () => {
    const measured = await sequentialScansOf(
      async () => {
        // Three pending deliveries, due now, of a fresh aggregate's events.
        await hub().db.execute(sql`
          with written as (
            insert into events (aggregate_id, event_type, payload)
            select gen_random_uuid(), 'job.completed', '{}'::jsonb from generate_series(1, 3) returning id, aggregate_id, position
          )
          insert into webhook_deliveries (webhook_id, event_id, aggregate_id, event_position)
          select ${webhookId}, id, aggregate_id, position from written`);
      },
      async (_, tx) => {
        const claimed = await webhookDeliveries.claimDue(client, { limit: 3, perWebhookLimit: 8, leaseMs: 60_000 });
        expect(claimed).toHaveLength(3);
        const [delivered, failed, released] = claimed;
        await webhookDeliveries.recordDelivered(client, [{ id: delivered!.id, leaseToken: delivered!.leaseToken, statusCode: 200 }]);
        await webhookDeliveries.release(client, [{ id: released!.id, leaseToken: released!.leaseToken }]);
        await webhookDeliveries.failPendingOfInactiveWebhooks(client);
        // It runs as a transaction of its own: a savepoint inside this one.
        const outcome = await webhookDeliveries.recordFailures(
          tx,
          [{ id: failed!.id, leaseToken: failed!.leaseToken, statusCode: 500, error: "HTTP 500", retryInMs: null }],
          { disableAfterMs: 86_400_000 },
        );
        expect(outcome.failed).toBe(1);
      },
    );
    // With half as many deliveries as jobs, the smallest size holds 500 deliveries: a few pages,
    // which the planner rightly reads whole. The statements name the rows they change by primary
    // key, so from a few thousand rows on an index is the cheaper plan.
    if (size < 80_000) {
      expect(measured.scans).toMatchObject({ jobs: 0, events: 0 });
      expect(measured.scanningPlans.filter((plan) => !plan.includes("Seq Scan on webhook_deliveries "))).toEqual([]);
    } else {
      expect(measured).toEqual(NO_SCANS);
    }
  });
});
