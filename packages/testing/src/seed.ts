/**
 * Rows written straight to the database, for tests below the API (dispatcher, relay, audits):
 * no events, no Redis signals — what a test wants to stage, not what an endpoint would do.
 */
import { randomBytes } from "node:crypto";
import { type Db, schema } from "@hub/db";

/** An active automation with a registered worker, in a new sector. */
export async function seedAutomation(db: Db, maxConcurrentJobs = 1) {
  const suffix = randomBytes(4).toString("hex");
  const [sector] = await db
    .insert(schema.sectors)
    .values({ name: `sector-${suffix}`, color: "#112233" })
    .returning();
  const [automation] = await db
    .insert(schema.automations)
    .values({ name: `automation ${suffix}`, slug: `automation-${suffix}`, sectorId: sector!.id, maxConcurrentJobs })
    .returning();
  const [worker] = await db
    .insert(schema.workers)
    .values({ automationId: automation!.id, cloudInstanceId: "i-test", apiKeyHash: randomBytes(32).toString("hex") })
    .returning();
  return { sector: sector!, automation: automation!, worker: worker! };
}

/** `count` queued jobs of the automation, in creation order; job `i` has the context `{index: i}`. */
export async function seedQueuedJobs(db: Db, automationId: string, count: number) {
  return db
    .insert(schema.jobs)
    .values(Array.from({ length: count }, (_, index) => ({ automationId, context: { index } })))
    .returning();
}
