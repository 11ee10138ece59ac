/**
 * The queue-depth and list statements stay index-backed on a large hub (CONTRACT §6.2, §6.3): on
 * 1,000,000 jobs over 10,000 automations, EXPLAIN of the stats, gauges,
 * GET /jobs/{id}, the claim's pick, the dispatcher's scans and every GET /jobs page (first and cursor, each filter) shows
 * index scans on `jobs`, never a sequential scan or a sort of the table. The plans are printed for
 * the closing note. No timing is asserted (speed lives in benchmarks).
 */
import { sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVERYWHERE, openDatabase, type Database, type KeysetPosition, automations, jobs } from "@hub/db";
import { createTestDatabase, type TestDatabase } from "@hub/testing";
import { testServiceUrls } from "@hub/testing/vitest";

const AUTOMATIONS = 10_000;
const JOBS = 1_000_000;

let database: TestDatabase;
let hub: Database;
let busyAutomationId: string;

beforeAll(async () => {
  database = await createTestDatabase(testServiceUrls().databaseServerUrl);
  hub = openDatabase(database.url, { max: 2 });
  const { db } = hub;
  await db.execute(sql`insert into sectors (name, color) values ('plans', '#336699')`);
  await db.execute(sql`
    insert into automations (name, slug, sector_id, max_concurrent_jobs)
    select 'automation ' || i, 'automation-' || i, (select id from sectors), 5 from generate_series(1, ${AUTOMATIONS}) as i`);
  await db.execute(sql`
    insert into workers (automation_id, cloud_instance_id, api_key_hash, status, last_seen_at)
    select id, 'i-' || id, md5(id::text), case when random() < 0.8 then 'running' else 'stopped' end, now()
    from automations`);
  // Mostly finished history spread over 30 days; 5 % queued (a fifth of them delayed), 0.1 % running.
  await db.execute(sql`
    with numbered as (select id, row_number() over (order by id) as n from automations)
    insert into jobs (automation_id, status, attempts, created_at, available_at, started_at, finished_at, result, error, lease_expires_at)
    select a.id, s.status, case when s.status = 'queued' then 0 else 1 end, s.created_at,
      case when s.status = 'queued' and i % 5 = 0 then now() + interval '1 hour' else s.created_at end,
      case when s.status <> 'queued' then s.created_at end,
      case when s.status in ('completed', 'failed') then s.created_at + interval '1 second' end,
      case when s.status = 'completed' then '{}'::jsonb end,
      case when s.status = 'failed' then 'boom' end,
      case when s.status = 'running' then now() + interval '1 minute' end
    from generate_series(1, ${JOBS}) as i
    cross join lateral (select
      case when i % 20 = 0 then 'queued' when i % 1000 = 1 then 'running' when i % 20 = 2 then 'failed' else 'completed' end as status,
      now() - (i % 2592000) * interval '1 second' as created_at) s
    join numbered a on a.n = 1 + (i % ${AUTOMATIONS})`);
  // The busiest possible queue for the per-job statements: 20,000 queued jobs in one automation.
  const [busy] = (await db.execute<{ id: string }>(sql`select id from automations where slug = 'automation-1'`)).rows;
  busyAutomationId = busy!.id;
  // Its worker is up (the generated ones are stopped at random), so its jobs wait on the limit.
  await db.execute(sql`update workers set status = 'running' where automation_id = ${busyAutomationId}`);
  await db.execute(sql`
    insert into jobs (automation_id, status, priority, created_at, available_at)
    select ${busyAutomationId}, 'queued', i % 3, now() - i * interval '1 second', now() - i * interval '1 second'
    from generate_series(1, 20000) as i`);
  // As autovacuum leaves a table at rest: statistics, and the visibility map index-only scans rely on.
  await db.execute(sql`vacuum analyze`);
}, 600_000);

afterAll(async () => {
  await hub?.close();
  await database?.drop();
});

async function plan(query: SQL): Promise<string> {
  const rows = await hub.db.execute<{ "QUERY PLAN": string }>(sql`explain (analyze, buffers, costs off) ${query}`);
  return rows.rows.map((row) => row["QUERY PLAN"]).join("\n");
}

function expectIndexBacked(text: string, indexes: string[]): void {
  // Printed so that a run shows the plans on 1M jobs, not only whether they passed.
  process.stdout.write(`${text}\n\n`);
  expect(text).not.toMatch(/Seq Scan on jobs/);
  for (const index of indexes) expect(text).toContain(index);
}

