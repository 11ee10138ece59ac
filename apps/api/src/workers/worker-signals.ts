/**
 * GET /workers/me/signals (CONTRACT §6.12): while a worker holds this stream open, it hears
 * `event: cancel {job_id, attempt, reason}` when a job it runs is taken from it.
 *
 * The signals come from PostgreSQL: the statements that cancel, time out, sweep or re-queue a
 * running job NOTIFY `hub_worker_signals` (@hub/db sql/workers/signals.ts), delivered at their commit to
 * this process's credential-change session, whichever API or dispatcher process committed. The
 * same session carries the credential changes, in commit order, so the cancels of an
 * unregistration reach the stream before the credential change that ends it. Signals carry no
 * `id:` and are never replayed: a worker that was not listening learns it from its next call's 409.
 */
import type { Request, Response } from "express";
import { workers } from "@hub/db";
import type { AppContext } from "../context";
import type { AuthenticatedWorker } from "../http/auth";
import { ServiceUnavailableError, UNAVAILABLE_RETRY_AFTER_SECONDS } from "../http/http-errors";
import { openEventStream, sseMessage } from "../http/sse";
import type { Metrics } from "../metrics";
import { endKeyOverlap } from "./key-holds.service";

/** Longest wait, when a stream opens, for this process's session to LISTEN (at start-up, or after PostgreSQL was away). */
const LISTENING_WAIT_MS = 5_000;
const LISTENING_POLL_MS = 25;

/** How long a delivered signal is remembered, so the same one arriving twice (locally, then by NOTIFY) is sent once. */
const DELIVERED_MEMORY_MS = 30_000;

interface SignalStream {
  send(chunk: string): void;
  end(): void;
}

/** This process's open signal streams, by worker, and the delivery of signals to them. */
export class WorkerSignalStreams {
  private readonly byWorker = new Map<string, Set<SignalStream>>();
  /** `job:attempt:reason` → when it was delivered. */
  private readonly delivered = new Map<string, number>();

  /** Whether the session that carries the signals LISTENs now (see {@link listenOn}). */
  private listening: () => boolean = () => true;

  constructor(private readonly metrics: Pick<Metrics, "jobs">) {}

  /**
   * Ties the streams to the session that delivers the signals: a stream opens only while it
   * LISTENs (a signal committed before would go unheard while the stream looked open), and
   * {@link onSessionLost} ends them all when it is lost, so workers reconnect once it is back.
   */
  listenOn(listening: () => boolean): void {
    this.listening = listening;
  }

  /** The signals session is gone: what commits until it LISTENs again is not heard. */
  readonly onSessionLost = (): void => this.close();

  /** The handler of `hub_worker_signals` notifications. */
  readonly onNotification = (payload: string): void => {
    const signal = workers.parseSignal(payload);
    if (signal) this.deliver(signal);
  };

  /**
   * Delivers, in this process, the signals of a change this process just committed (its
   * notifications follow and are then recognised as already delivered).
   */
  deliverCommitted(reason: workers.SignalReason, taken: readonly workers.TakenJob[]): void {
    const now = Date.now();
    for (const job of taken) {
      if (job.workerId !== null) this.deliver({ workerId: job.workerId, jobId: job.id, attempt: job.attempts, reason, signalledAtMs: now });
    }
  }

  private deliver(signal: workers.Signal): void {
    const now = Date.now();
    for (const [key, at] of this.delivered) {
      if (now - at < DELIVERED_MEMORY_MS) break;
      this.delivered.delete(key);
    }
    const key = `${signal.jobId}:${signal.attempt}:${signal.reason}`;
    if (this.delivered.has(key)) return;
    this.delivered.set(key, now);
    const streams = this.byWorker.get(signal.workerId);
    if (!streams) return;
    const chunk = sseMessage({ event: "cancel", data: JSON.stringify({ job_id: signal.jobId, attempt: signal.attempt, reason: signal.reason }) });
    for (const stream of streams) {
      stream.send(chunk);
      // From PostgreSQL's clock at the change to this host's at the write; clock skew is clamped.
      this.metrics.jobs.signalDelay.observe(Math.max(0, now - signal.signalledAtMs) / 1000);
    }
  }

  private add(workerId: string, stream: SignalStream): () => void {
    let streams = this.byWorker.get(workerId);
    if (!streams) {
      streams = new Set();
      this.byWorker.set(workerId, streams);
    }
    streams.add(stream);
    return () => {
      const current = this.byWorker.get(workerId);
      current?.delete(stream);
      if (current?.size === 0) this.byWorker.delete(workerId);
    };
  }

  /** Ends every stream (API shutdown: workers reconnect to another process). */
  close(): void {
    for (const streams of this.byWorker.values()) for (const stream of streams) stream.end();
    this.byWorker.clear();
  }

  /**
   * Answers with the stream and keeps it open until the worker leaves, its key stops being valid
   * (checked without marking the worker seen: keeping a stream open does not), or shutdown. 429 at
   * HUB_WORKER_MAX_STREAMS before anything is sent.
   */
  async serve(ctx: AppContext, req: Request, res: Response, worker: AuthenticatedWorker): Promise<void> {
    const waitUntil = Date.now() + LISTENING_WAIT_MS;
    while (!this.listening()) {
      if (Date.now() >= waitUntil || res.closed) throw new ServiceUnavailableError(UNAVAILABLE_RETRY_AFTER_SECONDS);
      await new Promise((resolve) => setTimeout(resolve, LISTENING_POLL_MS));
    }
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      res.end();
    };
    const releaseSlot = await ctx.streamSlots.take({
      stream: "worker_signals",
      owner: `worker:${worker.id}`,
      cap: ctx.env.HUB_WORKER_MAX_STREAMS,
      resuming: req.headers["last-event-id"] !== undefined,
      displace: end,
    });
    if (res.closed) {
      releaseSlot();
      return;
    }
    const remove = this.add(worker.id, { send: (chunk) => !ended && res.write(chunk), end });
    // A stream of the previous key ends when its overlap does: it ends the overlap first (at once,
    // rather than at the next sweep), so the cancels of the jobs that key held reach it before the end.
    const endAsCredentialRefused =
      worker.key === "previous"
        ? () =>
            void endKeyOverlap(ctx, worker.automationId)
              .catch((error: unknown) => req.log.warn({ err: error }, "ending a worker key overlap failed"))
              .finally(end)
        : end;
    const untrack = ctx.streams.track({ name: "worker_signals", req, requirement: "worker-unseen", end: endAsCredentialRefused });
    const heartbeat = setInterval(() => !ended && res.write(": heartbeat\n\n"), ctx.env.HUB_EVENTS_STREAM_HEARTBEAT_SECONDS * 1000);
    res.once("close", () => {
      ended = true;
      clearInterval(heartbeat);
      remove();
      untrack();
      releaseSlot();
    });
    openEventStream(req, res);
  }
}
