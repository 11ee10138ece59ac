/**
 * POST /jobs/{job_id}/complete-and-claim's statement: {@link complete} and then {@link claim} for the slot it freed,
 * in one round trip and one transaction (`hub_complete_and_claim_v2`, packages/db/functions/hub_complete_and_claim_v2.sql, which says why that is safe).
 * The completion is fenced exactly as {@link complete}'s; a refused one claims nothing.
 */
import { runStatement, type Executor, type NamedStatement } from "../../executor";
import { claimOutcomeOf, type ClaimOutcome, type ClaimRequest, type ClaimRow } from "./claim";
import { fencedVerdict, type FencedRow, type LeaseHolder, type LeasedJobResult } from "./lease";

const completeAndClaimStatement: NamedStatement = {
  name: "hub_complete_and_claim_v2",
  // The completed job's row carries has_dependents, so the API offers what the completion released (jobs/hold.ts).
  text: "select * from hub_complete_and_claim_v2($1, $2, $3, $4, $5::jsonb, $6, $7, $8::uuid[])",
};

/** {@link completeAndClaimStatement} with each row's stored trace context, as claim.ts's tracedClaimStatement reads it. */
const tracedCompleteAndClaimStatement: NamedStatement = {
  name: "hub_complete_and_claim_v2_traced",
  text: `select c.*,
           (select j.traceparent from jobs j where j.id = c.id) as traceparent,
           (select j.tracestate from jobs j where j.id = c.id) as tracestate
         from hub_complete_and_claim_v2($1, $2, $3, $4, $5::jsonb, $6, $7, $8::uuid[]) c`,
};

type CompleteAndClaimRow = FencedRow & ClaimRow & { row_kind: "completed" | "refused" | "claim" };

export type CompleteAndClaimOutcome =
  { completed: Extract<LeasedJobResult, { ok: true }>; claimed: ClaimOutcome } | { completed: Extract<LeasedJobResult, { ok: false }>; claimed: null };

/**
 * Records the job's result once (the lease fence of {@link complete}) and, when it was recorded, claims as
 * {@link claim} does for `next` (whose automation and worker are `worker`'s), in one statement.
 */
export async function completeAndClaim(
  db: Executor,
  jobId: string,
  worker: LeaseHolder,
  result: Record<string, unknown>,
  next: Omit<ClaimRequest, "automationId" | "workerId">,
): Promise<CompleteAndClaimOutcome> {
  const statement = next.withTraceContext ? tracedCompleteAndClaimStatement : completeAndClaimStatement;
  const [first, ...claimRows] = await runStatement<CompleteAndClaimRow>(db, statement, [
    jobId,
    worker.automationId,
    worker.id,
    worker.attempt ?? null,
    JSON.stringify(result),
    next.maxJobs,
    next.leaseSeconds,
    next.candidateIds,
  ]);
  const completed = fencedVerdict(first, worker.automationId);
  if (!completed.ok) return { completed, claimed: null };
  return { completed, claimed: claimOutcomeOf(claimRows) };
}
