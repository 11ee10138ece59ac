/** The worker's configuration: read once at start-up, and the only reader of `process.env` here. */
import { MAX_CLAIM_WAIT_SECONDS } from "./worker-client";

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

function required(source: Record<string, string | undefined>, name: string): string {
  const value = source[name];
  if (!value) throw new WorkerEnvError(`Configuration error: ${name} is required`);
  return value;
}

export function loadWorkerEnv(source: Record<string, string | undefined> = process.env): WorkerEnv {
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
  };
}
