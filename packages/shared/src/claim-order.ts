/**
 * Claim order in Redis (CONTRACT §6.8): among an automation's due jobs, the highest `priority`
 * first, then the earliest `available_at`, then creation order (`seq`, so ties never fall to
 * random ids and a batch keeps its input order) — the order of `hub_claim_jobs_v4` in PostgreSQL (packages/db/functions/hub_claim_jobs_v4.sql).
 *
 * A ready set is a Redis sorted set, which orders by score, then by member bytes. So:
 * - the score encodes priority and `available_at`: `(JOB_PRIORITY_MAX − priority) × 2^44 +
 *   available_at in ms`. Both parts are integers and the whole stays below 2^53, so the double
 *   Redis keeps is exact (2^44 ms reaches the year 2527);
 * - the member is the `seq` as 16 zero-padded decimal digits, `:`, then the job id, so equal
 *   scores fall to creation order. A job's member never changes (its `seq` does not), so a new
 *   priority or `available_at` (POST /jobs/{id}/reschedule) is a new score for the same member.
 *
 * The delayed set (jobs not due yet, every automation's) is scored by `available_at` in ms; its
 * members carry what the ready set needs once the job is due: `automationId|jobId|seq|priority`.
 */
import { JOB_PRIORITY_MAX, JOB_PRIORITY_MIN } from "./domain";

/** What dispatch needs to know about a queued job to offer it in claim order. */
export interface DispatchableJob {
  id: string;
  automationId: string;
  /** Creation order (`jobs.seq`). */
  seq: number;
  priority: number;
  /** When it may be claimed, as PostgreSQL set it. Jobs not due yet wait in the delayed set. */
  availableAt: Date;
  /**
   * Whether the job's trace is sampled, when the API that committed it knows (it created the job
   * in a traced request): a tracing dispatcher reads no trace context for a job it knows is not
   * sampled (CONTRACT §6.20). Undefined when not known, or while the API does not trace.
   */
  traceSampled?: boolean;
}

/** What identifies a job's entry in its automation's ready set. */
export type ReadyJobKey = Pick<DispatchableJob, "id" | "seq">;

/** Width of the score's `available_at` part: 2^44 ms. */
const TIME_SPAN = 2 ** 44;
/** Digits of a member's `seq` part: `Number.MAX_SAFE_INTEGER` has 16. */
const SEQ_DIGITS = 16;
/** Where the job id starts in a ready-set member (1-based, for Lua's `string.sub`). */
export const READY_MEMBER_ID_START = SEQ_DIGITS + 2;

/** The ready-set score of a job: lower scores are claimed first. */
export function readyScore(job: Pick<DispatchableJob, "priority" | "availableAt">): number {
  const priority = Math.min(JOB_PRIORITY_MAX, Math.max(JOB_PRIORITY_MIN, Math.trunc(job.priority)));
  const availableAtMs = Math.min(TIME_SPAN - 1, Math.max(0, job.availableAt.getTime()));
  return (JOB_PRIORITY_MAX - priority) * TIME_SPAN + availableAtMs;
}

/** The ready-set member of a job: its creation order, then its id. */
export function readyMember(job: ReadyJobKey): string {
  return `${String(Math.max(0, job.seq)).padStart(SEQ_DIGITS, "0")}:${job.id}`;
}

/** The job a ready-set member names. */
export function readyKeyOfMember(member: string): ReadyJobKey {
  return { seq: Number(member.slice(0, SEQ_DIGITS)), id: member.slice(READY_MEMBER_ID_START - 1) };
}

/** A delayed-set member: enough to offer the job in claim order once it is due (the score gives `availableAt`). */
export function delayedMember(job: Omit<DispatchableJob, "availableAt">): string {
  return `${job.automationId}|${job.id}|${job.seq}|${job.priority}`;
}

/**
 * The job a delayed-set member names, due at `dueAtMs` (its score). Members written before
 * priorities (`automationId|jobId|createdAtMs`) read as priority 0 and `seq` 0: the job is still
 * offered, and the entry the reconciler later adds under its real `seq` replaces it once claimed.
 */
export function jobOfDelayedMember(member: string, dueAtMs: number): DispatchableJob | undefined {
  const [automationId, id, third, fourth] = member.split("|");
  if (!automationId || !id || third === undefined) return undefined;
  const availableAt = new Date(dueAtMs);
  if (fourth === undefined) return { id, automationId, seq: 0, priority: 0, availableAt };
  return { id, automationId, seq: Number(third), priority: Number(fourth), availableAt };
}
