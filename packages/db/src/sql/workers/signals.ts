/**
 * Worker signals (CONTRACT §6.12, `workers.signal`): when a job running under a worker is taken from it — cancelled,
 * timed out, its lease lapsed, its worker unregistered, the key holding it stopped working — the statement or transaction that does it
 * also NOTIFYs `hub_worker_signals`, one notification per job. PostgreSQL delivers them at the
 * commit, and only if it commits, to every API process listening (apps/api's worker signal
 * streams), whichever API or dispatcher process made the change; nothing is stored or replayed.
 */
import { sql } from "drizzle-orm";
import { queryBuilder, type Executor } from "../../executor";

export const SIGNALS_CHANNEL = "hub_worker_signals";

export const SIGNAL_REASONS = ["cancelled_by_user", "timeout", "lease_expired", "worker_unregistered", "worker_key_rotated"] as const;
export type SignalReason = (typeof SIGNAL_REASONS)[number];

/** One signal as a listener receives it. */
export interface Signal {
  workerId: string;
  jobId: string;
  attempt: number;
  reason: SignalReason;
  /** When the change was made (PostgreSQL's clock, ms since the epoch); the commit follows within the statement or transaction. */
  signalledAtMs: number;
}

/**
 * The SQL expression that NOTIFYs one signal, over columns or parameters naming the worker, the job
 * and its attempt, and a reason (SQL text). Use it in a SELECT over the affected rows.
 */
export const signalNotifySql = (workerId: string, jobId: string, attempt: string, reason: string) =>
  `pg_notify('${SIGNALS_CHANNEL}', json_build_object('worker_id', ${workerId}, 'job_id', ${jobId}, 'attempt', ${attempt}, 'reason', ${reason}, 'at', extract(epoch from clock_timestamp()) * 1000)::text)`;

/** A job taken from its worker: who held it, in which attempt. */
export interface TakenJob {
  id: string;
  workerId: string | null;
  attempts: number;
}

/** NOTIFYs one signal per job in `taken` that had a worker, in the caller's transaction (sent at its commit). */
export async function signal(executor: Executor, reason: SignalReason, taken: readonly TakenJob[]): Promise<void> {
  const tx = queryBuilder(executor);
  const held = taken.filter((job) => job.workerId !== null).map((job) => ({ worker_id: job.workerId, job_id: job.id, attempt: job.attempts }));
  if (held.length === 0) return;
  // `reason` is one of SIGNAL_REASONS (a literal of this module), the rest a parameter.
  await tx.execute(
    sql`select count(${sql.raw(signalNotifySql("held.worker_id", "held.job_id", "held.attempt", `'${reason}'`))})
    from jsonb_to_recordset(${JSON.stringify(held)}::jsonb) as held(worker_id uuid, job_id uuid, attempt int)`,
  );
}

/** Reads a notification's payload; null for anything that is not a signal. */
export function parseSignal(payload: string): Signal | null {
  try {
    const parsed = JSON.parse(payload) as Record<string, unknown>;
    const reason = parsed.reason as SignalReason;
    if (typeof parsed.worker_id !== "string" || typeof parsed.job_id !== "string" || typeof parsed.attempt !== "number") return null;
    if (!SIGNAL_REASONS.includes(reason)) return null;
    return { workerId: parsed.worker_id, jobId: parsed.job_id, attempt: parsed.attempt, reason, signalledAtMs: Number(parsed.at) };
  } catch {
    return null;
  }
}
