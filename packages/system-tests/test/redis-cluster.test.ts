/**
 * System test of the hub on a Redis Cluster: a local cluster of 3 masters (no replicas,
 * `cluster-node-timeout` 1 s) started with the machine's redis-server, the API, 2 dispatchers and a
 * relay on it (REDIS_CLUSTER_NODES, 16 dispatch shards by default).
 *
 * 1. The whole flow — create, claim, heartbeat, complete, fail, cancel, development mode, the relay
 *    — passes the audit, the API's live event feed reads `hub:events` on the cluster, and every
 *    master served dispatch commands (the shards spread over them).
 * 2. A master is SIGKILLed mid-load and restarted on its port with its nodes.conf and no data: the
 *    cluster answers CLUSTERDOWN meanwhile; the dispatchers see the lost shards' epoch keys gone and
 *    re-offer from PostgreSQL. Nothing is lost, nothing done twice, no limit exceeded; stream entries
 *    that master held may be gone, so the outbox audit reads `dispatched_at` from PostgreSQL.
 */
import type { Cluster } from "ioredis";
import { describe, expect, it } from "vitest";
import { connectRedis } from "@hub/shared";
import { auditJobs, auditOutbox, CompletionLedger, ConcurrencySampler, eventually, readEventStream, readMetric, sleep } from "@hub/testing";
import { DRAIN_TIMEOUT_MS } from "@hub/testing/vitest";
import { commandCalls, keysOnMaster, masterAddresses, masterOfKey, masterSubscribedBy, subscribersOf } from "./cluster-fixtures";
import { JobProducer, whileHubAlive } from "./job-load";
import { startWorker, useSystemHub, type SystemAutomation, type SystemHub } from "./system-hub";

const CLUSTER_TEST_TIMEOUT_MS = 120_000;

const system = useSystemHub({ redisCluster: { nodeTimeoutMs: 1000 }, dispatchers: 2, relays: 1 });

/**
 * Creates automations until their ready sets lie on every master (shards hash to slots, slots to
 * masters), so that each master has dispatch work.
 */
async function automationsOnEveryMaster(hub: SystemHub, redis: Cluster, limits: number[]): Promise<SystemAutomation[]> {
  const masters = new Set(masterAddresses(hub.redisCluster!));
  const covered = new Set<string>();
  const automations: SystemAutomation[] = [];
  for (let index = 0; automations.length < limits.length || covered.size < masters.size; index++) {
    if (index >= 24) throw new Error(`24 automations did not cover every master: ${[...covered].join(", ")}`);
    const automation = await hub.createAutomationWithWorker({ maxConcurrentJobs: limits[index % limits.length]! });
    automations.push(automation);
    covered.add(await masterOfKey(redis, hub.keys.readyJobs(automation.automationId)));
  }
  return automations;
}

