/**
 * Creating jobs against the real database: one statement writes the job, its job.created event
 * and the Idempotency-Key binding — or nothing, and says why.
 */
import { EVERYWHERE } from "../../reach";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { jobs, schema } from "../../index";
import { catalogueCheckedEvents, stageAutomation, useTestDatabase } from "../../test-kit";

const hub = useTestDatabase();

const MONTH = [{ name: "month", description: "YYYY-MM" }];

async function jobsOf(automationId: string) {
  return hub().db.select().from(schema.jobs).where(eq(schema.jobs.automationId, automationId));
}

describe("jobs.insert", () => {
  it("when the automation is active and the context fits, then one queued job and its job.created event are written", async () => {
    const { automationId, userId } = await stageAutomation(hub(), { parameters: MONTH });

    const outcome = await jobs.insert(hub().pool, EVERYWHERE, userId, { automationId, context: { month: "2026-10", extra: 1 } });

    expect(outcome.kind).toBe("created");
    const [created] = outcome.kind === "created" ? outcome.jobs : [];
    expect(await jobs.find(hub().pool, EVERYWHERE, created!.id)).toMatchObject({
      status: "queued",
      context: { month: "2026-10", extra: 1 },
      createdBy: userId,
      attempts: 0,
    });
    const events = await catalogueCheckedEvents(hub(), created!.id);
    expect(events.map((event) => [event.eventType, event.actorId, event.payload])).toEqual([
      ["job.created", userId, { automation_id: automationId, context: { month: "2026-10", extra: 1 } }],
    ]);
  });

  it("when the same Idempotency-Key comes again, even with another context, then the first job's id is answered and nothing is created", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const first = await jobs.insert(hub().pool, EVERYWHERE, userId, { automationId, context: { n: 1 } }, "key-1");

    const again = await jobs.insert(hub().pool, EVERYWHERE, userId, { automationId, context: { n: 2 } }, "key-1");

    const firstId = first.kind === "created" ? first.jobs[0]!.id : undefined;
    expect(again).toEqual({ kind: "replayed", jobIds: [firstId] });
    expect((await jobsOf(automationId)).map((job) => job.context)).toEqual([{ n: 1 }]);
  });

  it("when another user sends the same Idempotency-Key, then it is a new job: keys are per user", async () => {
    const subject = await stageAutomation(hub());
    const other = await stageAutomation(hub());
    await jobs.insert(hub().pool, EVERYWHERE, subject.userId, { automationId: subject.automationId, context: {} }, "shared-key");

    const outcome = await jobs.insert(hub().pool, EVERYWHERE, other.userId, { automationId: subject.automationId, context: {} }, "shared-key");

    expect(outcome.kind).toBe("created");
    expect(await jobsOf(subject.automationId)).toHaveLength(2);
  });

  it("when the context misses a parameter, the automation is inactive or unknown, then nothing is written and the refusal shows what was read", async () => {
    const { automationId, userId } = await stageAutomation(hub(), { parameters: MONTH });
    const inactive = await stageAutomation(hub());
    await hub().db.update(schema.automations).set({ isActive: false }).where(eq(schema.automations.id, inactive.automationId));

    const missing = await jobs.insert(hub().pool, EVERYWHERE, userId, { automationId, context: { month: 202610 } }, "refused-key");
    const deactivated = await jobs.insert(hub().pool, EVERYWHERE, userId, { automationId: inactive.automationId, context: {} });
    const unknown = await jobs.insert(hub().pool, EVERYWHERE, userId, { automationId: "00000000-0000-4000-8000-000000000000", context: {} });

    expect(missing).toEqual({ kind: "refused", automations: [{ id: automationId, parameters: MONTH, isActive: true }] });
    expect(deactivated).toEqual({ kind: "refused", automations: [{ id: inactive.automationId, parameters: [], isActive: false }] });
    expect(unknown).toEqual({ kind: "refused", automations: [] });
    expect(await jobsOf(automationId)).toEqual([]);
    expect(await jobsOf(inactive.automationId)).toEqual([]);
    expect(await hub().db.select().from(schema.idempotencyKeys).where(eq(schema.idempotencyKeys.key, "refused-key"))).toEqual([]);
  });
});

describe("jobs.insertBatch", () => {
  it("when every item is valid, then the jobs are created in input order, each with its event", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const batch = [3, 1, 2].map((n) => ({ automationId, context: { n } }));

    const outcome = await jobs.insertBatch(hub().pool, EVERYWHERE, userId, batch);

    const ids = outcome.kind === "created" ? outcome.jobs.map((job) => job.id) : [];
    const rows = await hub().db.select().from(schema.jobs).where(inArray(schema.jobs.id, ids)).orderBy(schema.jobs.seq);
    expect(rows.map((row) => [row.id, row.context])).toEqual(ids.map((id, index) => [id, batch[index]!.context]));
    for (const id of ids) expect((await catalogueCheckedEvents(hub(), id)).map((event) => event.eventType)).toEqual(["job.created"]);
  });

  it("when one item's automation is inactive, then no job of the batch is created", async () => {
    const active = await stageAutomation(hub());
    const inactive = await stageAutomation(hub());
    await hub().db.update(schema.automations).set({ isActive: false }).where(eq(schema.automations.id, inactive.automationId));

    const outcome = await jobs.insertBatch(hub().pool, EVERYWHERE, active.userId, [
      { automationId: active.automationId, context: {} },
      { automationId: inactive.automationId, context: {} },
    ]);

    expect(outcome.kind).toBe("refused");
    expect(await jobsOf(active.automationId)).toEqual([]);
  });
});
