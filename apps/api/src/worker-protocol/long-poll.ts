/**
 * The worker's long-poll (POST /jobs/claim, /claim-batch, and the claim of complete-and-claim):
 * Redis says whether to try — the automation's ready set says whether anything is offered,
 * wake-ups say when to look again — and one PostgreSQL statement decides what the worker gets
 * (packages/db/src/sql/jobs/claim.ts: automation active and not in development mode, worker
 * registered, a slot free; claim order of §6.8; the limits per key, rate limits and fair sharing
 * of §6.13).
 *
 * The rule, which no saving may break: a due job that PostgreSQL would hand out is not left
 * waiting while a claim of its automation is open.
 *  1. Every claim looks at its start: it reads the ready set and, when anything is offered, asks
 *     PostgreSQL. (No claim queues behind another without looking: two overlapping short
 *     long-polls that each skipped behind the other answered 204 for ever while a job was due.)
 *  2. A claim that looked and found nothing waits for what can change that: a wake-up, its
 *     deadline, a rate limit's window opening, or the process's re-check, which wakes a claim of
 *     every automation none of whose claims looked for WAKE_RECHECK_INTERVAL_MS while its ready
 *     set holds jobs (packages/shared/src/wake-listener.ts). A claim that reaches its deadline
 *     with no wake-up answers without another look: its own look (1) was the last word, and the
 *     worker's next claim looks first thing.
 *  3. A wake-up reaches one claim (the one it can help); a claim that leaves without using it
 *     passes it on.
 * With every wake-up delivered a due job is looked at as soon as it is offered or its room
 * appears; with wake-ups lost, within about two re-check intervals. long-poll.model.test.ts checks
 * both over random interleavings of claims, offers, completions, blocks, lost messages and
 * deadlines.
 *
 * A job the ready set offers may be one the statement refuses under §6.13 (its key value at its
 * limit, the window full); the statement then picks what it may start instead, or answers `none`
 * (key values at their limit: a completion's `slot` wake-up or the re-check brings the claim
 * back) or `blocked` with the time the window opens (the claim looks again then, without a
 * wake-up), so a refused offer never makes a claim spin. Claims cost PostgreSQL nothing when they
 * can only fail: a claim whose ready set is empty opens no transaction and waits for an `offer`
 * wake-up, not for freed slots; a claim that found no room (limit full, paused) waits for a `slot`
 * wake-up, not for new jobs; and a claim that took the last free slot passes no wake-up on.
 */
import type { Job, jobs } from "@hub/db";
import type { ReadyJobKey, WakeListener, WakeReason } from "@hub/shared/dispatch";

/**
 * Ready ids read beyond the jobs a claim may take: enough to tell whether more are ready after it,
 * and to drop a few stale offers per look.
 */
const EXTRA_CANDIDATES = 4;

/**
 * A result the claim records at its first look (POST /jobs/{job_id}/complete-and-claim), before it
 * claims: in the claim's own statement when the look goes to PostgreSQL (one round trip and one
 * commit), else alone (nothing offered, or the client went away).
 */
export interface PendingCompletion {
  jobId: string;
  result: Record<string, unknown>;
  attempt: number | undefined;
  /** How the fence answered, once the first look recorded the result or was refused. */
  outcome?: jobs.LeasedJobResult;
}

export interface LongPollRequest {
  automationId: string;
  maxJobs: number;
  /** When the claim answers with what it has (ms since the epoch). */
  deadline: number;
  /**
   * A result of the worker's to record first: the slot it frees is this claim's, with no wake-up
   * sent for it; when the claim takes nothing the slot's wake-up is sent as POST
   * /jobs/{job_id}/complete sends it. A refused result (404, 409) claims nothing.
   */
  completing?: PendingCompletion;
}