/** Reads a server-sent event stream until its text contains `wanted`; rejects after `timeoutMs`. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, wanted: string, timeoutMs: number): Promise<void> {
  const decoder = new TextDecoder();
  const deadline = Date.now() + timeoutMs;
  let text = "";
  while (!text.includes(wanted)) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new Error(`"${wanted}" did not come on the event stream within ${timeoutMs} ms; got ${text.slice(-500)}`);
    let timer: NodeJS.Timeout | undefined;
    const chunk = await Promise.race([
      reader.read(),
      new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(
            () => reject(new Error(`"${wanted}" did not come on the event stream within ${timeoutMs} ms; got ${text.slice(-500)}`)),
            remaining,
          )),
      ),
    ]).finally(() => clearTimeout(timer));
    if (chunk.done) throw new Error(`the event stream ended before "${wanted}"`);
    text += decoder.decode(chunk.value, { stream: true });
  }
}

describe("Redis Cluster", () => {
  let automations: SystemAutomation[] = [];

  it(
    "when the hub runs on a 3-master cluster, then the whole flow passes the audit and every master serves dispatch",
    async () => {
      const hub = system();
      const cluster = hub.redisCluster!;
      expect(hub.keys.shards).toBe(16);
      const redis = connectRedis(hub.redisTarget, "system-test-cluster") as Cluster;
      const ledger = new CompletionLedger();
      const sampler = new ConcurrencySampler(hub.database).start();
      try {
        const evalshaBefore = await commandCalls(cluster, "evalsha");
        automations = await automationsOnEveryMaster(hub, redis, [1, 2, 3]);
        const automationIds = automations.map((automation) => automation.automationId);

        // One automation through the worker protocol, step by step.
        const first = automations[0]!;
        const completedId = await hub.createJob(first.automationId, { step: "complete" });
        const claimed = await first.worker.claim(10);
        expect(claimed).toMatchObject({ id: completedId, status: "running" });
        expect((await first.worker.heartbeat(completedId)).lease_expires_at).toBeDefined();
        const result = { done: completedId };
        await first.worker.complete(completedId, result);
        ledger.accept(completedId, result);

        const failedId = await hub.createJob(first.automationId, { step: "fail" });
        expect(await first.worker.claim(10)).toMatchObject({ id: failedId });
        expect(await first.worker.fail(failedId, { error: "broken", retryable: false })).toMatchObject({ status: "failed" });

        const cancelledId = await hub.createJob(first.automationId, { step: "cancel" });
        expect((await hub.client.post(`/jobs/${cancelledId}/cancel`, {}, { token: hub.adminToken })).status).toBe(200);

        expect((await hub.client.post(`/automations/${first.automationId}/development-mode`, {}, { token: hub.adminToken })).status).toBe(204);
        const heldId = await hub.createJob(first.automationId, { step: "development mode" });
        expect(await first.worker.claim(1)).toBeNull();
        expect((await hub.client.request("DELETE", `/automations/${first.automationId}/development-mode`, undefined, { token: hub.adminToken })).status).toBe(
          204,
        );
        expect(await first.worker.claim(10)).toMatchObject({ id: heldId });
        await first.worker.complete(heldId, { done: heldId });
        ledger.accept(heldId, { done: heldId });

        // Then load on every automation, through the reference worker.
        const workers = automations.map((automation) => startWorker(automation, { concurrency: 4, workMs: [2, 15], ledger }));
        await Promise.all(automations.map((automation) => hub.createJobs(automation.automationId, 30, { parallel: 2 })));
        const expected = automations.length * 30 + 2;
        await eventually(
          `${expected} jobs to complete`,
          whileHubAlive(hub, () => hub.statusCounts(automationIds)),
          (counts) => counts.completed === expected,
          DRAIN_TIMEOUT_MS,
        );
        await Promise.all(workers.map((worker) => worker.stop()));
        await sampler.stop();

        const report = await auditJobs(hub.database, { automationIds, ledger, sampler });
        expect(report.violations).toEqual([]);
        expect(report.byStatus).toEqual({ completed: expected, failed: 1, cancelled: 1 });
        // The relay published every event of these jobs to `hub:events`, in order per job.
        await eventually(
          "the relay to publish every event",
          whileHubAlive(hub, async () => auditOutbox(hub.database, { automationIds, stream: await readEventStream(redis, hub.keys.eventsStream) })),
          (violations) => violations.length === 0,
        );
        expect(hub.keys.eventsStream).toMatch(/:events$/);

        // The API's live feed reads the stream on the cluster: a job created now reaches GET /events/stream.
        const live = new AbortController();
        const stream = await fetch(`${hub.processes.apiUrl}/events/stream?aggregate_type=job`, {
          headers: { authorization: `Bearer ${hub.adminToken}` },
          signal: live.signal,
        });
        expect(stream.status).toBe(200);
        const reader = stream.body!.getReader();
        try {
          await readUntil(reader, ": connected", 10_000);
          // Left queued: the next test's workers take it.
          const liveJobId = await hub.createJob(automations[1]!.automationId, { step: "live feed" });
          await readUntil(reader, liveJobId, 15_000);
        } finally {
          live.abort();
        }

        // Every master ran offer/claim scripts and holds some automation's recently claimed ids.
        const evalshaAfter = await commandCalls(cluster, "evalsha");
        const claimedKeys = await Promise.all(
          cluster.masters.map((_, index) => keysOnMaster(cluster, index, `${hub.keys.eventsStream.replace(/:events$/, "")}:{d*}:ready:*:claimed`)),
        );
        process.stderr.write(
          `cluster flow: EVALSHA per master ${evalshaAfter.map((after, index) => after - evalshaBefore[index]!).join(", ")}; claimed-id sets per master ${claimedKeys.map((keys) => keys.length).join(", ")}\n`,
        );
        for (let index = 0; index < cluster.masters.length; index++) {
          expect(evalshaAfter[index]! - evalshaBefore[index]!, `EVALSHA on master ${index}`).toBeGreaterThan(20);
          expect(claimedKeys[index]!.length, `claimed-id sets on master ${index}`).toBeGreaterThan(0);
        }
        expect(hub.processes.unexpectedExits()).toEqual([]);
      } finally {
        await sampler.stop();
        redis.disconnect();
      }
    },
    CLUSTER_TEST_TIMEOUT_MS,
  );

  it(
    "when a master is SIGKILLed mid-load and comes back empty, then nothing is lost, nothing done twice and no limit exceeded",
    async () => {
      const hub = system();
      const cluster = hub.redisCluster!;
      const automationIds = automations.map((automation) => automation.automationId);
      expect(automationIds.length).toBeGreaterThan(0);
      const ledger = new CompletionLedger();
      const sampler = new ConcurrencySampler(hub.database).start();
      const { rows: before } = await hub.database.pool.query<{ n: number }>("select count(*)::int as n from jobs where automation_id = any($1::uuid[])", [
        automationIds,
      ]);
      const workers = automations.map((automation) => startWorker(automation, { concurrency: 4, workMs: [5, 30], ledger }));
      const producer = new JobProducer(hub.processes.apiUrls, hub.adminToken, automationIds).start(3, 15);
      const redisLost = () =>
        Promise.all(
          hub.processes.dispatchers.map((dispatcher) =>
            readMetric(hub.processes.metricsUrl(dispatcher)!, "hub_dispatcher_reconciliations_total", { trigger: "redis_lost" }),
          ),
        );
      const completedNow = async () => (await hub.statusCounts(automationIds)).completed ?? 0;
      let loginsDuringOutage: number[] = [];
      try {
        const completedBefore = await completedNow();
        await eventually("60 jobs to complete before the fault", whileHubAlive(hub, completedNow), (completed) => completed >= completedBefore + 60);
        const lossesBefore = (await redisLost()).reduce((sum, count) => sum + count, 0);

        // The victim holds some shards' keys (epochs, queues, ready sets: every master does, as the
        // first test showed) and, when found, the API's wake-up subscription.
        const subscribedOn = await masterSubscribedBy(cluster, "hub-api-wake");
        const victim = subscribedOn ?? 1;
        process.stderr.write(`cluster master kill: killing master ${victim} (the API's wake-up subscriber is on master ${subscribedOn ?? "?"})\n`);
        await cluster.killMaster(victim);
        await eventually(
          "the surviving masters to answer CLUSTERDOWN",
          () => cluster.cli((victim + 1) % cluster.masters.length, "GET", "any-key").catch((error: Error) => error.message),
          (answer) => answer.includes("CLUSTERDOWN"),
          10_000,
        );
        // Requests that need Redis answer 503 (or succeed on a live slot), never 500: a login reads its
        // throttling key, wherever its slot is.
        const { email, password } = hub.processes.admin;
        const duringOutage = await Promise.all([0, 1, 2].map(() => hub.client.post("/identity/token", { email, password }).then((answer) => answer.status)));
        expect(duringOutage.filter((status) => status !== 200 && status !== 503)).toEqual([]);
        loginsDuringOutage = duringOutage;
        await sleep(1_000);
        await cluster.restartMaster(victim);

        await eventually(
          "a dispatcher to notice the lost shards and re-offer from PostgreSQL",
          whileHubAlive(hub, async () => (await redisLost()).reduce((sum, count) => sum + count, 0)),
          (losses) => losses > lossesBefore,
          20_000,
        );
        await eventually(
          "the API to subscribe to wake-ups again",
          () => subscribersOf(cluster, hub.keys.wakeChannel),
          (count) => count >= 1,
          20_000,
        );
        const completedAfterRestart = await completedNow();
        await eventually(
          "jobs to complete after the restart",
          whileHubAlive(hub, completedNow),
          (completed) => completed >= completedAfterRestart + 30,
          30_000,
        );
        await producer.stop();
        const expected = before[0]!.n + producer.created.size;
        await eventually(
          `all ${expected} jobs to complete`,
          whileHubAlive(hub, () => hub.statusCounts(automationIds)),
          (counts) => (counts.completed ?? 0) + (counts.failed ?? 0) + (counts.cancelled ?? 0) === expected,
          DRAIN_TIMEOUT_MS,
        );
      } finally {
        await producer.stop();
        await Promise.all(workers.map((worker) => worker.stop()));
        await sampler.stop();
      }

      const report = await auditJobs(hub.database, { automationIds, sampler });
      expect(report.violations).toEqual([]);
      // The first test's failed and cancelled job; every other job completed.
      expect(report.byStatus).toEqual({ completed: report.jobs - 2, failed: 1, cancelled: 1 });
      // No result accepted twice, none accepted for a job not completed (the ledger covers this run's jobs).
      for (const [jobId, results] of ledger.accepted) expect(results.length, `results accepted for ${jobId}`).toBe(1);
      const { rows: completedRows } = await hub.database.pool.query<{ id: string }>(
        "select id from jobs where automation_id = any($1::uuid[]) and id = any($2::uuid[]) and status <> 'completed'",
        [automationIds, [...ledger.accepted.keys()]],
      );
      expect(completedRows).toEqual([]);
      expect(producer.unexpectedAnswers()).toEqual({});
      // The stream may have lost the entries the killed master held: the outbox audit reads PostgreSQL.
      await eventually(
        "the relay to dispatch every event",
        whileHubAlive(hub, () => auditOutbox(hub.database, { automationIds })),
        (violations) => violations.length === 0,
        30_000,
      );
      // Every shard's BullMQ queue was consumed to the end, the lost shards' included.
      const redis = connectRedis(hub.redisTarget, "system-test-queues");
      try {
        const waiting = await eventually(
          "every shard's dispatch queue to be drained",
          () => Promise.all(Array.from({ length: hub.keys.shards }, (_, shard) => redis.llen(`${hub.keys.bullPrefix(shard)}:${hub.keys.dispatchQueue}:wait`))),
          (lengths) => lengths.every((length) => length === 0),
          20_000,
        );
        expect(waiting.every((length) => length === 0)).toBe(true);
      } finally {
        redis.disconnect();
      }
      expect(hub.processes.unexpectedExits()).toEqual([]);
      process.stderr.write(
        `cluster master kill: ${producer.created.size} jobs created meanwhile, logins during the outage answered ${JSON.stringify(loginsDuringOutage)}, answers ${JSON.stringify(Object.fromEntries(producer.answers))}, ${ledger.refused} results refused (lease lost)\n`,
      );
    },
    CLUSTER_TEST_TIMEOUT_MS,
  );
});
