/**
 * System test of retention: a real hub (API, dispatcher, event relay as processes) with
 * HUB_RETENTION_DAYS=30 sweeping every second. A sweep over 100,000 old rows runs while jobs flow
 * through the hub, and they keep flowing: jobs complete while the sweep is still removing rows, and
 * the audit passes. Jobs removed by retention answer 404, while the retry and the schedule that
 * name them still read.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withTransaction, retention } from "@hub/db";
import { auditJobs, CompletionLedger, ConcurrencySampler, eventually, seedHistory, seedHistoryAutomations } from "@hub/testing";
import { DRAIN_TIMEOUT_MS, SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { startWorker, useSystemHub } from "./system-hub";

const system = useSystemHub({
  dispatchers: 1,
  relays: 1,
  env: { HUB_SCHEDULES_ALLOW_SECONDS: "true" },
  // The default batch size (1000): the sweep below is some hundred short transactions, as it would
  // be on a busy hub.
  dispatcherEnv: { HUB_RETENTION_DAYS: "30", HUB_RETENTION_INTERVAL_MS: "1000" },
});

interface SweepLine {
  msg: string;
  removed: { jobs: number; events: number; webhook_deliveries: number; alert_history: number };
  startedAt: string;
  finishedAt: string;
}

/** The dispatcher's "retention sweep removed old rows" log lines so far. */
function sweepLines(logFile: string): SweepLine[] {
  return readFileSync(logFile, "utf8")
    .split("\n")
    .filter((line) => line.includes('"retention sweep removed old rows"'))
    .map((line) => JSON.parse(line) as SweepLine);
}

describe("retention while jobs flow", () => {
  it(
    "when a sweep removes 100,000 old rows while jobs flow through the hub, then jobs complete during the sweep and the audit passes",
    async () => {
      const hub = system();
      const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: 4 });
      const ledger = new CompletionLedger();
      const sampler = new ConcurrencySampler(hub.database).start();
      const worker = startWorker(automation, { concurrency: 4, workMs: [2, 10], ledger });
      let producing = true;
      let created = 0;
      const producer = (async () => {
        while (producing) {
          await hub.createJob(automation.automationId, { n: created });
          created += 1;
        }
      })();
      let sweep: SweepLine | undefined;
      try {
        await eventually(
          "jobs to flow",
          () => hub.statusCounts([automation.automationId]),
          (counts) => (counts.completed ?? 0) >= 20,
        );

        // 20,000 finished jobs (3 events each, but a cancelled job never started: 59,400 events) and
        // 20,600 self-growing events, 31 to 90 days old: 100,000 rows, committed at once under the
        // retention lock so that one sweep meets all of them (a sweep running meanwhile ends at its
        // next batch; without the lock it could take the self-growing events and leave the jobs to
        // the next sweep).
        const historyAutomations = await seedHistoryAutomations(hub.database.pool, 3, "retention-system");
        const seeded = await withTransaction(hub.database.pool, async (client) => {
          await retention.holdRetentionLockInTransaction(client);
          return seedHistory(client, {
            automationIds: historyAutomations,
            jobs: 20_000,
            selfGrowingEvents: 20_600,
            window: { newestDaysAgo: 31, oldestDaysAgo: 90 },
          });
        });
        expect(seeded.jobs + seeded.events).toBe(100_000);

        const logFile = hub.processes.dispatchers[0]!.logFile;
        [sweep] = await eventually(
          "a sweep that removed the 100,000 old rows",
          () => sweepLines(logFile).filter((line) => line.removed.jobs + line.removed.events >= 100_000),
          (lines) => lines.length > 0,
          // Each batch is followed by a pause as long as it took: on a machine busy with other test
          // files the sweep takes a while.
          DRAIN_TIMEOUT_MS * 2,
        );
        const left = await hub.database.pool.query<{ jobs: number; events: number }>(
          `select (select count(*) from jobs where automation_id = any($1::uuid[]))::int as jobs,
                (select count(*) from events where created_at < now() - interval '30 days')::int as events`,
          [historyAutomations],
        );
        expect(left.rows[0]).toEqual({ jobs: 0, events: 0 });
        producing = false;
        await producer;
        await eventually(
          "every created job to complete",
          () => hub.statusCounts([automation.automationId]),
          (counts) => counts.completed === created,
          DRAIN_TIMEOUT_MS,
        );
      } finally {
        producing = false;
        await producer.catch(() => undefined);
        await worker.stop();
        await sampler.stop();
      }

      // Interleaving: the hub's clock saw jobs of the flow complete between the sweep's start and end.
      const { rows } = await hub.database.pool.query<{ during: number }>(
        "select count(*)::int as during from jobs where automation_id = $1 and finished_at > $2 and finished_at < $3",
        [automation.automationId, sweep!.startedAt, sweep!.finishedAt],
      );
      expect(rows[0]!.during).toBeGreaterThan(0);
      const report = await auditJobs(hub.database, { automationIds: [automation.automationId], ledger, sampler });
      expect(report.violations).toEqual([]);
      expect(report.byStatus).toEqual({ completed: created });
    },
    SYSTEM_TEST_TIMEOUT_MS * 3,
  );
});

