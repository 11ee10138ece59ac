import { and, eq, isNull, sql } from "drizzle-orm";
import { queryBuilder, runStatement, withTransaction, type NamedStatement, type Executor } from "../../executor";
import { workers } from "../../schema";
import * as events from "../events/crud";

/** Seen-at writes are skipped when the last one is this recent: a busy worker costs no write per call. */
const SEEN_WRITE_INTERVAL_MS = 1000;

/**
 * Any worker call marks the worker seen (CONTRACT §3): a `stopped` worker becomes `running`, with
 * its `worker.status_changed` event in the same transaction. What it wrote: nothing (`null`, seen
 * too recently to write again), the seen time (`"seen"`), or the seen time and the change to
 * `running` with its event (`"started"`); either way but `null` the worker is now `running`, seen now.
 */
export async function markSeen(
  executor: Executor,
  worker: { id: string; automationId: string; status: string; lastSeenAt: Date | null },
): Promise<"seen" | "started" | null> {
  const db = queryBuilder(executor);
  if (worker.status === "running") {
    if (worker.lastSeenAt && Date.now() - worker.lastSeenAt.getTime() < SEEN_WRITE_INTERVAL_MS) return null;
    // `worker` may be a cached copy (apps/api credential cache): the dispatcher may have stopped
    // the worker since, so only a row still `running` is refreshed here; otherwise flip it below.
    const refreshed = await db
      .update(workers)
      .set({ lastSeenAt: sql`now()` })
      .where(and(eq(workers.id, worker.id), eq(workers.status, "running")))
      .returning({ id: workers.id });
    if (refreshed.length > 0) return "seen";
  }
  return withTransaction(executor, async (client) => {
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
      return "started";
    }
    // Another request flipped it first; just refresh the timestamp.
    await tx
      .update(workers)
      .set({ lastSeenAt: sql`now()` })
      .where(eq(workers.id, worker.id));
    return "seen";
  });
}

const stopSilentStatement: NamedStatement = {
  name: "hub_workers_stop_silent",
  text: `
  with stopped as (
    update workers set status = 'stopped'
     where status = 'running' and unregistered_at is null and last_seen_at < now() - make_interval(secs => $1::int)
    returning id, automation_id
  ), recorded as (
    insert into events (aggregate_id, event_type, actor_id, payload)
    select automation_id, 'worker.status_changed', null, jsonb_build_object('worker_id', id, 'from', 'running', 'to', 'stopped')
      from stopped
  )
  select count(*)::int as stopped from stopped`,
};

/**
 * Workers silent for longer than `ttlSeconds` become `stopped`, each with its
 * `worker.status_changed` event (dispatcher, any replica). One statement, so a sweep that finds
 * no one costs one round trip and no explicit transaction; returns how many it stopped.
 */
export async function stopSilent(executor: Executor, ttlSeconds: number): Promise<number> {
  const [row] = await runStatement<{ stopped: number }>(executor, stopSilentStatement, [ttlSeconds]);
  return row?.stopped ?? 0;
}
