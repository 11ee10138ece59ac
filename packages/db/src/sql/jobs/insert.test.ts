/**
 * Creating jobs against the real database: one statement writes the job, its job.created event
 * and the Idempotency-Key binding — or nothing, and says why; retries copy failed and cancelled
 * jobs only; bindings live 24 hours, then go.
 */
import { eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { idempotencyKeys, jobs, schema } from "../../index";
import { catalogueCheckedEvents, stageAutomation, useTestDatabase } from "../../test-kit";

const hub = useTestDatabase();

const MONTH = [{ name: "month", description: "YYYY-MM" }];

async function jobsOf(automationId: string) {
  return hub().db.select().from(schema.jobs).where(eq(schema.jobs.automationId, automationId));
}

describe("createJob", () => {
  it("when the automation is active and the context fits, then one queued job and its job.created event are written", async () => {
    const { automationId, userId } = await stageAutomation(hub(), { parameters: MONTH });

    const outcome = await jobs.insert(hub().pool, userId, { automationId, context: { month: "2026-10", extra: 1 } });

    expect(outcome.kind).toBe("created");
    const [created] = outcome.kind === "created" ? outcome.jobs : [];
    expect(await jobs.find(hub().db, created!.id)).toMatchObject({ status: "queued", context: { month: "2026-10", extra: 1 }, createdBy: userId, attempts: 0 });
    const events = await catalogueCheckedEvents(hub(), created!.id);
    expect(events.map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
      ["job.created", userId, { automation_id: automationId, context: { month: "2026-10", extra: 1 } }],
    ]);
  });

  it("when the same Idempotency-Key comes again, even with another context, then the first job's id is answered and nothing is created", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const first = await jobs.insert(hub().pool, userId, { automationId, context: { n: 1 } }, "key-1");

    const again = await jobs.insert(hub().pool, userId, { automationId, context: { n: 2 } }, "key-1");

    const firstId = first.kind === "created" ? first.jobs[0]!.id : undefined;
    expect(again).toEqual({ kind: "replayed", jobIds: [firstId] });
    expect((await jobsOf(automationId)).map((job) => job.context)).toEqual([{ n: 1 }]);
  });

  it("when another user sends the same Idempotency-Key, then it is a new job: keys are per user", async () => {
    const subject = await stageAutomation(hub());
    const other = await stageAutomation(hub());
    await jobs.insert(hub().pool, subject.userId, { automationId: subject.automationId, context: {} }, "shared-key");

    const outcome = await jobs.insert(hub().pool, other.userId, { automationId: subject.automationId, context: {} }, "shared-key");

    expect(outcome.kind).toBe("created");
    expect(await jobsOf(subject.automationId)).toHaveLength(2);
  });

  it("when the context misses a parameter, the automation is inactive or unknown, then nothing is written and the refusal shows what was read", async () => {
    const { automationId, userId } = await stageAutomation(hub(), { parameters: MONTH });
    const inactive = await stageAutomation(hub());
    await hub().db.update(schema.automations).set({ isActive: false }).where(eq(schema.automations.id, inactive.automationId));

    const missing = await jobs.insert(hub().pool, userId, { automationId, context: { month: 202610 } }, "refused-key");
    const deactivated = await jobs.insert(hub().pool, userId, { automationId: inactive.automationId, context: {} });
    const unknown = await jobs.insert(hub().pool, userId, { automationId: "00000000-0000-4000-8000-000000000000", context: {} });

    expect(missing).toEqual({ kind: "refused", automations: [{ id: automationId, parameters: MONTH, isActive: true }] });
    expect(deactivated).toEqual({ kind: "refused", automations: [{ id: inactive.automationId, parameters: [], isActive: false }] });
    expect(unknown).toEqual({ kind: "refused", automations: [] });
    expect(await jobsOf(automationId)).toEqual([]);
    expect(await jobsOf(inactive.automationId)).toEqual([]);
    expect(await hub().db.select().from(schema.idempotencyKeys).where(eq(schema.idempotencyKeys.key, "refused-key"))).toEqual([]);
  });
});

