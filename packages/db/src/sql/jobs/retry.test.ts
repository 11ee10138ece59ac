/** Retrying jobs against the real database: retries copy failed and cancelled jobs only. */
import { EVERYWHERE } from "../../reach";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { jobs, schema } from "../../index";
import { catalogueCheckedEvents, stageAutomation, useTestDatabase } from "../../test-kit";

const hub = useTestDatabase();

describe("jobs.retry", () => {
  it("when failed, cancelled and completed jobs are retried, then only the failed and cancelled ones get a new queued job with retry_of", async () => {
    const { automationId, userId } = await stageAutomation(hub());
    const created = await jobs.insertBatch(
      hub().pool,
      EVERYWHERE,
      userId,
      ["failed", "cancelled", "completed"].map((status) => ({ automationId, context: { status } })),
    );
    const [failed, cancelled, completed] = created.kind === "created" ? created.jobs.map((job) => job.id) : [];
    for (const [id, status] of [
      [failed, "failed"],
      [cancelled, "cancelled"],
      [completed, "completed"],
    ] as const) {
      await hub().db.update(schema.jobs).set({ status }).where(eq(schema.jobs.id, id!));
    }

    const retried = await jobs.retry(hub().pool, userId, [failed!, cancelled!, completed!]);

    expect(retried.map((retry) => retry.retryOf).sort()).toEqual([failed, cancelled].sort());
    for (const retry of retried) {
      const source = await jobs.find(hub().pool, EVERYWHERE, retry.retryOf);
      expect(await jobs.find(hub().pool, EVERYWHERE, retry.id)).toMatchObject({
        status: "queued",
        retryOf: retry.retryOf,
        context: source!.context,
        createdBy: userId,
      });
      const [event] = await catalogueCheckedEvents(hub(), retry.id);
      expect(event?.payload).toEqual({ automation_id: automationId, context: source!.context, retry_of: retry.retryOf });
    }
  });
});
