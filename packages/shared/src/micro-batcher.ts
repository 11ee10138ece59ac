/**
 * A background micro-batcher: many callers hand items over without waiting, and they leave in
 * batches, one send at a time, bounded in time, memory and shutdown delay. Used by the API to
 * hand committed jobs to the dispatch queue (./dispatch.ts).
 */
import { settleWithin } from "./timeout";
/** Tuning and reporting of a {@link MicroBatcher}. */
export interface MicroBatcherOptions<T> {
  /** Longest an item waits before its batch is sent while sends keep up. Default 2 ms. */
  lingerMs?: number;
  /**
   * Adaptive linger: while sends cannot keep up (several items waiting when a send ended), each next
   * linger doubles, up to this; the first send that ends with nothing waiting resets it to
   * `lingerMs`. Under a steady trickle every item waits `lingerMs`; under load batches grow, so
   * each send (for dispatch: one BullMQ job, ~55 Redis commands) carries more items. Default
   * `lingerMs` (no adaptation).
   */
  maxLingerMs?: number;
  /** A batch this large is sent at once, without waiting for `lingerMs`. Default 200. */
  sendSize?: number;
  /** Most items one send carries. Default 1000. */
  maxSendSize?: number;
  /** Most items held while sends cannot keep up or the target is down; beyond, new items are dropped. Default 10,000. */
  maxBuffered?: number;
  /** A send not settled by then counts as failed, and the next may start. Default 1000 ms. */
  sendTimeoutMs?: number;
  /** While the target is not ready, how often to look again. Default 100 ms. */
  notReadyRetryMs?: number;
  /** A send failed or timed out: its items are lost. */
  onSendFailure?: (error: unknown, items: T[]) => void;
  /** Items refused because the buffer was full (or the batcher closed). */
  onDrop?: (count: number) => void;
}

/**
 * Collects items from many callers and sends them in batches, one send at a time, in the
 * background: `add` never waits and never throws. An item waits at most `lingerMs` (or for the
 * send in flight to end); while the target is not ready (`isReady` false) items are kept, up to
 * `maxBuffered`. Meant for signals whose loss costs only latency, because something else repairs
 * them (for dispatch: the reconciler).
 */
export class MicroBatcher<T> {
  private pending: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;
  private readonly lingerMs: number;
  private readonly maxLingerMs: number;
  /** The linger of the next batch: `lingerMs`, grown while sends cannot keep up. */
  private currentLingerMs: number;
  private readonly sendSize: number;
  private readonly maxSendSize: number;
  private readonly maxBuffered: number;
  private readonly sendTimeoutMs: number;
  private readonly notReadyRetryMs: number;

  constructor(
    private readonly send: (items: T[]) => Promise<void>,
    private readonly isReady: () => boolean,
    private readonly options: MicroBatcherOptions<T> = {},
  ) {
    this.lingerMs = options.lingerMs ?? 2;
    this.maxLingerMs = Math.max(options.maxLingerMs ?? this.lingerMs, this.lingerMs);
    this.currentLingerMs = this.lingerMs;
    this.sendSize = options.sendSize ?? 200;
    this.maxSendSize = options.maxSendSize ?? 1000;
    this.maxBuffered = options.maxBuffered ?? 10_000;
    this.sendTimeoutMs = options.sendTimeoutMs ?? 1000;
    this.notReadyRetryMs = options.notReadyRetryMs ?? 100;
  }

  get buffered(): number {
    return this.pending.length;
  }

  add(items: readonly T[]): void {
    const room = this.closed ? 0 : this.maxBuffered - this.pending.length;
    const kept = items.length <= room ? items : items.slice(0, Math.max(room, 0));
    if (kept.length < items.length) this.options.onDrop?.(items.length - kept.length);
    if (kept.length === 0) return;
    this.pending.push(...kept);
    this.schedule();
  }

  /** The linger the next batch waits (exposed for tests). */
  get lingerNowMs(): number {
    return this.currentLingerMs;
  }

  /** Sends at once when a batch is full, else within the current linger; nothing while a send is in flight (it reschedules). */
  private schedule(delayMs = this.currentLingerMs): void {
    // Once closing, `close` drives the remaining sends itself.
    if (this.closed || this.inFlight || this.pending.length === 0) return;
    if (this.pending.length >= this.sendSize) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.sendPending();
    } else {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.sendPending();
      }, delayMs);
    }
  }

  private sendPending(): void {
    if (this.inFlight || this.pending.length === 0) return;
    if (!this.isReady()) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.sendPending();
      }, this.notReadyRetryMs);
      return;
    }
    const batch = this.pending.splice(0, this.maxSendSize);
    this.inFlight = settleWithin(this.send(batch), this.sendTimeoutMs)
      .catch((error: unknown) => this.options.onSendFailure?.(error, batch))
      .finally(() => {
        this.inFlight = undefined;
        // Several items arrived during the send: load, so let the next batch gather longer. One
        // is what a steady trickle leaves now and then (a loaded machine makes sends slow), and
        // must not cost every item of the trickle a longer wait.
        this.currentLingerMs = this.pending.length > 1 ? Math.min(Math.max(this.currentLingerMs * 2, 1), this.maxLingerMs) : this.lingerMs;
        this.schedule();
      });
  }

  /**
   * Stops accepting items and sends what is held, waiting at most `timeoutMs` in all; what is
   * still held then is dropped (reported through `onDrop`).
   */
  async close(timeoutMs: number): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + timeoutMs;
    while ((this.pending.length > 0 || this.inFlight) && Date.now() < deadline) {
      if (this.inFlight) await settleWithin(this.inFlight, deadline - Date.now()).catch(() => undefined);
      else if (this.isReady()) this.sendPending();
      else await new Promise((resolve) => setTimeout(resolve, Math.min(this.notReadyRetryMs, Math.max(deadline - Date.now(), 0))));
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length > 0) {
      this.options.onDrop?.(this.pending.length);
      this.pending = [];
    }
  }
}
