/**
 * A running job is held by the worker key that claimed it or last heartbeated it, and when a key
 * stops working the jobs it holds go back to the queue (CONTRACT §6.21): at once on a rotation
 * without overlap (workers.service.ts), within 1 s of the end of an overlap (here). Holds are
 * recorded only while an overlap is under way (`AuthenticatedWorker.key` is not `sole`), so a
 * worker's calls cost nothing more the rest of the time.
 *
 * The end of an overlap has no request to hang on: {@link KeyOverlapSweeper} looks every
 * {@link OVERLAP_SWEEP_INTERVAL_MS} on every API process (the automation row lock makes one of them
 * do it), and a signals stream of the previous key ends the overlap itself before it closes, so its
 * cancels reach it first.
 */
import { EVERYWHERE, jobs, withTransaction, workers, type Job } from "@hub/db";
import type { AppContext } from "../context";
import type { AuthenticatedWorker } from "../http/auth";
import { offerAgain } from "../dispatch/signals";
import { lockAutomationOrNotFound } from "../automations/automations.service";
import { NotFoundError } from "../http/http-errors";

/** How often each API process looks for overlaps that ended (the contract allows 1 s). */
export const OVERLAP_SWEEP_INTERVAL_MS = 400;
/** Overlaps one sweep ends at most; the next sweep takes the rest. */
const OVERLAPS_PER_SWEEP = 50;

/** The jobs of a claim or heartbeat are held by the key it came with (while an overlap is under way). */
export async function recordKeyHolds(ctx: Pick<AppContext, "database">, worker: AuthenticatedWorker, jobIds: readonly string[]): Promise<void> {
  if (worker.key === "sole" || jobIds.length === 0) return;
  if (worker.key === "previous") await workers.holdWithPreviousKey(ctx.database.pool, worker.id, jobIds);
  else await workers.holdWithCurrentKey(ctx.database.pool, worker.id, jobIds);
}

/** The signal streams and dispatch of this process learn of jobs a key stopped holding. */
export async function afterKeyStopped(ctx: AppContext, automationId: string, workerId: string, requeued: readonly Job[]): Promise<void> {
  if (requeued.length === 0) return;
  ctx.workerSignals.deliverCommitted(
    "worker_key_rotated",
    requeued.map((job) => ({ id: job.id, workerId, attempts: job.attempts })),
  );
  ctx.jobLogs.announceAll(requeued.map((job) => job.id));
  await offerAgain(ctx, automationId, requeued.map(jobs.toJobRef));
}

/**
 * Ends the overlap of the automation's worker if its previous key's time is up: the jobs that key
 * holds go back to `queued` (`job.requeued`, `worker_key_rotated`, a cancel signal each) and the
 * key is dropped, in one transaction. Does nothing when the overlap is not over or already ended.
 */
export async function endKeyOverlap(ctx: AppContext, automationId: string): Promise<Job[]> {
  const ended = await withTransaction(ctx.database.pool, async (tx) => {
    try {
      // The hub's own sweep: no caller, so every automation.
      await lockAutomationOrNotFound(tx, EVERYWHERE, automationId, "no key update");
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
    const worker = await workers.lockRegistered(tx, automationId);
    if (!worker || !(await workers.dropExpiredPreviousKey(tx, worker.id))) return undefined;
    const held = await workers.runningHeldByPreviousKey(tx, worker.id);
    const requeued = await jobs.requeueRunningOfWorker(tx, worker.id, "worker_key_rotated", held);
    await workers.forgetPreviousKeyHolds(tx, worker.id);
    return { workerId: worker.id, requeued };
  });
  if (!ended) return [];
  await afterKeyStopped(ctx, automationId, ended.workerId, ended.requeued);
  return ended.requeued;
}

/** Ends overlaps whose time is up, every {@link OVERLAP_SWEEP_INTERVAL_MS}, until stopped. */
export class KeyOverlapSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(private readonly ctx: AppContext) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(), OVERLAP_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const automationId of await workers.endedOverlaps(this.ctx.database.pool, OVERLAPS_PER_SWEEP)) await endKeyOverlap(this.ctx, automationId);
    } catch (error) {
      // PostgreSQL away: the next sweep tries again (the key itself is refused by its expiry meanwhile).
      this.ctx.logger.warn({ err: error }, "worker key overlap sweep failed; trying again");
    } finally {
      this.sweeping = false;
    }
  }
}
