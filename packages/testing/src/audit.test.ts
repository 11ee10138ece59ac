/**
 * The audit itself: it passes a consistent history and names each broken rule. Rows and events
 * are written straight to a fresh database to stage histories no correct hub would produce.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { events, schema } from "@hub/db";
import type { EventType } from "@hub/shared";
import { auditJobs, CompletionLedger } from "./audit";
import { ConcurrencySampler } from "./concurrency-sampler";
import { eventually } from "./polling";
import { seedAutomation, seedQueuedJobs } from "./seed";
import { openTestEnvironment, type TestEnvironment } from "./test-environment";

let env: TestEnvironment;

beforeAll(async () => {
  env = await openTestEnvironment("audit-test");
});

afterAll(async () => {
  await env?.close();
});

/**
 * Writes a staged history: only the event types matter to the audit, so every payload is just
 * `{automation_id}`, which is not what the catalogue defines for most types.
 */
async function history(jobId: string, automationId: string, types: EventType[]): Promise<void> {
  const batch = types.map((eventType) => ({ eventType, aggregateId: jobId, actorId: null, payload: { automation_id: automationId } }) as events.NewEvent);
  await events.recordMany(env.database.pool, batch);
}

async function completed(jobId: string, result: Record<string, unknown>, attempts = 1): Promise<void> {
  await env.database.db.update(schema.jobs).set({ status: "completed", result, attempts }).where(eq(schema.jobs.id, jobId));
}

describe("auditJobs", () => {
  it("when every job has a consistent history, then the audit reports no violation", async () => {
    const { automation } = await seedAutomation(env.database.db, 1);
    const [first, second, waiting] = await seedQueuedJobs(env.database.db, automation.id, 3);
    await history(first!.id, automation.id, ["job.created", "job.started", "job.requeued", "job.started", "job.completed"]);
    await completed(first!.id, { n: 1 }, 2);
    await history(second!.id, automation.id, ["job.created", "job.started", "job.completed"]);
    await completed(second!.id, { n: 2 });
    await history(waiting!.id, automation.id, ["job.created"]);
    const ledger = new CompletionLedger();
    ledger.accept(first!.id, { n: 1 });
    ledger.accept(second!.id, { n: 2 });

    const report = await auditJobs(env.database, { automationIds: [automation.id], ledger });

    expect(report.violations).toEqual([]);
    expect(report.byStatus).toEqual({ completed: 2, queued: 1 });
    expect(report.peakRunningByEvents[automation.id]).toBe(1);
  });

  it("when a history is broken, then the audit names every broken rule", async () => {
    const { automation } = await seedAutomation(env.database.db, 1);
    const [twiceCompleted, overLimit, stillRunning, unacknowledged] = await seedQueuedJobs(env.database.db, automation.id, 4);
    await history(twiceCompleted!.id, automation.id, ["job.created", "job.started"]);
    // Started while `twiceCompleted` runs: two running under a limit of 1.
    await history(overLimit!.id, automation.id, ["job.created", "job.started", "job.requeued"]);
    await env.database.db.update(schema.jobs).set({ attempts: 1 }).where(eq(schema.jobs.id, overLimit!.id));
    await history(twiceCompleted!.id, automation.id, ["job.completed", "job.completed"]);
    await completed(twiceCompleted!.id, { n: 1 });
    await history(stillRunning!.id, automation.id, ["job.created", "job.started"]);
    await env.database.db.update(schema.jobs).set({ status: "running", attempts: 1 }).where(eq(schema.jobs.id, stillRunning!.id));
    await history(unacknowledged!.id, automation.id, ["job.created", "job.started", "job.completed"]);
    await completed(unacknowledged!.id, { n: 4 });
    const ledger = new CompletionLedger();
    ledger.accept(twiceCompleted!.id, { n: "not what was stored" });
    ledger.accept(overLimit!.id, { n: 2 });

    const report = await auditJobs(env.database, { automationIds: [automation.id], ledger });

    const expected = [
      `job ${twiceCompleted!.id} is completed but its terminal events are [job.completed, job.completed]`,
      `job ${stillRunning!.id} is running: neither queued nor terminal`,
      `job ${twiceCompleted!.id}: the stored result`,
      `job ${overLimit!.id}: a result was accepted but the job is queued`,
      `job ${unacknowledged!.id} is completed, but no worker call that completed it was accepted`,
      `job ${twiceCompleted!.id}: job.completed at position`,
      `automation ${automation.id}: 2 jobs running at event position`,
    ];
    for (const violation of expected)
      expect(
        report.violations.some((line) => line.startsWith(violation)),
        violation,
      ).toBe(true);
  });

  it("when a completed job's worker never heard back because its API process was killed, then it needs no accepted call and its other rules still hold", async () => {
    const { automation } = await seedAutomation(env.database.db, 2);
    const [answerLost, doubled] = await seedQueuedJobs(env.database.db, automation.id, 2);
    await history(answerLost!.id, automation.id, ["job.created", "job.started", "job.completed"]);
    await completed(answerLost!.id, { n: 1 });
    await history(doubled!.id, automation.id, ["job.created", "job.started", "job.completed", "job.completed"]);
    await completed(doubled!.id, { n: 2 });

    const report = await auditJobs(env.database, {
      automationIds: [automation.id],
      ledger: new CompletionLedger(),
      unanswered: new Set([answerLost!.id, doubled!.id]),
    });

    expect(report.violations).toHaveLength(2);
    expect(report.violations[0]).toBe(
      `job ${doubled!.id} is completed but its terminal events are [job.completed, job.completed] (expected exactly one job.completed)`,
    );
    expect(report.violations[1]).toMatch(new RegExp(`^job ${doubled!.id}: job.completed at position \\d+ while it was not running$`));
  });

  it("when more jobs run at once than the limit allows, then the sampler catches it", async () => {
    const { automation } = await seedAutomation(env.database.db, 1);
    const staged = await seedQueuedJobs(env.database.db, automation.id, 2);
    for (const job of staged) await history(job.id, automation.id, ["job.created"]);
    const sampler = new ConcurrencySampler(env.database, { limits: new Map([[automation.id, 1]]) }).start();
    await env.database.db.update(schema.jobs).set({ status: "running" }).where(eq(schema.jobs.automationId, automation.id));
    await eventually(
      "the sampler to see both running",
      async () => sampler.peakRunning.get(automation.id) ?? 0,
      (peak) => peak === 2,
    );
    await sampler.stop();

    const report = await auditJobs(env.database, { automationIds: [automation.id], sampler });

    expect(report.violations).toContain(`automation ${automation.id}: 2 jobs sampled running at once (limit 1)`);
    expect(sampler.overLimit).toBeGreaterThan(0);
    expect(sampler.firstOverLimit).toBe(`automation ${automation.id}: 2 running, limit 1`);
  });
});
