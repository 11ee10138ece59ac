/** Keeping a claimed job's lease alive while its handler runs. */
import { isTakenBack, LeaseLostError, WorkerUnauthorizedError } from "./errors.js";
import type { EmitWorkerEvent } from "./events.js";
import type { HubJob, HubWorkerClient, JobProgress } from "./hub-client.js";

/** The hub's default lease (HUB_JOB_LEASE_SECONDS), should a claimed job ever lack its lease timestamps. */
const DEFAULT_LEASE_MS = 60_000;
/** Share of the first lease assumed spent before the claim's answer arrived. */
const CLAIM_TRANSIT_ALLOWANCE = 0.1;
const HEARTBEATS_PER_LEASE = 3;
const MIN_HEARTBEAT_PERIOD_MS = 100;
/** A progress report goes with an early heartbeat, at most one per this interval. */
export const PROGRESS_INTERVAL_MS = 1000;

export interface Lease {
  /** Until when (our clock) the lease surely holds. */
  heldUntilMs(): number;
  held(): boolean;
  /** Sends `progress` with a heartbeat soon (at once, or {@link PROGRESS_INTERVAL_MS} after the last one). */
  reportProgress(progress: JobProgress): void;
  /** Heartbeats now (unless one is in flight): a 409 tells at once whether the hub took the job back. */
  beatNow(): void;
  /** Sends a progress report not sent yet at once (before the outcome, after which the hub takes none). */
  flushProgress(): Promise<void>;
  /** Stops heartbeating; resolves once a heartbeat in flight has settled. */
  stop(): Promise<void>;
}

export interface KeepLeasedOptions {
  client: Pick<HubWorkerClient, "heartbeat">;
  emit: EmitWorkerEvent;
  /** Called once when the job is no longer surely this worker's; `jobStatus` as a 409's body names it. */
  onLost(cause: "heartbeat" | "expired", jobStatus?: string): void;
  /** The key stopped working: the worker should claim no more. */
  onUnauthorized(error: WorkerUnauthorizedError): void;
}

/**
 * Heartbeats every lease/3 until stopped. Calls `onLost` once: "heartbeat" when the hub refused
 * one (it took the job back), "expired" when no heartbeat renewed the lease in time, so the hub
 * may have re-queued the job — possibly to this very worker, whose later calls about the job it
 * could no longer tell from the new attempt's. The lease is measured on our own clock from when
 * each successful heartbeat was *sent* (the hub renewed it no earlier), so clock skew between
 * us and the hub does not matter.
 */
export function keepLeased(job: HubJob, options: KeepLeasedOptions): Lease {
  const { client, emit } = options;
  // Both timestamps come from the hub's clock: their difference is the lease length.
  const measuredMs = Date.parse(job.lease_expires_at ?? "") - Date.parse(job.started_at ?? "");
  const leaseMs = measuredMs > 0 ? measuredMs : DEFAULT_LEASE_MS;
  const periodMs = Math.max(leaseMs / HEARTBEATS_PER_LEASE, MIN_HEARTBEAT_PERIOD_MS);
  // The claim's lease began before its answer arrived; allow a little for the answer's transit.
  let heldUntilMs = Date.now() + leaseMs * (1 - CLAIM_TRANSIT_ALLOWANCE);
  let lastBeatMs = Date.now();
  let stopped = false;
  let beatTimer: NodeJS.Timeout | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  /** Progress not yet sent; a heartbeat without it leaves the job's progress as it is. */
  let unsentProgress: JobProgress | undefined;
  const lose = (cause: "heartbeat" | "expired", jobStatus?: string) => {
    if (stopped) return;
    stopped = true;
    clearTimeout(beatTimer);
    clearTimeout(expiryTimer);
    options.onLost(cause, jobStatus);
  };
  const armExpiry = () => {
    clearTimeout(expiryTimer);
    expiryTimer = setTimeout(() => lose("expired"), Math.max(heldUntilMs - Date.now(), 0));
  };
  const beat = async () => {
    const sentAtMs = Date.now();
    lastBeatMs = sentAtMs;
    const progress = unsentProgress;
    unsentProgress = undefined;
    try {
      await client.heartbeat(job.id, job.attempts, progress);
      heldUntilMs = sentAtMs + leaseMs;
      if (!stopped) armExpiry();
    } catch (error) {
      // Unless a newer report replaced it, the progress goes with the next heartbeat.
      unsentProgress ??= progress;
      if (isTakenBack(error)) return lose("heartbeat", error instanceof LeaseLostError ? error.jobStatus : undefined);
      if (error instanceof WorkerUnauthorizedError) options.onUnauthorized(error);
      // A missed beat is retried on the next tick; the lease outlasts two of them.
      emit({ type: "hub_error", operation: "heartbeat", message: (error as Error).message, retryInMs: periodMs });
    }
  };
  const schedule = (delayMs: number) => {
    clearTimeout(beatTimer);
    beatTimer = setTimeout(() => {
      inFlight = beat().finally(() => {
        inFlight = undefined;
        if (stopped) return;
        if (unsentProgress) schedule(Math.max(lastBeatMs + PROGRESS_INTERVAL_MS - Date.now(), 0));
        else schedule(periodMs);
      });
    }, delayMs);
  };
  armExpiry();
  schedule(periodMs);
  return {
    heldUntilMs: () => heldUntilMs,
    held: () => Date.now() < heldUntilMs,
    reportProgress(progress) {
      if (stopped) return;
      unsentProgress = progress;
      // A heartbeat in flight schedules the next one itself when it settles.
      if (!inFlight) schedule(Math.max(lastBeatMs + PROGRESS_INTERVAL_MS - Date.now(), 0));
    },
    beatNow() {
      if (!stopped && !inFlight) schedule(0);
    },
    async flushProgress() {
      await inFlight;
      if (stopped || !unsentProgress) return;
      clearTimeout(beatTimer);
      await beat();
      if (!stopped) schedule(periodMs);
    },
    async stop() {
      stopped = true;
      clearTimeout(beatTimer);
      clearTimeout(expiryTimer);
      await inFlight;
    },
  };
}
