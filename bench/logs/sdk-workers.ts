/**
 * The logs mode's workers: one `createWorker` of the worker SDK per automation, as a user would run
 * it (its claim loops, its log buffer, its signals stream), in this driver process. Their own log
 * output is silenced: the figures come from their events.
 */
import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { createWorker, type HubWorker, type JobHandler, type Logger, type WorkerEvent } from "@hub/worker";

const silentLogger: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  fatal: () => undefined,
  child: () => silentLogger,
} as unknown as Logger;

export interface SdkWorkerSpec {
  apiKey: string;
  /** Jobs worked at once: the automation's `max_concurrent_jobs`. */
  concurrency: number;
}

/** Started workers, stopped together. */
export class SdkWorkers {
  private readonly workers: HubWorker[];
  private readonly runs: Promise<void>[];

  constructor(apiUrl: string, specs: readonly SdkWorkerSpec[], handler: JobHandler, onEvent: (event: WorkerEvent) => void, waitSeconds: number) {
    // Each of a worker's claim loops listens to one shared AbortSignal while its claim is out: with
    // more than 10 loops Node warns of a leak that is not one. New signals may have that many listeners.
    setMaxListeners(Math.max(10, ...specs.map((spec) => spec.concurrency + 10)));
    this.workers = specs.map((spec) =>
      createWorker({
        url: apiUrl,
        apiKey: spec.apiKey,
        concurrency: spec.concurrency,
        waitSeconds,
        handler,
        onEvent,
        handleSignals: false,
        logger: silentLogger,
        requestTimeoutMs: 60_000,
      }),
    );
    this.runs = this.workers.map((worker) => worker.run());
  }

  /** Log lines the workers dropped (the hub did not take them in time). */
  get droppedLogLines(): number {
    return this.workers.reduce((sum, worker) => sum + worker.droppedLogLines, 0);
  }

  /** Stops every worker gracefully (they close their signals streams and go offline); gives up after `timeoutMs`. */
  async stop(timeoutMs = 30_000): Promise<void> {
    const stopped = Promise.all(this.workers.map((worker) => worker.stop())).then(() => Promise.allSettled(this.runs));
    await Promise.race([stopped, sleep(timeoutMs)]);
  }
}