describe("on 1M jobs and 10,000 automations", () => {
  it("when the stats of one automation are read, then jobs is reached only through indexes", async () => {
    expectIndexBacked(await plan(automations.statsQuery(busyAutomationId, EVERYWHERE)), ["jobs_claim_idx", "jobs_automation_finished_idx"]);
  });

  it("when the gauges of every automation are read, then queued and running jobs are found through partial indexes", async () => {
    const text = await plan(automations.queueDepthQuery());
    expectIndexBacked(text, ["jobs_running_lease_idx"]);
    expect(text).toMatch(/jobs_claim_idx|jobs_queued_available_idx/);
  });

  it("when the dispatcher looks for due jobs and for jobs nearing their time, then it reads only that window of jobs_queued_available_idx", async () => {
    const [{ now }] = (await hub.db.execute<{ now: string }>(sql`select now() as now`)).rows as [{ now: string }];
    const dbNow = new Date(now);
    // 10,000 of the queued jobs are due in an hour: the horizon pass (the next minute) must not read them.
    const horizon = await plan(jobs.queuedRefsQuery({ from: dbNow, until: new Date(dbNow.getTime() + 60_000) }, null, 1000));
    const due = await plan(jobs.queuedRefsQuery({ from: null, until: dbNow }, null, 1000));

    expectIndexBacked(horizon, ["jobs_queued_available_idx"]);
    expect(horizon).toMatch(/Index Scan using jobs_queued_available_idx on jobs \(actual [^)]*rows=0 /);
    expectIndexBacked(due, ["jobs_queued_available_idx"]);
    expect(due).not.toMatch(/Sort/);
  });

  it("when a queued job at the back of a 20,000-job queue is read, then its position is counted on jobs_claim_idx", async () => {
    // The last *due* job: the generated history may give this automation a few delayed jobs too
    // (when its random place in the numbering says so), which have no position.
    const [last] = (
      await hub.db.execute<{ id: string }>(sql`
        select id from jobs where automation_id = ${busyAutomationId} and status = 'queued' and available_at <= now()
        order by priority, available_at desc limit 1`)
    ).rows;
    const text = await plan(jobs.withWaitingQuery(last!.id, EVERYWHERE));
    expectIndexBacked(text, ["jobs_claim_idx", "jobs_pkey"]);
    const [row] = (await hub.db.execute<{ queue_position: number; waiting_reason: string }>(jobs.withWaitingQuery(last!.id, EVERYWHERE))).rows;
    expect(row).toMatchObject({ queue_position: 20_000, waiting_reason: "concurrency_limit" });
  });

  it("when a claim picks from a 20,000-job queue, then it reads the first entries of jobs_claim_idx without sorting the queue", async () => {
    // The `picked` step of hub_claim_jobs_v2 (packages/db/functions/hub_claim_jobs_v2.sql), which EXPLAIN cannot see inside the
    // function: its ORDER BY must match jobs_claim_idx, NULLS order included, or every claim sorts
    // the whole queue.
    const text = await plan(sql`
      select j.id from jobs j
      where j.automation_id = ${busyAutomationId} and j.status = 'queued' and j.available_at <= now()
      order by j.priority desc nulls last, j.available_at, j.seq
      limit 5 for update skip locked`);
    expectIndexBacked(text, ["jobs_claim_idx"]);
    expect(text).not.toMatch(/Sort/);
    const definition = (await hub.db.execute<{ def: string }>(sql`select pg_get_functiondef('hub_claim_jobs_v2'::regproc) as def`)).rows[0]!.def;
    expect(definition).toContain("ORDER BY j.priority DESC NULLS LAST, j.available_at, j.seq");
  });
});

describe("GET /jobs pages on 1M jobs", () => {
  /**
   * The list statements are built by the query module at run time, so their plans are taken as
   * PostgreSQL runs them: auto_explain, on one connection, reports each plan as a notice.
   */
  let explained: Database;
  const plans: string[] = [];

  beforeAll(async () => {
    explained = openDatabase(database.url, { max: 1 });
    explained.pool.on("connect", (client) => client.on("notice", (notice) => plans.push(notice.message ?? "")));
    await explained.db.execute(sql`load 'auto_explain'`);
    await explained.db.execute(sql`set auto_explain.log_min_duration = 0`);
    await explained.db.execute(sql`set auto_explain.log_level = 'notice'`);
  });

  afterAll(async () => {
    await explained?.close();
  });

  async function planOfPage(run: () => Promise<unknown>): Promise<string> {
    plans.length = 0;
    await run();
    const text = plans.join("\n");
    process.stdout.write(`${text}\n\n`);
    return text;
  }

  async function middlePosition(): Promise<KeysetPosition> {
    const [row] = (
      await hub.db.execute<{ created_at: string; id: string }>(sql`select created_at, id from jobs order by created_at desc, id desc offset 500000 limit 1`)
    ).rows;
    return { createdAt: new Date(row!.created_at), id: row!.id };
  }

  const filters: Array<[string, () => Parameters<typeof jobs.list>[2]]> = [
    ["no filter", () => ({})],
    ["one status", () => ({ statuses: ["failed"] })],
    ["an automation", () => ({ automationId: busyAutomationId })],
    ["an automation and a status", () => ({ automationId: busyAutomationId, statuses: ["queued"] })],
    [
      "several statuses and a time window",
      () => ({ statuses: ["failed", "cancelled"], createdAfter: new Date(Date.now() - 7 * 86_400_000), createdBefore: new Date() }),
    ],
  ];

  for (const [name, filter] of filters) {
    it(`when a page is read with ${name}, first page and a cursor page, then jobs is read through an index without sorting`, async () => {
      const after = await middlePosition();
      for (const page of [{ limit: 100 }, { limit: 100, after }]) {
        const text = await planOfPage(() => jobs.list(explained.pool, EVERYWHERE, filter(), page));
        expect(text).toMatch(/Index (Only )?Scan/);
        expect(text).not.toMatch(/Seq Scan on jobs/);
        expect(text).not.toMatch(/Sort Key: jobs\.created_at/);
      }
    });
  }

  it("when a page of automations is read, then it is read through an index", async () => {
    const text = await planOfPage(() => automations.listViews(explained.pool, EVERYWHERE, {}, { limit: 100 }));
    expect(text).not.toMatch(/Seq Scan on automations/);
  });
});
