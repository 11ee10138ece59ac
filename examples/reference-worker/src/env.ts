/** The worker's configuration: read once at start-up, and the only reader of `process.env` and the arguments here. */
import { MAX_BATCH_SIZE, MAX_CLAIM_WAIT_SECONDS } from "@hub/worker";

export interface WorkerEnv {
  /** HUB_URL: the hub's base URL. */
  hubUrl: string;
  /** HUB_WORKER_API_KEY: the key `POST /automations/{id}/worker` returned. Never logged. */
  apiKey: string;
  /** HUB_WORKER_CONCURRENCY: jobs worked at once (1–100, default 1). */
  concurrency: number;
  /** HUB_WORKER_WAIT_SECONDS: long-poll of each claim (0–30, default 20). */
  waitSeconds: number;
  /** HUB_WORKER_WORK_MS: how long the simulated work of one job takes (0–3 600 000, default 1000). */
  workMs: number;
  /**
   * `--batch N` (or HUB_WORKER_BATCH): claim up to N jobs per call and report results in batches
   * (1–100); N jobs in hand at most, in place of HUB_WORKER_CONCURRENCY. Unset: one job per call.
   */
  batch: number | undefined;
}

export class WorkerEnvError extends Error {}

function whole(source: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = source[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new WorkerEnvError(`Configuration error: ${name} is invalid: expected a whole number between ${min} and ${max}`);
  }
  return value;
}

function batchSize(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  return whole({ "--batch": raw }, "--batch", 1, 1, MAX_BATCH_SIZE);
}

function required(source: Record<string, string | undefined>, name: string): string {
  const value = source[name];
  if (!value) throw new WorkerEnvError(`Configuration error: ${name} is required`);
  return value;
}

/** `--batch N` or `--batch=N` from the command line, else undefined. */
function batchArgument(argv: string[]): string | undefined {
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === "--batch") {
      const value = argv[index + 1];
      if (value === undefined) throw new WorkerEnvError("Configuration error: --batch needs a number (1 to 100)");
      return value;
    }
    if (arg.startsWith("--batch=")) return arg.slice("--batch=".length);
  }
  return undefined;
}

export function loadWorkerEnv(source: Record<string, string | undefined> = process.env, argv: string[] = process.argv.slice(2)): WorkerEnv {
  const hubUrl = required(source, "HUB_URL");
  try {
    new URL(hubUrl);
  } catch {
    throw new WorkerEnvError("Configuration error: HUB_URL is invalid: expected a URL such as http://127.0.0.1:8000");
  }
  return {
    hubUrl,
    apiKey: required(source, "HUB_WORKER_API_KEY"),
    concurrency: whole(source, "HUB_WORKER_CONCURRENCY", 1, 1, 100),
    waitSeconds: whole(source, "HUB_WORKER_WAIT_SECONDS", 20, 0, MAX_CLAIM_WAIT_SECONDS),
    workMs: whole(source, "HUB_WORKER_WORK_MS", 1000, 0, 3_600_000),
    batch: batchSize(batchArgument(argv) ?? source.HUB_WORKER_BATCH),
  };
}
