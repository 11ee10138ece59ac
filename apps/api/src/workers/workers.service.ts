/**
 * Registering, re-keying and unregistering an automation's one worker (CONTRACT §3 "Automation").
 * Each change locks the automation row first, then the worker and job rows.
 */
import { type Job, type Worker, isUniqueViolation, events, jobs, workers, withTransaction, type Executor, type Reach } from "@hub/db";
import { ConflictError, NotFoundError } from "../http/http-errors";
import { offerAgain } from "../dispatch/signals";
import { lockAutomationOrNotFound, type AutomationServiceContext } from "../automations/automations.service";
import { hashApiKey, newSecretKey, WORKER_API_KEY_PREFIX } from "../identity/secret-keys";
import type { RegisterWorkerInput, WorkerCredentials } from "./workers.schemas";

function workerPayload(worker: Pick<Worker, "id" | "cloudInstanceId">) {
  return { worker_id: worker.id, cloud_instance_id: worker.cloudInstanceId };
}

async function lockRegisteredWorkerOrNotFound(tx: Executor, reach: Reach, automationId: string): Promise<Worker> {
  await lockAutomationOrNotFound(tx, reach, automationId, "no key update");
  const worker = await workers.lockRegistered(tx, automationId);
  if (!worker) throw new NotFoundError("No worker is registered for this automation");
  return worker;
}

/** Registers the automation's worker; 409 when the automation is inactive or already has one. */
export async function registerWorker(
  ctx: AutomationServiceContext,
  reach: Reach,
  automationId: string,
  input: RegisterWorkerInput,
  actorId: string,
): Promise<WorkerCredentials> {
  const apiKey = newSecretKey(WORKER_API_KEY_PREFIX);
  const alreadyRegistered = () => new ConflictError("A worker is already registered for this automation");
  try {
    return await withTransaction(ctx.database.pool, async (tx) => {
      const automation = await lockAutomationOrNotFound(tx, reach, automationId, "no key update");
      if (!automation.isActive) throw new ConflictError("The automation is inactive");
      if (await workers.lockRegistered(tx, automationId)) throw alreadyRegistered();
      const worker = await workers.register(tx, { automationId, cloudInstanceId: input.cloud_instance_id, apiKeyHash: hashApiKey(apiKey) });
      await events.record(tx, { eventType: "worker.registered", aggregateId: automationId, actorId, payload: workerPayload(worker) });
      return { id: worker.id, api_key: apiKey };
    });
  } catch (error) {
    // The automation row lock already serialises registrations; the index is the last word.
    if (isUniqueViolation(error, "workers_one_per_automation")) throw alreadyRegistered();
    throw error;
  }
}

/**
 * Issues a new api key for the registered worker. The old one stops working at commit, or
 * `overlapSeconds` later (then it is the one previous key; a previous key of an earlier rotation
 * stops at once). The jobs held by a key that stops now go back to `queued` in the same
 * transaction (CONTRACT §6.21): every running job without an overlap, else those of the earlier
 * previous key; with an overlap, the key being replaced holds the others until it ends
 * (./key-holds.service.ts). Re-queued before the key changes, so their signals precede the
 * credential change that ends the old key's signal streams.
 */
export async function rotateWorkerApiKey(
  ctx: AutomationServiceContext,
  reach: Reach,
  automationId: string,
  actorId: string,
  overlapSeconds = 0,
): Promise<{ credentials: WorkerCredentials; requeued: Job[] }> {
  const apiKey = newSecretKey(WORKER_API_KEY_PREFIX);
  return withTransaction(ctx.database.pool, async (tx) => {
    const worker = await lockRegisteredWorkerOrNotFound(tx, reach, automationId);
    const stopping = overlapSeconds > 0 ? await workers.runningHeldByPreviousKey(tx, worker.id) : undefined;
    const requeued = await jobs.requeueRunningOfWorker(tx, worker.id, "worker_key_rotated", stopping);
    if (overlapSeconds > 0) await workers.holdAllRunningWithPreviousKey(tx, worker.id);
    else await workers.forgetPreviousKeyHolds(tx, worker.id);
    await workers.replaceApiKeyHash(tx, worker.id, hashApiKey(apiKey), overlapSeconds);
    await events.record(tx, { eventType: "worker.api_key_rotated", aggregateId: automationId, actorId, payload: workerPayload(worker) });
    return { credentials: { id: worker.id, api_key: apiKey }, requeued };
  });
}

/**
 * Unregisters the worker: its key stops working and its running jobs go back to `queued` (then are
 * offered again, oldest first, to whichever worker registers next).
 */
export async function unregisterWorker(
  ctx: AutomationServiceContext,
  reach: Reach,
  automationId: string,
  actorId: string,
): Promise<{ workerId: string; requeued: Job[] }> {
  const unregistered = await withTransaction(ctx.database.pool, async (tx) => {
    const worker = await lockRegisteredWorkerOrNotFound(tx, reach, automationId);
    // Re-queued (and signalled) first: a signals stream ends on the credential change, after them.
    const requeued = await jobs.requeueRunningOfWorker(tx, worker.id);
    await workers.markUnregistered(tx, worker.id);
    await events.record(tx, { eventType: "worker.unregistered", aggregateId: automationId, actorId, payload: workerPayload(worker) });
    return { workerId: worker.id, requeued };
  });
  await offerAgain(ctx, automationId, unregistered.requeued.map(jobs.toJobRef));
  return unregistered;
}
