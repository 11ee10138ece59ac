/**
 * System test of CONTRACT §6.13 across processes: three API processes and two dispatchers, one of
 * each SIGKILLed mid-run, workers claiming through every API; afterwards nothing is lost or
 * completed twice, no sampled instant ran more than the per-key or the total limit, and the
 * `job.started` events never put more than `count` starts in one period.
 */
import { describe, expect, it } from "vitest";
import { auditJobs, CompletionLedger, ConcurrencySampler, eventually } from "@hub/testing";
import { DRAIN_TIMEOUT_MS, SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { startWorker, useSystemHub } from "./system-hub";

const system = useSystemHub({ apis: 3, dispatchers: 2, env: { HUB_JOB_LEASE_SECONDS: "3" } });

const CUSTOMERS = ["acme", "globex", "initech", "umbrella", "hooli"];
const JOBS = 120;
const LIMITS = { total: 6, perKey: 2, rate: { count: 25, period_seconds: 1 } };

describe("limits per key and rate limits across processes", () => {
  it("when an API process and a dispatcher are SIGKILLed while jobs flow, then every job completes once within the per-key, total and rate limits", async () => {
    const hub = system();
    const automation = await hub.createAutomationWithWorker({
      maxConcurrentJobs: LIMITS.total,
      settings: {
        parameters: [{ name: "customer", description: "Whose job" }],
        concurrency_key: "customer",
        max_concurrent_per_key: LIMITS.perKey,
        rate_limit: LIMITS.rate,
      },
    });
    const { automationId } = automation;
    const ledger = new CompletionLedger();
    const sampler = new ConcurrencySampler(hub.database).start();
    // Running jobs per customer, sampled from committed states (each one a consistent snapshot).
    const perKeyViolations: string[] = [];
    let sampling = true;
    const perKeySampler = (async () => {
      while (sampling) {
        const { rows } = await hub.database.pool.query<{ customer: string; running: number }>(
          "select context ->> 'customer' as customer, count(*)::int as running from jobs where automation_id = $1 and status = 'running' group by 1",
          [automationId],
        );
        for (const row of rows) if (row.running > LIMITS.perKey) perKeyViolations.push(`${row.running} running for ${row.customer}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const workers = hub.processes.apiUrls.map((url) => startWorker(automation, { concurrency: 3, workMs: [5, 40], ledger, waitSeconds: 1, url }));

    let created = 0;
    const creating = (async () => {
      for (; created < JOBS; created += 1) await hub.createJob(automationId, { customer: CUSTOMERS[created % CUSTOMERS.length]! });
    })();
    await eventually("a third of the jobs to have started", () => hub.statusCounts([automationId]), (counts) => (counts.running ?? 0) + (counts.completed ?? 0) >= JOBS / 3);
    expect(await hub.processes.apis[1]!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
    expect(await hub.processes.dispatchers[1]!.kill("SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
    await creating;
    // The killed API's worker can only fail its calls now; its jobs come back when their leases lapse.
    await Promise.race([workers[1]!.stop(), new Promise((resolve) => setTimeout(resolve, 5000))]);
    await eventually("every job to complete", () => hub.statusCounts([automationId]), (counts) => counts.completed === JOBS, DRAIN_TIMEOUT_MS);
    await Promise.all([workers[0]!.stop(), workers[2]!.stop()]);
    sampling = false;
    await perKeySampler;
    await sampler.stop();

    const report = await auditJobs(hub.database, { automationIds: [automationId], ledger, sampler });
    expect(report.violations).toEqual([]);
    expect(report.byStatus).toEqual({ completed: JOBS });
    expect(perKeyViolations).toEqual([]);
    const { rows: starts } = await hub.database.pool.query<{ at: Date }>(
      `select e.created_at as at from events e join jobs j on j.id = e.aggregate_id
       where j.automation_id = $1 and e.event_type = 'job.started' order by e.created_at`,
      [automationId],
    );
    expect(starts.length).toBeGreaterThanOrEqual(JOBS);
    const crowded = starts.filter((start, i) => {
      const later = starts[i + LIMITS.rate.count];
      // Milliseconds here; PostgreSQL's microseconds may round a full period down by 1 ms.
      return later !== undefined && later.at.getTime() - start.at.getTime() < LIMITS.rate.period_seconds * 1000 - 1;
    });
    expect(crowded).toEqual([]);
  }, SYSTEM_TEST_TIMEOUT_MS);
});