describe("references to removed jobs", () => {
  it(
    "when jobs named by a retry's retry_of and a schedule's last_job_id are removed, then reading them answers 404 and the retry and the schedule still read",
    async () => {
      const hub = system();
      const asAdmin = { token: hub.adminToken };
      // No worker runs for this automation: its jobs wait until cancelled.
      const { automationId } = await hub.createAutomationWithWorker();
      const original = await hub.createJob(automationId);
      expect((await hub.client.post(`/jobs/${original}/cancel`, {}, asAdmin)).status).toBe(200);
      const retry = (await hub.client.post<{ id: string }>(`/jobs/${original}/retry`, {}, asAdmin)).body.id;
      const schedule = (await hub.client.post<{ id: string }>(`/automations/${automationId}/schedules`, { cron: "* * * * * *", overlap: "allow" }, asAdmin))
        .body.id;
      await eventually(
        "the schedule to fire",
        async () => (await hub.client.get<{ last_job_id: string | null }>(`/schedules/${schedule}`, asAdmin)).body.last_job_id,
        (lastJobId) => lastJobId !== null,
      );
      expect((await hub.client.put(`/schedules/${schedule}`, { cron: "* * * * * *", enabled: false }, asAdmin)).status).toBe(200);
      const fired = (await hub.client.get<{ last_job_id: string }>(`/schedules/${schedule}`, asAdmin)).body.last_job_id;
      expect((await hub.client.post(`/jobs/${fired}/cancel`, {}, asAdmin)).status).toBe(200);
      // Both finished 31 days ago, as far as retention can tell; their events were published by the relay.
      await eventually(
        "their events to be published",
        async () =>
          (
            await hub.database.pool.query<{ n: number }>(
              "select count(*)::int as n from events where aggregate_id = any($1::uuid[]) and dispatched_at is null",
              [[original, fired]],
            )
          ).rows[0]!.n,
        (undispatched) => undispatched === 0,
      );
      await hub.database.pool.query("update jobs set finished_at = now() - interval '31 days' where id = any($1::uuid[])", [[original, fired]]);

      await eventually(
        "the old jobs to be removed",
        async () => (await hub.client.get(`/jobs/${original}`, asAdmin)).status,
        (status) => status === 404,
        DRAIN_TIMEOUT_MS,
      );
      await eventually(
        "the fired job to be removed",
        async () => (await hub.client.get(`/jobs/${fired}`, asAdmin)).status,
        (status) => status === 404,
        DRAIN_TIMEOUT_MS,
      );

      const retried = await hub.client.get<{ id: string; retry_of: string; status: string }>(`/jobs/${retry}`, asAdmin);
      expect(retried).toMatchObject({ status: 200, body: { id: retry, retry_of: original, status: "queued" } });
      const scheduled = await hub.client.get<{ id: string; last_job_id: string; enabled: boolean }>(`/schedules/${schedule}`, asAdmin);
      expect(scheduled).toMatchObject({ status: 200, body: { id: schedule, last_job_id: fired, enabled: false } });
      expect((await hub.client.get<unknown[]>(`/events?aggregate_id=${original}`, asAdmin)).body).toEqual([]);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
