/**
 * The system tests drive the hub of `@hub/testing` with the reference worker: each
 * automation comes with a worker-protocol client, and {@link startWorker} runs a
 * worker loop as a fake worker whose accepted results go into a {@link CompletionLedger}.
 */
import { randomUUID } from "node:crypto";
import { createWorker, HubWorkerClient, type WorkerEvent } from "@hub/worker";
import { pino } from "pino";
import { sleep, type CompletionLedger } from "@hub/testing";
import { useSystemHub as useHub, type SystemAutomation as HubAutomation, type SystemHub as Hub, type SystemHubOptions } from "@hub/testing/vitest";

export interface SystemAutomation extends HubAutomation {
  /** A client of the worker protocol holding the automation's worker key. */
  worker: HubWorkerClient;
}

export interface SystemHub extends Omit<Hub, "createAutomationWithWorker"> {
  createAutomationWithWorker(...args: Parameters<Hub["createAutomationWithWorker"]>): Promise<SystemAutomation>;
}

/** `useSystemHub` of `@hub/testing`, whose automations carry a reference-worker client. */
export function useSystemHub(options: SystemHubOptions = {}): () => SystemHub {
  const hub = useHub(options);
  return () => {
    const started = hub();
    return {
      ...started,
      async createAutomationWithWorker(...args) {
        const automation = await started.createAutomationWithWorker(...args);
        return { ...automation, worker: new HubWorkerClient({ baseUrl: started.processes.apiUrl, apiKey: automation.workerKey }) };
      },
    };
  };
}

export interface RunningWorker {
  /** Every event the worker loop reported, in order. */
  events: WorkerEvent[];
  /** Stops claiming, lets the jobs in hand finish and be reported, and resolves when done. */
  stop(): Promise<void>;
}

/**
 * Runs a worker (@hub/worker's createWorker) in this process for one automation: `concurrency` claim loops,
 * each job "working" for `workMs` (a [min, max] range picks at random) and completing with a
 * result unique to that run, recorded in `ledger` when the hub accepts it. `url`: the API process
 * it talks to (default the first); `onEvent` sees every event of the loop too.
 */
export function startWorker(
  automation: SystemAutomation,
  options: {
    concurrency: number;
    workMs: number | [number, number];
    ledger: CompletionLedger;
    waitSeconds?: number;
    url?: string;
    onEvent?: (event: WorkerEvent) => void;
  },
): RunningWorker {
  const events: WorkerEvent[] = [];
  const [minMs, maxMs] = typeof options.workMs === "number" ? [options.workMs, options.workMs] : options.workMs;
  const worker = createWorker({
    url: options.url ?? automation.worker.baseUrl,
    apiKey: automation.workerKey,
    concurrency: options.concurrency,
    waitSeconds: options.waitSeconds ?? 2,
    handleSignals: false,
    logger: pino({ level: "silent" }),
    onEvent: (event) => {
      events.push(event);
      options.ledger.onWorkerEvent(event);
      options.onEvent?.(event);
    },
    handler: async (job, { signal }) => {
      await sleep(minMs + Math.random() * (maxMs - minMs), signal);
      return { job_id: job.id, run: randomUUID() };
    },
  });
  const running = worker.run();
  return {
    events,
    stop: async () => {
      await worker.stop();
      await running;
    },
  };
}
