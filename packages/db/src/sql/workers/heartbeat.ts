import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { workers } from "../../schema";
import * as events from "../events/crud";
import { queryBuilder, withTransaction, type Executor } from "../../executor";

/** Seen-at writes are skipped when the last one is this recent: a busy worker costs no write per call. */
const SEEN_WRITE_INTERVAL_MS = 1000;

/**
 * Any worker call marks the worker seen (CONTRACT §3): a `stopped` worker becomes `running`, with
 * its `worker.status_changed` event in the same transaction. True when it wrote (the worker is now
 * `running`, seen now).
 */
export async function markSeen(executor: Executor, worker: { id: string; automationId: string; status: string; lastSeenAt: Date | null }): Promise<boolean> {
  const db = queryBuilder(executor);
  if (worker.status === "running") {
    if (worker.lastSeenAt && Date.now() - worker.lastSeenAt.getTime() < SEEN_WRITE_INTERVAL_MS) return false;
    // `worker` may be a cached copy (apps/api credential cache): the dispatcher may have stopped
    // the worker since, so only a row still `running` is refreshed here; otherwise flip it below.
    const refreshed = await db
      .update(workers)
      .set({ lastSeenAt: sql`now()` })
      .where(and(eq(workers.id, worker.id), eq(workers.status, "running")))
      .returning({ id: workers.id });
    if (refreshed.length > 0) return true;
  }
  await withTransaction(executor, async (client) => {
    const tx = queryBuilder(client);
    const [changed] = await tx
      .update(workers)
      .set({ status: "running", lastSeenAt: sql`now()` })
      .where(and(eq(workers.id, worker.id), eq(workers.status, "stopped"), isNull(workers.unregisteredAt)))
      .returning({ id: workers.id });
    if (changed) {
      await events.record(client, {
        eventType: "worker.status_changed",
        aggregateId: worker.automationId,
        actorId: null,
        payload: { worker_id: worker.id, from: "stopped", to: "running" },
      });
    } else {
      // Another request flipped it first; just refresh the timestamp.
      await tx.update(workers).set({ lastSeenAt: sql`now()` }).where(eq(workers.id, worker.id));
    }
  });
  return true;
}

/** Workers silent for longer than `ttlSeconds` become `stopped` (dispatcher, any replica). */
export async function stopSilent(executor: Executor, ttlSeconds: number): Promise<number> {
  const tx = queryBuilder(executor);
  const stopped = await tx
    .update(workers)
    .set({ status: "stopped" })
    .where(
      and(
        eq(workers.status, "running"),
        isNull(workers.unregisteredAt),
        lt(workers.lastSeenAt, sql`now() - make_interval(secs => ${ttlSeconds})`),
      ),
    )
    .returning({ id: workers.id, automationId: workers.automationId });
  await events.recordMany(
    executor,
    stopped.map((worker) => ({
      eventType: "worker.status_changed" as const,
      aggregateId: worker.automationId,
      actorId: null,
      payload: { worker_id: worker.id, from: "running", to: "stopped" },
    })),
  );
  return stopped.length;
}
