/** A worker going offline on purpose (CONTRACT §6.12, POST /workers/me/offline). */
import { and, eq, isNull } from "drizzle-orm";
import { workers } from "../../schema";
import * as events from "../events/crud";
import { queryBuilder, withTransaction, type Executor } from "../../executor";

/**
 * The worker becomes `stopped` now, with its `worker.status_changed` in the same transaction, when
 * it was `running` (and still registered); otherwise nothing changes. True when it changed.
 */
export async function markStopped(executor: Executor, worker: { id: string; automationId: string }): Promise<boolean> {
  return withTransaction(executor, async (client) => {
    const tx = queryBuilder(client);
    const [stopped] = await tx
      .update(workers)
      .set({ status: "stopped" })
      .where(and(eq(workers.id, worker.id), eq(workers.status, "running"), isNull(workers.unregisteredAt)))
      .returning({ id: workers.id });
    if (!stopped) return false;
    await events.record(client, {
      eventType: "worker.status_changed",
      aggregateId: worker.automationId,
      actorId: null,
      payload: { worker_id: worker.id, from: "running", to: "stopped" },
    });
    return true;
  });
}
