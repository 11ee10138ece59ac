/**
 * The worker's signals stream (`GET /workers/me/signals`): while the worker runs it holds one,
 * so the hub can say within a second that a job it works was cancelled, timed out or taken back
 * (`event: cancel` `{job_id, attempt, reason}`), and the job's handler is aborted at once rather
 * than at its next heartbeat.
 *
 * A dropped stream is opened again with back-off (200 ms doubling to 5 s); a 429 (too many open
 * streams) is retried after its `Retry-After`, and the worker works on without signals meanwhile
 * — heartbeats still learn of a cancel, later. Signals are never replayed: once the stream is open
 * again, every job in hand heartbeats at once, and a 409 says what was missed.
 */
import { HubRequestError, WorkerUnauthorizedError } from "./errors.js";
import type { EmitWorkerEvent } from "./events.js";
import type { HubWorkerClient } from "./hub-client.js";
import { readEventStream } from "./sse.js";
import { nextBackoff, sleep } from "./timing.js";

/** One `event: cancel` of the signals stream. */
export interface CancelSignal {
  job_id: string;
  attempt: number;
  /** `cancelled_by_user`, `timeout`, `lease_expired`, `worker_unregistered` or `worker_key_rotated`. */
  reason: string;
}

interface Listener {
  onCancel(signal: CancelSignal): void;
  onMaybeMissed(): void;
}

/** Who waits for a cancel of which job: the jobs in hand register here. */
export class CancelListeners {
  readonly #byJob = new Map<string, Listener>();

  /**
   * Calls `onCancel` when the stream cancels this job in this attempt, and `onMaybeMissed` when
   * the stream opens again after it dropped (a cancel sent meanwhile is not replayed); returns
   * the unregistration.
   */
  listen(jobId: string, attempt: number, onCancel: (signal: CancelSignal) => void, onMaybeMissed: () => void): () => void {
    const listener: Listener = {
      onCancel: (signal) => signal.attempt === attempt && onCancel(signal),
      onMaybeMissed,
    };
    this.#byJob.set(jobId, listener);
    return () => {
      if (this.#byJob.get(jobId) === listener) this.#byJob.delete(jobId);
    };
  }

  deliver(signal: CancelSignal): void {
    this.#byJob.get(signal.job_id)?.onCancel(signal);
  }

  reopened(): void {
    for (const listener of this.#byJob.values()) listener.onMaybeMissed();
  }
}

export interface SignalsStream {
  /** Closes the stream and stops reopening it; resolves once it is closed. */
  close(): Promise<void>;
}

function isCancelSignal(value: unknown): value is CancelSignal {
  const signal = value as Partial<CancelSignal> | null;
  return (
    typeof signal === "object" &&
    signal !== null &&
    typeof signal.job_id === "string" &&
    typeof signal.attempt === "number" &&
    typeof signal.reason === "string"
  );
}

/** Holds the signals stream open until closed, handing each cancel to `listeners`. */
export function holdSignalsStream(options: { client: Pick<HubWorkerClient, "openSignals">; listeners: CancelListeners; emit: EmitWorkerEvent }): SignalsStream {
  const { client, listeners, emit } = options;
  const closed = new AbortController();
  let opened = false;

  async function hold(): Promise<void> {
    let backoffMs = 0;
    while (!closed.signal.aborted) {
      // One signal per connection: what listens to it goes with it.
      const connection = new AbortController();
      const stop = () => connection.abort();
      closed.signal.addEventListener("abort", stop, { once: true });
      try {
        const body = await client.openSignals(connection.signal);
        backoffMs = 0;
        if (opened) listeners.reopened();
        opened = true;
        emit({ type: "signals_connected" });
        for await (const message of readEventStream(body)) {
          if (message.event !== "cancel") continue;
          let signal: unknown;
          try {
            signal = JSON.parse(message.data);
          } catch {
            continue;
          }
          if (isCancelSignal(signal)) listeners.deliver(signal);
        }
        // The hub ended the stream (it restarts, or the key's overlap ended): open it again.
      } catch (error) {
        if (closed.signal.aborted) return;
        // The key no longer works (the claims stop the worker) or the hub has no signals stream: work on without.
        if (error instanceof WorkerUnauthorizedError || (error instanceof HubRequestError && error.status === 404)) {
          emit({ type: "hub_error", operation: "signals", message: error.message, retryInMs: -1 });
          return;
        }
        backoffMs = nextBackoff(backoffMs, error);
        emit({ type: "hub_error", operation: "signals", message: (error as Error).message, retryInMs: backoffMs });
        await sleep(backoffMs, closed.signal);
        continue;
      } finally {
        closed.signal.removeEventListener("abort", stop);
      }
      if (!closed.signal.aborted) {
        backoffMs = nextBackoff(backoffMs, undefined);
        await sleep(backoffMs, closed.signal);
      }
    }
  }

  const holding = hold();
  return {
    async close() {
      closed.abort();
      await holding;
    },
  };
}
