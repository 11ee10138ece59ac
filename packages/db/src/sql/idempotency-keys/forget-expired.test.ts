/** Idempotency-Key bindings against the real database: they live 24 hours, then go. */
import { EVERYWHERE } from "../../reach";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { idempotencyKeys, jobs, schema } from "../../index";
import { stageAutomation, useTestDatabase } from "../../test-kit";

const hub = useTestDatabase();

describe("idempotencyKeys.forgetExpired", () => {
  it("when bindings are older and younger than 24 hours, then only the older ones are forgotten", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const created = await jobs.insert(hub().pool, EVERYWHERE, userId, { automationId, context: {} });
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
    const created = await jobs.insert(hub().pool, EVERYWHERE, userId, { automationId, context: {} });
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
