/** Registering, re-keying and unregistering an automation's worker (drizzle statements in the caller's transaction). */
import { and, eq, isNull, sql } from "drizzle-orm";
import { workers, type Worker } from "../../schema";
import { queryBuilder, type Executor } from "../../executor";

/** The automation's registered worker, locked for the rest of the transaction. */
export async function lockRegistered(executor: Executor, automationId: string): Promise<Worker | undefined> {
  const tx = queryBuilder(executor);
  const [worker] = await tx
    .select()
    .from(workers)
    .where(and(eq(workers.automationId, automationId), isNull(workers.unregisteredAt)))
    .for("update");
  return worker;
}

/**
 * Registers a worker (status `stopped` until it calls the hub). A second registered worker of the
 * same automation raises the unique violation `workers_one_per_automation`.
 */
export async function register(executor: Executor, values: { automationId: string; cloudInstanceId: string; apiKeyHash: string }): Promise<Worker> {
  const tx = queryBuilder(executor);
  const [worker] = await tx.insert(workers).values(values).returning();
  if (!worker) throw new Error("insert returned no row");
  return worker;
}

/**
 * Rotation: without an overlap the old key's hash is gone, so the old key stops authenticating at
 * once; with one it is kept as the previous key until the overlap ends.
 */
export async function replaceApiKeyHash(executor: Executor, workerId: string, apiKeyHash: string, overlapSeconds = 0): Promise<void> {
  const tx = queryBuilder(executor);
  // With an overlap the key being replaced becomes the previous one until then (CONTRACT §6.12);
  // either way any earlier previous key is gone: there is one at most.
  const overlapping = overlapSeconds > 0;
  await tx
    .update(workers)
    .set({
      apiKeyHash,
      previousApiKeyHash: overlapping ? sql`${workers.apiKeyHash}` : null,
      previousApiKeyExpiresAt: overlapping ? sql`now() + make_interval(secs => ${overlapSeconds})` : null,
    })
    .where(eq(workers.id, workerId));
}

/** Unregisters a worker: the row stays (jobs and events name it), its key stops authenticating. */
export async function markUnregistered(executor: Executor, workerId: string): Promise<void> {
  const tx = queryBuilder(executor);
  await tx
    .update(workers)
    .set({ unregisteredAt: sql`now()` })
    .where(eq(workers.id, workerId));
}
