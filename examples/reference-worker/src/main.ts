/**
 * The reference worker: a short example of @hub/worker's createWorker.
 *
 *   HUB_URL=http://127.0.0.1:8000 HUB_WORKER_API_KEY=… HUB_WORKER_CONCURRENCY=4 pnpm --filter @hub/reference-worker start
 *   HUB_URL=… HUB_WORKER_API_KEY=… pnpm --filter @hub/reference-worker start --batch 20
 *
 * Each job's "work" is a pause of HUB_WORKER_WORK_MS, and its result echoes the job's context.
 * createWorker does the rest: claims (claim-batch with --batch), heartbeats, reports, JSON log
 * lines on stdout, and a graceful stop on SIGTERM/SIGINT.
 */
import { hostname } from "node:os";
import { setTimeout as pause } from "node:timers/promises";
import { createWorker, type JobHandler } from "@hub/worker";
import { loadWorkerEnv, type WorkerEnv } from "./env";

/** Simulated work: waits `workMs` (cut short when the hub takes the job back) and echoes the context. */
function simulatedWork(workMs: number): JobHandler {
  const worker = `${hostname()}:${process.pid}`;
  return async (job, { signal }) => {
    await pause(workMs, undefined, { signal });
    return { echo: job.context, attempt: job.attempts, worker };
  };
}

let env: WorkerEnv;
try {
  env = loadWorkerEnv();
} catch (error) {
  process.stderr.write(`reference-worker: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

const worker = createWorker({
  url: env.hubUrl,
  apiKey: env.apiKey,
  handler: simulatedWork(env.workMs),
  waitSeconds: env.waitSeconds,
  // --batch N: up to N jobs in hand, claimed and completed in batches; else HUB_WORKER_CONCURRENCY slots.
  ...(env.batch === undefined ? { concurrency: env.concurrency } : { batch: env.batch }),
});
worker.run().then(
  () => process.exit(0),
  () => process.exit(1),
);
