/**
 * CONTRACT §6.18 at the end of a window: a backlog of 5,000 jobs accepted while the window held
 * them starts within 1 s of its end, handed out in §6.8 claim order (priority, then available_at,
 * then creation), never beyond max_concurrent_jobs, by a worker that claims and completes batches.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createAutomationWithWorker, useHubWithDispatcher } from "./job-fixtures";

const hub = useHubWithDispatcher();
const asAdmin = () => ({ token: hub.adminToken });
const BACKLOG = 5000;
const LIMIT = 100;

async function pgNow(): Promise<Date> {
  const result = await hub.api.ctx.database.db.execute<{ now: string }>(sql`select now() as now`);
  return new Date(result.rows[0]!.now);
}

describe("a backlog held by a maintenance window", () => {
  it("when a window over 5,000 queued jobs ends, then they start within 1 s, in claim order, never beyond max_concurrent_jobs", async () => {
    const worker = await createAutomationWithWorker(hub, { max_concurrent_jobs: LIMIT });
    const base = await pgNow();
    const endsAt = new Date(base.getTime() + 20_000);
    const window = await hub.client.post(
      "/maintenance-windows",
      { automation_id: worker.automationId, starts_at: new Date(base.getTime() - 1000).toISOString(), ends_at: endsAt.toISOString() },
      asAdmin(),
    );
    expect(window.status).toBe(201);
    for (let batch = 0; batch < BACKLOG / 500; batch += 1) {
      const jobs = Array.from({ length: 500 }, (_, index) => ({ automation_id: worker.automationId, priority: ((batch * 500 + index) * 7) % 5 }));
      expect((await hub.client.post("/jobs/batch", { jobs }, asAdmin())).status).toBe(201);
    }
    await hub.dispatcher.reconcileNow();
    expect((await pgNow()).getTime()).toBeLessThan(endsAt.getTime());

    // The worker long-polls through the end, then claims and completes a batch at a time.
    let claimed = 0;
    let firstBatch: Array<{ started_at: string }> | undefined;
    while (claimed < BACKLOG) {
      const batch = await hub.client.post("/jobs/claim-batch", { max_jobs: LIMIT, wait_seconds: 30 }, { workerKey: worker.workerKey });
      expect(batch.status).toBe(200);
      const jobs = batch.body.jobs as Array<{ id: string; started_at: string }>;
      expect(jobs.length).toBeLessThanOrEqual(LIMIT);
      firstBatch ??= jobs;
      claimed += jobs.length;
      const done = await hub.client.post("/jobs/complete-batch", { items: jobs.map((job) => ({ id: job.id, result: {} })) }, { workerKey: worker.workerKey });
      expect(done.status).toBe(200);
    }

    const firstStart = Math.min(...firstBatch!.map((job) => Date.parse(job.started_at)));
    expect(firstStart).toBeGreaterThanOrEqual(endsAt.getTime());
    expect(firstStart - endsAt.getTime()).toBeLessThan(1000);
    const rows = (
      await hub.api.ctx.database.db.execute<{ id: string; started_order: string; claim_order: string; peak: number }>(sql`
        with j as (
          select id, started_at, finished_at,
            row_number() over (order by (select e.position from events e where e.aggregate_id = jobs.id and e.event_type = 'job.started')) as started_order,
            row_number() over (order by priority desc, available_at, seq) as claim_order
          from jobs where automation_id = ${worker.automationId}
        )
        select j.id, j.started_order::text, j.claim_order::text,
          (select count(*)::int from j other where other.started_at <= j.started_at and other.finished_at > j.started_at) as peak
        from j`)
    ).rows;
    expect(rows).toHaveLength(BACKLOG);
    expect(rows.filter((row) => row.started_order !== row.claim_order)).toEqual([]);
    expect(Math.max(...rows.map((row) => row.peak))).toBeLessThanOrEqual(LIMIT);
  }, 180_000);
});
