/**
 * System test of CONTRACT §6.13 proven from the event log: three API processes, two dispatchers and
 * a relay; two automations, one per customer (a key, a per-key limit and a per-key rate limit),
 * one per supplier region (a key, a per-key limit and one rate limit for the automation), each
 * with a backlog and jobs arriving while it drains; reference workers on every API. One API and
 * one dispatcher are SIGKILLed mid-run and replaced by new ones (as an orchestrator restarts a
 * pod); the killed API's jobs come back when their leases lapse. Afterwards auditJobs proves
 * nothing was lost or done twice (a job whose completion the killed API may have committed without
 * answering needs no accepted call, but still exactly one result and one terminal event) and auditLimits proves, from job.started / ends in lock order
 * and on PostgreSQL's clock, the per-key and total limits, the rate limits and fair sharing.
 */
import { describe, expect, it } from "vitest";
import { auditJobs, auditLimits, CommitWitness, CompletionLedger, ConcurrencySampler, eventually, sleep } from "@hub/testing";
import { DRAIN_TIMEOUT_MS, SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { startWorker, useSystemHub, type RunningWorker, type SystemAutomation } from "./system-hub";

const system = useSystemHub({ apis: 3, dispatchers: 2, relays: 1, env: { HUB_JOB_LEASE_SECONDS: "3" } });

/** A lapsed lease puts the job back at once, so the killed API's jobs are done within the run. */
const RETRIES = { max_attempts: 5, retry_backoff_seconds: 0 };
const EXPORTS = {
  maxConcurrentJobs: 6,
  settings: {
    ...RETRIES,
    parameters: [{ name: "customer", description: "Whose export" }],
    concurrency_key: "customer",
    max_concurrent_per_key: 2,
    rate_limit: { count: 10, period_seconds: 1, per_key: true },
  },
};
const SUPPLIER = {
  maxConcurrentJobs: 4,
  settings: {
    ...RETRIES,
    parameters: [{ name: "region", description: "Which supplier region" }],
    concurrency_key: "region",
    max_concurrent_per_key: 2,
    rate_limit: { count: 15, period_seconds: 1 },
  },
};
/** One big customer's month-end batch beside four small ones. */
const EXPORT_BACKLOG = [...repeat("acme", 80), ...["globex", "initech", "umbrella", "hooli"].flatMap((customer) => repeat(customer, 10))];
/** While acme's batch drains: new customers, and small ones that have gone idle, one job at a time. */
const EXPORT_ARRIVALS = ["late-1", "globex", "late-2", "initech", "late-3", "hooli", "late-4", "umbrella"].flatMap((customer) => [customer, customer]);
const SUPPLIER_BACKLOG = ["eu", "us", "apac", "latam"].flatMap((region) => repeat(region, 25));
const SUPPLIER_ARRIVALS = repeat("eu", 20);
const TOTAL = EXPORT_BACKLOG.length + EXPORT_ARRIVALS.length + SUPPLIER_BACKLOG.length + SUPPLIER_ARRIVALS.length;

describe("limits per key, rate limits and fair sharing across processes, from the event log", () => {
  it(
    "when an API process and a dispatcher are SIGKILLed while keyed, rate-limited jobs flow, then the log shows every limit and fair sharing held and every job completed once",
    async () => {
      const hub = system();
      const [exports, supplier] = [await hub.createAutomationWithWorker(EXPORTS), await hub.createAutomationWithWorker(SUPPLIER)] as [
        SystemAutomation,
        SystemAutomation,
      ];
      const automationIds = [exports.automationId, supplier.automationId];
      const ledger = new CompletionLedger();
      const witness = new CommitWitness(hub.database);
      const sampler = new ConcurrencySampler(hub.database).start();

      // The backlogs exist before any worker claims; the witness reads PostgreSQL's clock once they are committed.
      const backlog = await Promise.all([
        createAll(hub, exports.automationId, "customer", EXPORT_BACKLOG),
        createAll(hub, supplier.automationId, "region", SUPPLIER_BACKLOG),
      ]);
      await witness.recordCreated(backlog.flat());

      const workersOn = (url: string): RunningWorker[] =>
        [exports, supplier].map((automation) =>
          startWorker(automation, { concurrency: 2, workMs: [10, 40], ledger, waitSeconds: 1, url, onEvent: witness.onWorkerEvent }),
        );
      const workers = hub.processes.apiUrls.map(workersOn);

      const arrivals = (async () => {
        // From a second in, when the small customers' backlogs have drained and acme's has not.
        await sleep(1000);
        for (let index = 0; index < Math.max(EXPORT_ARRIVALS.length, SUPPLIER_ARRIVALS.length); index += 1) {
          await sleep(150);
          const created: string[] = [];
          if (index < EXPORT_ARRIVALS.length) created.push(await hub.createJob(exports.automationId, { customer: EXPORT_ARRIVALS[index]! }));
          if (index < SUPPLIER_ARRIVALS.length) created.push(await hub.createJob(supplier.automationId, { region: SUPPLIER_ARRIVALS[index]! }));
          await witness.recordCreated(created);
        }
      })();

      await eventually(
        "a third of the exports to have started",
        () => hub.statusCounts([exports.automationId]),
        (counts) => (counts.running ?? 0) + (counts.completed ?? 0) >= 40,
      );
      expect(await hub.processes.apis[1]!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
      expect(await hub.processes.dispatchers[1]!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
      // The killed API's workers can only fail their calls now; their jobs come back when their leases lapse.
      const orphans = workers[1]!;
      const replacement = await hub.processes.addApi();
      await hub.processes.addDispatcher();
      workers.push(workersOn(replacement.url));
      await Promise.race([Promise.all(orphans.map((worker) => worker.stop())), sleep(5000)]);

      await arrivals;
      await eventually(
        "every job to complete",
        () => hub.statusCounts(automationIds),
        (counts) => counts.completed === TOTAL,
        DRAIN_TIMEOUT_MS,
      );
      await Promise.all(workers.filter((set) => set !== orphans).flatMap((set) => set.map((worker) => worker.stop())));
      await sampler.stop();
      await witness.settled();

      // Jobs the killed API's workers claimed and never heard back about: that API may have committed a completion and
      // died before answering, so such a job may be completed without an accepted call.
      const unanswered = new Set<string>();
      for (const worker of orphans) {
        const heardBack = new Set(
          worker.events.flatMap((event) => ("jobId" in event ? [event.jobId] : event.type !== "claimed" && "job" in event ? [event.job.id] : [])),
        );
        for (const event of worker.events) if (event.type === "claimed" && !heardBack.has(event.job.id)) unanswered.add(event.job.id);
      }
      const audit = await auditJobs(hub.database, { automationIds, ledger, sampler, unanswered });
      process.stdout.write(`limits run: ${TOTAL} jobs, ${ledger.acceptedCount} results accepted, ${unanswered.size} claims unanswered by the killed API\n`);
      expect(audit.violations).toEqual([]);
      expect(audit.byStatus).toEqual({ completed: TOTAL });
      for (const [name, automation] of [
        ["exports", exports],
        ["supplier", supplier],
      ] as const) {
        const report = await auditLimits(hub.database, automation.automationId, witness);
        process.stdout.write(
          `limits ${name}: ${report.starts} starts (${report.requeues} requeued), peak running ${report.peakRunning}/${report.limits.maxConcurrentJobs},` +
            ` per key ${report.peakRunningPerKey}/${report.limits.maxConcurrentPerKey}, busiest window ${report.busiestWindow}/${report.limits.rateLimit?.count}` +
            ` starts, fairness judged at ${report.fairnessChecks} (start, waiting key) pairs, ${report.idleKeyChecks} of an idle key\n`,
        );
        expect(report.violations).toEqual([]);
        // The fairness rule was exercised: at some starts another key value provably waited and was allowed.
        expect(report.fairnessChecks).toBeGreaterThan(0);
      }
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});

function repeat(value: string, times: number): string[] {
  return Array.from({ length: times }, () => value);
}

/** POST /jobs for each value (its context `{[parameter]: value}`), four at a time; the ids in order. */
async function createAll(hub: ReturnType<typeof system>, automationId: string, parameter: string, values: readonly string[]): Promise<string[]> {
  const ids: string[] = new Array(values.length);
  let next = 0;
  const lane = async () => {
    while (next < values.length) {
      const index = next++;
      ids[index] = await hub.createJob(automationId, { [parameter]: values[index]! });
    }
  };
  await Promise.all(Array.from({ length: 4 }, lane));
  return ids;
}
