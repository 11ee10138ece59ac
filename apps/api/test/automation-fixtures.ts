/** Arrange helpers for the automation and worker tests: sectors, automations, events, jobs. */
import { asc, count, eq } from "drizzle-orm";
import { EVERYWHERE, type HubEvent, type Job, jobs, schema } from "@hub/db";
import { createRedis } from "@hub/shared";
import { parseWakeMessage } from "@hub/shared/dispatch";
import type { TestHub } from "./harness";

let sequence = 0;
/** A slug no other test in the run has used. */
export function uniqueSlug(stem = "automation"): string {
  sequence += 1;
  return `${stem}-${process.pid}-${sequence}`;
}

export async function createSector(hub: TestHub, name = uniqueSlug("sector"), color = "#3366FF"): Promise<{ id: string; name: string; color: string }> {
  const created = await hub.client.post<{ id: string }>("/sectors", { name, color }, { token: hub.adminToken });
  if (created.status !== 201) throw new Error(`sector not created: ${created.status} ${JSON.stringify(created.body)}`);
  return { id: created.body.id, name, color };
}

/** Creates an automation through the API (admin) and returns its id. */
export async function createAutomation(hub: TestHub, body: Record<string, unknown> & { sector_id: string }): Promise<string> {
  const created = await hub.client.post<{ id: string }>("/automations", { name: "An automation", slug: uniqueSlug(), ...body }, { token: hub.adminToken });
  if (created.status !== 201) throw new Error(`automation not created: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** The events of one aggregate, in the order they were written. */
export async function eventsOf(hub: TestHub, aggregateId: string): Promise<HubEvent[]> {
  return hub.api.ctx.database.db.select().from(schema.events).where(eq(schema.events.aggregateId, aggregateId)).orderBy(asc(schema.events.position));
}

export async function countAllEvents(hub: TestHub): Promise<number> {
  const [row] = await hub.api.ctx.database.db.select({ total: count() }).from(schema.events);
  return row?.total ?? 0;
}

export async function adminId(hub: TestHub): Promise<string> {
  const me = await hub.client.get<{ id: string }>("/identity/me", { token: hub.adminToken });
  return me.body.id;
}

/** A queued job written straight to the database, as POST /jobs would. */
export async function insertQueuedJob(hub: TestHub, automationId: string, createdBy: string): Promise<Job> {
  const outcome = await jobs.insert(hub.api.ctx.database.pool, EVERYWHERE, createdBy, { automationId, context: {} });
  if (outcome.kind !== "created") throw new Error(`automation ${automationId} accepts no job: ${outcome.kind}`);
  return (await jobs.find(hub.api.ctx.database.pool, EVERYWHERE, outcome.jobs[0]!.id))!;
}

/**
 * Listens on the dispatch wake channel from its own connection, so a test can await the wake-up an
 * operation must publish (a missing wake-up fails by the test's timeout, not by a timed assertion).
 */
export async function listenForWakes(hub: TestHub): Promise<{ next(automationId: string): Promise<void>; close(): void }> {
  const subscriber = createRedis(hub.env.REDIS_URL, "test-wake-listener");
  const waiting = new Map<string, Array<() => void>>();
  subscriber.on("message", (_channel: string, message: string) => {
    const { automationId } = parseWakeMessage(message);
    for (const resolve of waiting.get(automationId) ?? []) resolve();
    waiting.delete(automationId);
  });
  await subscriber.subscribe(hub.api.ctx.keys.wakeChannel);
  return {
    next: (automationId) =>
      new Promise<void>((resolve) => {
        waiting.set(automationId, [...(waiting.get(automationId) ?? []), resolve]);
      }),
    close: () => subscriber.disconnect(),
  };
}
