/**
 * System test of many processes on a Redis Cluster: 3 API, 3 dispatcher and 3 relay processes share
 * one database and a local 3-master cluster; producers and workers are spread over the API
 * processes, and one process of each kind is SIGKILLed mid-load. The audit: every job in one
 * terminal state with one terminal event, no result accepted twice, limits never exceeded, every
 * event dispatched and in the stream in order per aggregate (a consumer deduping by id).
 */
import { describe, expect, it } from "vitest";
import { connectRedis } from "@hub/shared";
import { auditJobs, auditOutbox, CompletionLedger, ConcurrencySampler, eventually, readEventStream, sleep } from "@hub/testing";
import { DRAIN_TIMEOUT_MS } from "@hub/testing/vitest";
import { JobProducer, whileHubAlive } from "./job-load";
import { startWorker, useSystemHub, type RunningWorker } from "./system-hub";

const PROCESSES_TEST_TIMEOUT_MS = 150_000;

const system = useSystemHub({
  redisCluster: true,
  apis: 3,
  dispatchers: 3,
  relays: 3,
  // A result the worker could not deliver to the killed API lapses and is offered again soon.
  env: { HUB_JOB_LEASE_SECONDS: "4" },
});

describe("many processes on a Redis Cluster", () => {
  it(
    "when one API, one dispatcher and one relay are SIGKILLed mid-load, then every job ends once, no limit is exceeded and every event is published in order",
    async () => {
      const hub = system();
      const { apis, apiUrls, dispatchers, relays } = hub.processes;
      expect([apis.length, dispatchers.length, relays.length]).toEqual([3, 3, 3]);
      const automations = await Promise.all([2, 3, 2, 4].map((limit) => hub.createAutomationWithWorker({ maxConcurrentJobs: limit })));
      const automationIds = automations.map((automation) => automation.automationId);
      const ledger = new CompletionLedger();
      const sampler = new ConcurrencySampler(hub.database).start();
      // Each automation has a worker on every API process.
      const workers: Array<{ api: number; worker: RunningWorker }> = automations.flatMap((automation) =>
        apiUrls.map((url, api) => ({ api, worker: startWorker(automation, { concurrency: 2, workMs: [5, 30], ledger, url }) })),
      );
      const producer = new JobProducer(apiUrls, hub.adminToken, automationIds).start(3, 20);
      const completed = async () => (await hub.statusCounts(automationIds)).completed ?? 0;
      try {
        await eventually("80 jobs to complete before the kills", whileHubAlive(hub, completed), (count) => count >= 80);
        const victims = [apis[1]!, dispatchers[1]!, relays[1]!];
        for (const victim of victims) {
          expect(await victim.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
          await sleep(300);
        }
        // The workers of the killed API have nowhere to report: they stop, and their jobs' leases lapse.
        await Promise.all(workers.filter(({ api }) => api === 1).map(({ worker }) => worker.stop()));
        const completedAtKill = await completed();
        await eventually("work to go on without them", whileHubAlive(hub, completed), (count) => count >= completedAtKill + 60, 30_000);
        await producer.stop();
        const expected = producer.created.size;
        await eventually(
          `all ${expected} jobs to complete`,
          whileHubAlive(hub, () => hub.statusCounts(automationIds)),
          (counts) => counts.completed === expected,
          DRAIN_TIMEOUT_MS,
        );
      } finally {
        await producer.stop();
        await Promise.all(workers.map(({ worker }) => worker.stop()));
        await sampler.stop();
      }

      const report = await auditJobs(hub.database, { automationIds, sampler });
      expect(report.violations).toEqual([]);
      expect(report.byStatus).toEqual({ completed: producer.created.size });
      // No result accepted twice, and each accepted one is the stored one. (A completion the killed API
      // committed but never answered is completed without an acceptance: that is not a second run.)
      const { rows } = await hub.database.pool.query<{ id: string; result: { run?: string } | null }>(
        "select id, result from jobs where automation_id = any($1::uuid[])",
        [automationIds],
      );
      const storedRun = new Map(rows.map((row) => [row.id, row.result?.run]));
      for (const [jobId, results] of ledger.accepted) {
        expect(results.length, `results accepted for ${jobId}`).toBe(1);
        expect(storedRun.get(jobId), `stored result of ${jobId}`).toBe(results[0]!.run);
      }
      expect(ledger.acceptedCount).toBeGreaterThan(producer.created.size - 10);
      expect(producer.unexpectedAnswers()).toEqual({});

      const redis = connectRedis(hub.redisTarget, "system-test-stream");
      try {
        await eventually(
          "every event to be published, in order per job",
          whileHubAlive(hub, async () => auditOutbox(hub.database, { automationIds, stream: await readEventStream(redis, hub.keys.eventsStream) })),
          (violations) => violations.length === 0,
          30_000,
        );
      } finally {
        redis.disconnect();
      }
      expect(hub.processes.unexpectedExits()).toEqual([]);
      process.stderr.write(
        `cluster processes: ${producer.created.size} jobs, answers ${JSON.stringify(Object.fromEntries(producer.answers))}, ${producer.networkErrors} network errors, ${ledger.accepted.size} results accepted, ${ledger.refused} refused\n`,
      );
    },
    PROCESSES_TEST_TIMEOUT_MS,
  );
});
