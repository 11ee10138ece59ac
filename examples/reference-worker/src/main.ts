/**
 * The reference worker as a command:
 *
 *   HUB_URL=http://127.0.0.1:8000 HUB_WORKER_API_KEY=… HUB_WORKER_CONCURRENCY=4 pnpm --filter @hub/reference-worker start
 *   HUB_URL=… HUB_WORKER_API_KEY=… pnpm --filter @hub/reference-worker start --batch 20
 *
 * With `--batch N` it claims up to N jobs per call (claim-batch) and reports results in batches
 * (complete-batch), with up to N jobs in hand.
 * Each job's "work" is a pause of HUB_WORKER_WORK_MS, and its result echoes the job's context.
 * Logs are JSON lines on stdout (job ids and outcomes, never the api key or a result).
 * SIGTERM/SIGINT: claim no more, finish and report the jobs in hand, exit 0; a second signal exits 1 at once.
 */
import { hostname } from "node:os";
import { loadWorkerEnv, type WorkerEnv } from "./env";
import { HubWorkerClient } from "./worker-client";
import { runWorker, type JobHandler, type WorkerEvent } from "./worker-loop";

type Level = "info" | "warn" | "error";

function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, app: "reference-worker", pid: process.pid, msg, ...fields })}\n`);
}

function logEvent(event: WorkerEvent): void {
  switch (event.type) {
    case "claimed":
      return log("info", "job claimed", { job_id: event.job.id, attempt: event.job.attempts });
    case "completed":
      return log("info", "job completed", { job_id: event.job.id });
    case "failed":
      return log("warn", "job failed", { job_id: event.job.id, error: event.error, retryable: event.retryable, status: event.job.status });
    case "lease_lost":
      return log("warn", "job taken back by the hub (cancelled or lease lapsed); work dropped", { job_id: event.jobId, during: event.during });
    case "report_unconfirmed":
      return log("warn", "report refused after an unanswered attempt; GET /jobs/{id} shows whether it was recorded", {
        job_id: event.jobId,
        during: event.during,
      });
    case "hub_error":
      return log("warn", "hub call failed", { operation: event.operation, error: event.message, retry_in_ms: event.retryInMs });
    default: {
      const exhaustive: never = event;
      throw new Error(`unknown worker event ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** Simulated work: waits `workMs` (cut short when the hub takes the job back) and echoes the context. */
function simulatedWork(workMs: number): JobHandler {
  const worker = `${hostname()}:${process.pid}`;
  return (job, { signal }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ echo: job.context, attempt: job.attempts, worker }), workMs);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          reject(new Error("job taken back by the hub"));
        },
        { once: true },
      );
    });
}

let env: WorkerEnv;
try {
  env = loadWorkerEnv();
} catch (error) {
  process.stderr.write(`reference-worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

const stop = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  if (stop.signal.aborted) {
    log("warn", "second signal: exiting now", { signal });
    process.exit(1);
  }
  log("info", "stopping: finishing the jobs in hand", { signal });
  stop.abort();
};
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);

log("info", "worker started", { hub_url: env.hubUrl, concurrency: env.concurrency, batch: env.batch ?? null, wait_seconds: env.waitSeconds });
const client = new HubWorkerClient({ baseUrl: env.hubUrl, apiKey: env.apiKey });
const common = { handler: simulatedWork(env.workMs), waitSeconds: env.waitSeconds, signal: stop.signal, onEvent: logEvent };
runWorker(env.batch === undefined ? { ...common, client, concurrency: env.concurrency } : { ...common, client, batch: env.batch }).then(
  () => {
    log("info", "worker stopped");
    process.exit(0);
  },
  (error: unknown) => {
    log("error", "worker gave up", { error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  },
);