/** What the long-poll needs from the world: Redis's ready set and wake-ups, and PostgreSQL's statements. */
export interface LongPollPort {
  wakes: WakeListener;
  /** The first `count` jobs offered to the automation, in claim order; [] when Redis cannot say in time. */
  readyCandidates(automationId: string, count: number): Promise<ReadyJobKey[]>;
  /** The claim statement over these candidates. */
  claim(request: { automationId: string; maxJobs: number; candidateIds: string[] }): Promise<jobs.ClaimOutcome>;
  /** Records `completing` and claims in one statement; `claimed` is absent when the claim could not run. */
  completeAndClaim(
    completing: PendingCompletion,
    request: { automationId: string; maxJobs: number; candidateIds: string[] },
  ): Promise<{ completed: jobs.LeasedJobResult; claimed?: jobs.ClaimOutcome }>;
  /** Records `completing` on its own statement. */
  complete(completing: PendingCompletion): Promise<jobs.LeasedJobResult>;
  /** Tells the automation's waiting claims (every process) that a slot freed. */
  wakeClaims(automationId: string): Promise<unknown>;
  /** Withdraws just-claimed jobs from the ready set. */
  withdrawClaimed(automationId: string, claimed: readonly Job[]): Promise<unknown>;
  /** Withdraws offers of jobs that are no longer queued; true when Redis did. */
  withdrawOffers(automationId: string, stale: readonly ReadyJobKey[]): Promise<boolean>;
  /** Counts a claim statement's outcome (metrics). */
  countStatement(kind: jobs.ClaimOutcome["kind"]): void;
}

/**
 * Ids this process claimed whose withdrawal from the ready set is still on its way to Redis:
 * another claim reading the ready set meanwhile skips them, rather than send PostgreSQL a claim
 * for jobs that are already running, which would come back empty.
 */
const claimedBeingWithdrawn = new Set<string>();

/**
 * The claims of one automation in this process take turns: PostgreSQL serialises them on the
 * automation row anyway, and a claim that looks after the previous one finished sees what that
 * one took (the ready set, `claimedBeingWithdrawn`) instead of racing it into a claim for the
 * same jobs. Waiting for a turn holds no connection.
 */
const claimTurns = new Map<string, Promise<void>>();

async function inTurn<T>(automationId: string, work: () => Promise<T>): Promise<T> {
  const previous = claimTurns.get(automationId);
  let release!: () => void;
  const turn = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous ? previous.then(() => turn) : turn;
  claimTurns.set(automationId, tail);
  try {
    await previous;
    return await work();
  } finally {
    release();
    if (claimTurns.get(automationId) === tail) claimTurns.delete(automationId);
  }
}

interface Look {
  candidates: ReadyJobKey[];
  outcome: jobs.ClaimOutcome;
  /** The look found nothing offered that it could take (nothing in the ready set but jobs being claimed here): only a new offer helps it. */
  nothingOffered?: boolean;
}

/**
 * Claims up to `maxJobs` jobs of the automation in claim order, waiting until `deadline` for at
 * least one. Returns [] when none came in time, when `signal` aborts (the client went away) or
 * when the process is shutting down.
 */
