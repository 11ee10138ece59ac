/**
 * Claiming jobs: one round trip to `hub_claim_jobs_v3` (packages/db/functions/hub_claim_jobs_v3.sql), which checks
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
}

/**
 * The dependency columns of a claimed job (CONTRACT §6.16), which the claim function's rows predate: a lateral probe
 * by primary key per row of `c` (parameterized by `c.id`, never a join the planner could turn into a scan of the
 * table), of a row the claim just updated. `depends_on` never changes, so the statement's snapshot reads it right; nor
 * does a claimed job's approval (§6.17: decided before it could be claimed), read by the same probe.
 */
export const claimedDependencyColumns = (rows: string) => `
  select c.*, d.depends_on, d.on_dependency_failure, d.has_dependents,
    d.approval_status, d.approval_expires_at, d.approval_decided_by, d.approval_decided_at, d.approval_comment
  from ${rows} with ordinality as c
  left join lateral (select j.depends_on, j.on_dependency_failure, j.has_dependents,
    j.approval_status, j.approval_expires_at, j.approval_decided_by, j.approval_decided_at, j.approval_comment
    from jobs j where j.id = c.id) d on true
  order by c.ordinality`;

/**
 * The claim statement: the function's rows, in its order. `hub_claim_jobs_v3` returns every job column itself, so the
 * statement reads `jobs` only through the function's index-backed queries, whatever the table's size (joining the rows
 * back to `jobs` planned a sequential scan of the whole table), and by primary key for the dependency columns.
 */
export const claimStatement: NamedStatement = {
  name: "hub_claim_jobs",
  text: claimedDependencyColumns("hub_claim_jobs_v3($1, $2, $3, $4, $5::uuid[])"),
};

export interface ClaimRow extends Record<string, unknown> {
  outcome: "claimed" | "none" | "blocked";
  slots_left: number;
  stale_ids: string[];
  retry_after_ms: number | null;
}

/** Claims up to `maxJobs` jobs for the worker in one statement (no explicit transaction). */
export async function claim(db: Executor, request: ClaimRequest): Promise<ClaimOutcome> {
  const rows = await runStatement<ClaimRow>(db, claimStatement, [
    request.automationId,
    request.workerId,
    request.maxJobs,
    request.leaseSeconds,
    request.candidateIds,
  ]);
  return claimOutcomeOf(rows);
}

/** What hub_claim_jobs_v3's rows say (also the claim rows of hub_complete_and_claim_v1). */
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
