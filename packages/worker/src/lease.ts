/** Keeping a claimed job's lease alive while its handler runs. */
import { isTakenBack, WorkerUnauthorizedError } from "./errors.js";
import type { EmitWorkerEvent, LeaseLossCause } from "./events.js";
import type { HubJob, HubWorkerClient } from "./hub-client.js";

/** The hub's default lease (HUB_JOB_LEASE_SECONDS), should a claimed job ever lack its lease timestamps. */
const DEFAULT_LEASE_MS = 60_000;
/** Share of the first lease assumed spent before the claim's answer arrived. */
const CLAIM_TRANSIT_ALLOWANCE = 0.1;
const HEARTBEATS_PER_LEASE = 3;
const MIN_HEARTBEAT_PERIOD_MS = 100;

export interface Lease {
  /** Until when (our clock) the lease surely holds. */
  heldUntilMs(): number;
  held(): boolean;
  /** Stops heartbeating; resolves once a heartbeat in flight has settled. */
  stop(): Promise<void>;
}

export interface KeepLeasedOptions {
  client: Pick<HubWorkerClient, "heartbeat">;
  emit: EmitWorkerEvent;
  /** Called once when the job is no longer surely this worker's. */
  onLost(cause: LeaseLossCause): void;
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
  let stopped = false;
  let beatTimer: NodeJS.Timeout | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  const lose = (cause: LeaseLossCause) => {
    if (stopped) return;
    stopped = true;
    clearTimeout(beatTimer);
    clearTimeout(expiryTimer);
    options.onLost(cause);
  };
  const armExpiry = () => {
    clearTimeout(expiryTimer);
    expiryTimer = setTimeout(() => lose("expired"), Math.max(heldUntilMs - Date.now(), 0));
  };
  const beat = async () => {
    const sentAtMs = Date.now();
    try {
      await client.heartbeat(job.id, job.attempts);
      heldUntilMs = sentAtMs + leaseMs;
      if (!stopped) armExpiry();
    } catch (error) {
      if (isTakenBack(error)) return lose("heartbeat");
      if (error instanceof WorkerUnauthorizedError) options.onUnauthorized(error);
      // A missed beat is retried on the next tick; the lease outlasts two of them.
      emit({ type: "hub_error", operation: "heartbeat", message: (error as Error).message, retryInMs: periodMs });
    }
  };
  const schedule = () => {
    beatTimer = setTimeout(() => {
      inFlight = beat().finally(() => {
        inFlight = undefined;
        if (!stopped) schedule();
      });
    }, periodMs);
  };
  armExpiry();
  schedule();
  return {
    heldUntilMs: () => heldUntilMs,
    held: () => Date.now() < heldUntilMs,
    async stop() {
      stopped = true;
      clearTimeout(beatTimer);
      clearTimeout(expiryTimer);
      await inFlight;
    },
  };
}
