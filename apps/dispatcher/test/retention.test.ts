/**
 * The dispatcher's retention sweep on a real database: it removes what the period says, batch
 * after batch, reports it in its metrics, removes nothing with HUB_RETENTION_DAYS=0, and two
 * dispatchers sweeping at once remove every due row exactly once between them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction, retention } from "@hub/db";
import { seedHistory, seedHistoryAutomations } from "@hub/testing";
import { openTestEnvironment, type TestEnvironment } from "@hub/testing/vitest";
import { createDispatcher, createDispatcherMetrics } from "../src/dispatcher";
import { createRetentionSweeper } from "../src/tasks/retention";

let env: TestEnvironment;

beforeAll(async () => {
  env = await openTestEnvironment("dispatcher-retention-test");
});

afterAll(async () => {
  await env?.close();
});

async function count(table: "jobs" | "events"): Promise<number> {
  const { rows } = await env.database.pool.query<{ n: number }>(`select count(*)::int as n from ${table}`);
  return rows[0]!.n;
}

/** Jobs and self-growing events as old as `window` (3 events per job), in automations of their own. */
async function seedOld(jobs: number, selfGrowingEvents: number, window = { newestDaysAgo: 31, oldestDaysAgo: 40 }) {
  const automationIds = await seedHistoryAutomations(env.database.pool, 3);
  return seedHistory(env.database.pool, { automationIds, jobs, selfGrowingEvents, window });
}

function dispatcherWith(config: { retentionDays: number; retentionBatchSize?: number }) {
  return createDispatcher({
    database: env.database,
    redis: env.redis,
    keys: env.keys,
    logger: env.logger,
    config: { maxAttempts: 3, workerTtlSeconds: 30, ...config },
  });
}

async function removedByTable(metrics: ReturnType<typeof createDispatcherMetrics>): Promise<Record<string, number>> {
  const { values } = await metrics.retentionRowsRemoved.get();
  return Object.fromEntries(values.map((value) => [String(value.labels.table), value.value]));
}

describe("retention sweep", () => {
  it("when HUB_RETENTION_DAYS is 0, then a sweep removes nothing, however old the history", async () => {
    await seedOld(100, 50, { newestDaysAgo: 400, oldestDaysAgo: 800 });
    const before = { jobs: await count("jobs"), events: await count("events") };

    const report = await dispatcherWith({ retentionDays: 0 }).sweepRetentionNow();

    expect(report.outcome).toBe("disabled");
    expect({ jobs: await count("jobs"), events: await count("events") }).toEqual(before);
  });

  it("when a sweep runs, then everything older than the period goes batch after batch, recent history stays, and the metrics count the rows by table", async () => {
    // Everything already in the database is old too (the test above left 800-day-old history).
    const oldBefore = { jobs: await count("jobs"), events: await count("events") };
    const old = await seedOld(250, 120);
    const recent = await seedOld(40, 30, { newestDaysAgo: 0, oldestDaysAgo: 29 });
    const dispatcher = dispatcherWith({ retentionDays: 30, retentionBatchSize: 100 });

    const report = await dispatcher.sweepRetentionNow();

    expect(report.outcome).toBe("completed");
    expect(report.removed).toEqual({ jobs: oldBefore.jobs + old.jobs, events: oldBefore.events + old.events, webhook_deliveries: 0, alert_history: 0 });
    expect(report.batches).toBeGreaterThan((oldBefore.jobs + old.jobs) / 100);
    expect({ jobs: await count("jobs"), events: await count("events") }).toEqual({ jobs: recent.jobs, events: recent.events });
    expect(await removedByTable(dispatcher.metrics)).toEqual({
      jobs: report.removed.jobs,
      events: report.removed.events,
      webhook_deliveries: 0,
      alert_history: 0,
    });
    const lastSweep = (await dispatcher.metrics.retentionLastSweep.get()).values[0]!.value;
    expect(lastSweep).toBeGreaterThan(Date.now() / 1000 - 60);
    expect((await dispatcher.metrics.retentionSweepDuration.get()).values.find((value) => value.metricName?.endsWith("_count"))?.value).toBe(1);
  });

  it("when two dispatchers sweep at the same moment, then between them every old row is removed once and nothing fails", async () => {
    const leftover = { jobs: await count("jobs"), events: await count("events") };
    const old = await seedOld(600, 300);
    const sweepers = [0, 1].map(() =>
      createRetentionSweeper({
        database: env.database,
        logger: env.logger,
        metrics: createDispatcherMetrics(),
        settings: { retentionDays: 30, batchSize: 50 },
      }),
    );

    const reports = await Promise.all(sweepers.map((sweeper) => sweeper.sweep()));

    const total = (key: "jobs" | "events") => reports.reduce((sum, report) => sum + report.removed[key], 0);
    expect({ jobs: total("jobs"), events: total("events") }).toEqual({ jobs: old.jobs, events: old.events });
    expect(reports.map((report) => report.outcome).every((outcome) => outcome === "completed" || outcome === "lock_taken")).toBe(true);
    expect({ jobs: await count("jobs"), events: await count("events") }).toEqual(leftover);
  });

  it("when a transaction writes old rows under the retention lock, then a sweep meanwhile ends removing nothing and the first sweep after the commit removes them all", async () => {
    const leftover = { jobs: await count("jobs"), events: await count("events") };
    const automationIds = await seedHistoryAutomations(env.database.pool, 3);
    const sweeper = createRetentionSweeper({
      database: env.database,
      logger: env.logger,
      metrics: createDispatcherMetrics(),
      settings: { retentionDays: 30, batchSize: 100 },
    });
    let meanwhile: Awaited<ReturnType<typeof sweeper.sweep>> | undefined;

    const seeded = await withTransaction(env.database.pool, async (client) => {
      await retention.holdRetentionLockInTransaction(client);
      const rows = await seedHistory(client, { automationIds, jobs: 300, selfGrowingEvents: 150, window: { newestDaysAgo: 31, oldestDaysAgo: 40 } });
      meanwhile = await sweeper.sweep();
      return rows;
    });
    const after = await sweeper.sweep();

    expect(meanwhile).toMatchObject({ outcome: "lock_taken", removed: { jobs: 0, events: 0, webhook_deliveries: 0, alert_history: 0 } });
    expect(after).toMatchObject({ outcome: "completed", removed: { jobs: seeded.jobs, events: seeded.events } });
    expect({ jobs: await count("jobs"), events: await count("events") }).toEqual(leftover);
  });
});