describe("createJobBatch", () => {
  it("when every item is valid, then the jobs are created in input order, each with its event", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const batch = [3, 1, 2].map((n) => ({ automationId, context: { n } }));

    const outcome = await jobs.insertBatch(hub().pool, userId, batch);

    const ids = outcome.kind === "created" ? outcome.jobs.map((job) => job.id) : [];
    const rows = await hub().db.select().from(schema.jobs).where(inArray(schema.jobs.id, ids)).orderBy(schema.jobs.seq);
    expect(rows.map((row) => [row.id, row.context])).toEqual(ids.map((id, index) => [id, batch[index]!.context]));
    for (const id of ids) expect((await catalogueCheckedEvents(hub(), id)).map((event) => event.eventType)).toEqual(["job.created"]);
  });

  it("when one item's automation is inactive, then no job of the batch is created", async () => {
    const active = await stageAutomation(hub());
    const inactive = await stageAutomation(hub());
    await hub().db.update(schema.automations).set({ isActive: false }).where(eq(schema.automations.id, inactive.automationId));

    const outcome = await jobs.insertBatch(hub().pool, active.userId, [
      { automationId: active.automationId, context: {} },
      { automationId: inactive.automationId, context: {} },
    ]);

    expect(outcome.kind).toBe("refused");
    expect(await jobsOf(active.automationId)).toEqual([]);
  });
});

describe("retryJobs", () => {
  it("when failed, cancelled and completed jobs are retried, then only the failed and cancelled ones get a new queued job with retry_of", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const created = await jobs.insertBatch(hub().pool, userId, ["failed", "cancelled", "completed"].map((status) => ({ automationId, context: { status } })));
    const [failed, cancelled, completed] = created.kind === "created" ? created.jobs.map((job) => job.id) : [];
    for (const [id, status] of [[failed, "failed"], [cancelled, "cancelled"], [completed, "completed"]] as const) {
      await hub().db.update(schema.jobs).set({ status }).where(eq(schema.jobs.id, id!));
    }

    const retried = await jobs.retry(hub().pool, userId, [failed!, cancelled!, completed!]);

    expect(retried.map((retry) => retry.retryOf).sort()).toEqual([failed, cancelled].sort());
    for (const retry of retried) {
      const source = await jobs.find(hub().db, retry.retryOf);
      expect(await jobs.find(hub().db, retry.id)).toMatchObject({ status: "queued", retryOf: retry.retryOf, context: source!.context, createdBy: userId });
      const [event] = await catalogueCheckedEvents(hub(), retry.id);
      expect(event?.payload).toEqual({ automation_id: automationId, context: source!.context, retry_of: retry.retryOf });
    }
  });
});

describe("forgetExpiredIdempotencyKeys", () => {
  it("when bindings are older and younger than 24 hours, then only the older ones are forgotten", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const created = await jobs.insert(hub().pool, userId, { automationId, context: {} });
    const jobId = created.kind === "created" ? created.jobs[0]!.id : undefined;
    await hub().db.execute(sql`
      insert into idempotency_keys (user_id, key, job_id, created_at)
      select ${userId}::uuid, k.key, ${jobId}::uuid, now() - k.age
      from (values ('old', interval '25 hours'), ('edge', interval '24 hours 1 second'), ('young', interval '23 hours')) as k(key, age)`);

    const forgotten = await idempotencyKeys.forgetExpired(hub().pool);

    const kept = await hub().db.select({ key: schema.idempotencyKeys.key }).from(schema.idempotencyKeys).where(eq(schema.idempotencyKeys.userId, userId));
    expect(forgotten).toBe(2);
    expect(kept.map((row) => row.key)).toEqual(["young"]);
  });

  it("when more bindings expired than one call takes, then each call forgets at most its limit, oldest first", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const created = await jobs.insert(hub().pool, userId, { automationId, context: {} });
    const jobId = created.kind === "created" ? created.jobs[0]!.id : undefined;
    await hub().db.execute(sql`
      insert into idempotency_keys (user_id, key, job_id, created_at)
      select ${userId}::uuid, 'batch-' || i, ${jobId}::uuid, now() - interval '2 days' - i * interval '1 minute'
      from generate_series(1, 5) as i`);

    const first = await idempotencyKeys.forgetExpired(hub().pool, 3);

    const kept = await hub().db.select({ key: schema.idempotencyKeys.key }).from(schema.idempotencyKeys).where(eq(schema.idempotencyKeys.userId, userId));
    expect(first).toBe(3);
    expect(kept.map((row) => row.key).sort()).toEqual(["batch-1", "batch-2"]);
    expect(await idempotencyKeys.forgetExpired(hub().pool, 3)).toBe(2);
  });
});