export async function longPoll(port: LongPollPort, request: LongPollRequest, signal: AbortSignal): Promise<Job[]> {
  const { automationId, maxJobs, deadline, completing } = request;
  const { wakes } = port;
  /** Records the pending result on its own statement (a look that does not go to PostgreSQL). */
  const completeAlone = async () => {
    if (completing && !completing.outcome) completing.outcome = await port.complete(completing);
  };
  // The wake-up a freed slot is owed unless this claim takes the slot at its first look.
  let owesSlotWake = completing !== undefined;
  const payOwedSlotWake = async () => {
    if (!owesSlotWake) return;
    owesSlotWake = false;
    await port.wakeClaims(automationId);
  };
  for (;;) {
    // A client that hung up gets nothing: a job claimed now would sit running until its lease lapsed.
    // Its result is recorded all the same, as POST /jobs/{job_id}/complete would record it.
    if (signal.aborted) {
      await completeAlone();
      if (completing?.outcome?.ok) await payOwedSlotWake();
      return [];
    }
    // Registered before looking (a registration is a look: rule 1), so a wake-up between the look
    // and the wait is not lost.
    const waiter = wakes.register(automationId);
    // A wake-up wakes one claim, so one that reached a claim which leaves without using it is
    // passed on (rule 3); `passOn` is what the leaving claim owes the others, when it decided
    // (undefined: whatever wake-up reached it).
    let passOn: WakeReason | null | undefined;
    let leaving = true;
    try {
      const { candidates, outcome, nothingOffered } = await inTurn(automationId, async (): Promise<Look> => {
        if (signal.aborted) {
          await completeAlone();
          return { candidates: [], outcome: { kind: "blocked" } };
        }
        const candidates = await port.readyCandidates(automationId, maxJobs + EXTRA_CANDIDATES);
        // Jobs this process just claimed may still sit in the ready set; on their own they are no reason to try.
        if (!candidates.some(({ id }) => !claimedBeingWithdrawn.has(id))) {
          await completeAlone();
          return { candidates, outcome: { kind: "none", slotsLeft: 0, staleIds: [] }, nothingOffered: true };
        }
        const claimRequest = { automationId, maxJobs, candidateIds: candidates.map(({ id }) => id) };
        let claimed: jobs.ClaimOutcome;
        if (completing && !completing.outcome) {
          const both = await port.completeAndClaim(completing, claimRequest);
          completing.outcome = both.completed;
          if (!both.claimed) return { candidates, outcome: { kind: "blocked" } };
          claimed = both.claimed;
        } else {
          claimed = await port.claim(claimRequest);
        }
        port.countStatement(claimed.kind);
        if (claimed.kind === "claimed") for (const job of claimed.jobs) claimedBeingWithdrawn.add(job.id);
        return { candidates, outcome: claimed };
      });
      // A refused result freed no slot and starts no claim.
      if (completing?.outcome?.ok === false) return [];
      if (outcome.kind === "claimed") owesSlotWake = false;
      else await payOwedSlotWake();
      const staleOffers = (staleIds: string[]) => candidates.filter(({ id }) => staleIds.includes(id));
      switch (outcome.kind) {
        case "claimed": {
          const claimedIds = outcome.jobs.map((job) => job.id);
          try {
            await port.withdrawClaimed(automationId, outcome.jobs);
          } finally {
            for (const id of claimedIds) claimedBeingWithdrawn.delete(id);
          }
          if (outcome.staleIds.length > 0) await port.withdrawOffers(automationId, staleOffers(outcome.staleIds));
          const gone = new Set([...claimedIds, ...outcome.staleIds]);
          const moreReady = candidates.some(({ id }) => !gone.has(id));
          // Room and ready jobs left: the next claim should look. No room left: an offer that
          // reached this claim would only send another into a claim bound to find the limit full.
          if (outcome.slotsLeft > 0 && moreReady) passOn = "slot";
          else passOn = waiter.wokenBy === "slot" ? "slot" : null;
          return outcome.jobs;
        }
        case "none":
          // Stale ids hid what lies behind them: drop them and look again at once.
          if (outcome.staleIds.length > 0 && (await port.withdrawOffers(automationId, staleOffers(outcome.staleIds)))) {
            leaving = false;
            continue;
          }
          break;
        case "blocked":
          break;
        default: {
          const exhaustive: never = outcome;
          throw new Error(`unknown claim outcome ${JSON.stringify(exhaustive)}`);
        }
      }
      const remainingMs = deadline - Date.now();
      if (remainingMs <= 0 || wakes.stopped || signal.aborted) return [];
      // A rate limit's window (CONTRACT §6.13) opens without any wake-up: look again when it does.
      const windowOpensInMs = outcome.kind === "blocked" && outcome.retryAfterMs !== undefined ? outcome.retryAfterMs + 1 : Infinity;
      const waitMs = Math.min(remainingMs, windowOpensInMs);
      await waiter.wait(waitMs, signal, { roomOnly: outcome.kind === "blocked", offerOnly: nothingOffered === true });
      // Rule 2: the wait ran to the deadline with no wake-up; this claim's look was the last word.
      // (Decided by what it waited for, not by the clock: a timer may fire a millisecond before
      // Date.now() reaches the deadline.)
      if (!waiter.wokenBy && !signal.aborted && waitMs === remainingMs) return [];
      leaving = signal.aborted;
    } finally {
      waiter.cancel();
      const owed = passOn === undefined ? waiter.wokenBy : passOn;
      if (leaving && owed) wakes.wakeOne(automationId, owed);
    }
  }
}
