/**
 * Claiming jobs: one round trip to `hub_claim_jobs_v4` (packages/db/functions/hub_claim_jobs_v4.sql), which checks
 * the automation (active, not in development mode, worker registered, a slot free) under a lock held only for
 * that call, starts up to `maxJobs` jobs in claim order (CONTRACT §6.8) within the limits per key and rate limits
 * of §6.13 (fair sharing across key values) and writes their job.started events. POST /jobs/claim and POST
 * /jobs/claim-batch both come here.
 */
import type { Job } from "../../schema";
import { fromRow } from "./row";
import { runStatement, type NamedStatement, type Executor } from "../../executor";

export type ClaimOutcome =
  /**
   * `jobs` in claim order; `slotsLeft` free slots remain after them (0 when the rate limit's window stopped the
   * claim, `retryAfterMs` from now).
   */
  | { kind: "claimed"; jobs: Job[]; slotsLeft: number; staleIds: string[]; retryAfterMs?: number }
  /** A slot was free but nothing was claimable. */
  | { kind: "none"; slotsLeft: number; staleIds: string[] }
  /**
   * The automation may not run more jobs now: no slot free, development mode, inactive, the worker is gone, or its
   * rate limit's window is full (then `retryAfterMs` says when it next allows a start, by PostgreSQL's clock).
   */
  | { kind: "blocked"; retryAfterMs?: number };

export interface ClaimRequest {
  automationId: string;
  workerId: string;
  /** 1 for POST /jobs/claim; max_jobs for claim-batch. */
  maxJobs: number;
  leaseSeconds: number;
  /**
   * Ids the dispatch layer offered (its ready set); the answer names those no longer queued
   * (`staleIds`) so they stop being offered. They do not choose the jobs: claim order does.
   */
  candidateIds: string[];
  /**
   * For a process that traces (CONTRACT §6.20): the claimed jobs' stored trace contexts too
   * (`Job.traceparent`, `tracestate`), read in the claim's own statement ({@link tracedClaimStatement}).
   */
  withTraceContext?: boolean;
}

/**
 * The claim statement: the function's rows, in its order. `hub_claim_jobs_v4` returns every job column the API hands
 * out itself (the dependency and approval columns of CONTRACT §6.16 and §6.17 too), so the statement reads `jobs` only
 * through the function's index-backed queries, whatever the table's size (joining the rows back to `jobs` planned a
 * sequential scan of the whole table).
 */
export const claimStatement: NamedStatement = {
  name: "hub_claim_jobs_v4",
  text: "select * from hub_claim_jobs_v4($1, $2, $3, $4, $5::uuid[])",
};

/**
 * The claim statement of a process that traces: {@link claimStatement}'s rows, in its order, each with its job's stored
 * trace context — one probe of jobs' primary key per column and row, as scalar subqueries: a subquery in the select
 * list stays a per-row probe whatever the table's size (a join back could plan a scan, as above), and it leaves the
 * function's order alone. Every claim of a tracing API hands its jobs out with their context, sampled or not, and
 * reading it here costs the claim no round trip of its own. A process that does not trace sends
 * {@link claimStatement}, unchanged.
 */
export const tracedClaimStatement: NamedStatement = {
  name: "hub_claim_jobs_v4_traced",
  text: `select c.*,
           (select j.traceparent from jobs j where j.id = c.id) as traceparent,
           (select j.tracestate from jobs j where j.id = c.id) as tracestate
         from hub_claim_jobs_v4($1, $2, $3, $4, $5::uuid[]) c`,
};

export interface ClaimRow extends Record<string, unknown> {
  outcome: "claimed" | "none" | "blocked";
  slots_left: number;
  stale_ids: string[];
  retry_after_ms: number | null;
}

/** Claims up to `maxJobs` jobs for the worker in one statement (no explicit transaction). */
export async function claim(db: Executor, request: ClaimRequest): Promise<ClaimOutcome> {
  const rows = await runStatement<ClaimRow>(db, request.withTraceContext ? tracedClaimStatement : claimStatement, [
    request.automationId,
    request.workerId,
    request.maxJobs,
    request.leaseSeconds,
    request.candidateIds,
  ]);
  return claimOutcomeOf(rows);
}

/** What hub_claim_jobs_v4's rows say (also the claim rows of hub_complete_and_claim_v2). */
export function claimOutcomeOf(rows: readonly ClaimRow[]): ClaimOutcome {
  const first = rows[0];
  if (!first) throw new Error("hub_claim_jobs returned no row");
  switch (first.outcome) {
    case "blocked":
      return first.retry_after_ms === null ? { kind: "blocked" } : { kind: "blocked", retryAfterMs: first.retry_after_ms };
    case "none":
      return { kind: "none", slotsLeft: first.slots_left, staleIds: first.stale_ids };
    case "claimed":
      return {
        kind: "claimed",
        jobs: rows.map(fromRow),
        slotsLeft: first.slots_left,
        staleIds: first.stale_ids,
        ...(first.retry_after_ms === null ? {} : { retryAfterMs: first.retry_after_ms }),
      };
    default: {
      const exhaustive: never = first.outcome;
      throw new Error(`unknown claim outcome ${String(exhaustive)}`);
    }
  }
}
