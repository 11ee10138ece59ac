/**
 * The database keeps an automation's settings within AUTOMATION_LIMITS and a job's status within
 * JOB_STATUSES, whatever code writes them: the check constraints are built from the same constants
 * the request schemas use.
 */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { AUTOMATION_LIMITS } from "@hub/shared";
import { automations, queryBuilder, schema, withTransaction } from "./index";
import { stageAutomation, useTestDatabase } from "./test-kit";

const hub = useTestDatabase();

/** Inserts an automation with `settings` in a transaction of its own; the error PostgreSQL raised, if any. */
async function insertWith(settings: Partial<automations.NewAutomation>): Promise<unknown> {
  const suffix = randomBytes(4).toString("hex");
  try {
    await withTransaction(hub().pool, async (tx) => {
      const [sector] = await queryBuilder(tx)
        .insert(schema.sectors)
        .values({ name: `limits ${suffix}`, color: "#000000" })
        .returning();
      await automations.insert(tx, { name: "limits", slug: `limits-${suffix}`, sectorId: sector!.id, ...settings });
    });
    return undefined;
  } catch (error) {
    return (error as { cause?: unknown }).cause ?? error;
  }
}

describe("the automations table", () => {
  it.each([
    ["maxConcurrentJobs", AUTOMATION_LIMITS.maxConcurrentJobs],
    ["maxAttempts", AUTOMATION_LIMITS.maxAttempts],
    ["retryBackoffSeconds", AUTOMATION_LIMITS.retryBackoffSeconds],
    ["timeoutSeconds", AUTOMATION_LIMITS.timeoutSeconds],
  ] as const)("when %s is at its limits, then it is stored; one beyond either, then PostgreSQL refuses it", async (setting, { min, max }) => {
    expect(await insertWith({ [setting]: min })).toBeUndefined();
    expect(await insertWith({ [setting]: max })).toBeUndefined();
    expect(await insertWith({ [setting]: min - 1 })).toMatchObject({ code: "23514" });
    expect(await insertWith({ [setting]: max + 1 })).toMatchObject({ code: "23514" });
  });

  it("when a column default applies, then it is the limits' default", async () => {
    const { automationId } = await stageAutomation(hub());

    const [automation] = await hub().db.select().from(schema.automations).where(eq(schema.automations.id, automationId));

    expect(automation?.retryBackoffSeconds).toBe(AUTOMATION_LIMITS.retryBackoffSeconds.default);
  });
});

describe("the jobs table", () => {
  it("when a job is given a status outside JOB_STATUSES, then PostgreSQL refuses it", async () => {
    const { automationId } = await stageAutomation(hub());
    const [job] = await hub().db.insert(schema.jobs).values({ automationId }).returning();

    const refused = await hub()
      .db.update(schema.jobs)
      // The cast gets past the column type on purpose: the constraint is what is under test.
      .set({ status: "paused" as "queued" })
      .where(eq(schema.jobs.id, job!.id))
      .catch((error: { cause?: unknown }) => error.cause ?? error);

    expect(refused).toMatchObject({ code: "23514" });
  });
});
