/**
 * POST /jobs/claim and POST /jobs/claim-batch: the worker's long-poll. Redis decides whether to
 * try — the automation's ready set says whether anything is offered, wake-ups say when to look
 * again — and one PostgreSQL statement decides what the worker gets (hub_claim_jobs: automation
 * active and not in development mode, worker registered, a slot free; claim order of §6.8; the
 * limits per key, rate limits and fair sharing of §6.13).
 *
 * A job the ready set offers may be one the statement refuses under §6.13 (its key value at its
 * limit, the window full); the statement then picks what it may start instead, or answers `none`
 * (key values at their limit: a completion's `slot` wake-up or the re-check brings the claim
 * back) or `blocked` with the time the window opens (the claim looks again then, without a
 * wake-up), so a refused offer never makes a claim spin.
 *
 * So that claims cost PostgreSQL nothing when they can only fail: a claim whose ready set is empty
 * opens no transaction and waits for an `offer` wake-up, not for freed slots; a claim that found no
 * room (limit full, paused) waits for a `slot` wake-up, not for new jobs; and a claim that took the
 * last free slot passes no wake-up on. Without any wake-up, one waiting claim per automation is made
 * to look again every second (WakeListener.recheck), so a lost wake-up costs at most about two
 * seconds.
 */
import { type Job, jobs } from "@hub/db";
import { settleWithin } from "@hub/shared";
import type { ReadyJobKey, WakeReason } from "@hub/shared/dispatch";
import type { AppContext } from "../context";
import type { AuthenticatedWorker } from "../http/auth";
import { wakeClaims, withdrawClaimed, withdrawOffers } from "../dispatch/signals";

/**
 * Ready ids read beyond the jobs a claim may take: enough to tell whether more are ready after it,
 * and to drop a few stale offers per look.
 */
const EXTRA_CANDIDATES = 4;
/** Longest wait for Redis to list the ready jobs: while Redis is away a claim finds nothing and still answers in time. */
const READY_READ_TIMEOUT_MS = 1000;

/**
 * Ids this process claimed whose withdrawal from the ready set is still on its way to Redis:
 * another claim reading the ready set meanwhile skips them, rather than send PostgreSQL a claim
 * for jobs that are already running, which would come back empty.
 */
const claimedBeingWithdrawn = new Set<string>();

/**
 * A result the claim records at its first look (POST /jobs/{job_id}/complete-and-claim), before it
 * claims: in the claim's own statement when the look goes to PostgreSQL (jobs.completeAndClaim: one
 * round trip and one commit), else alone (jobs.complete: nothing offered, or the client went away).
 */
export interface PendingCompletion {
  jobId: string;
  result: Record<string, unknown>;
  attempt: number | undefined;
  /** How the fence answered, once the first look recorded the result or was refused. */
  outcome?: jobs.LeasedJobResult;
}

export interface ClaimRequest {
  maxJobs: number;
  waitSeconds: number;
  /**
   * A result of the worker's to record first: the slot it frees is this claim's, with no wake-up
   * sent for it. Its first look is then not queued behind claims waiting for room (it is the room
   * they wait for), and when that look takes nothing the slot's wake-up is sent as POST
   * /jobs/{job_id}/complete sends it. A refused result (404, 409) claims nothing.
   */
  completing?: PendingCompletion;
}

/**
 * Claims up to `maxJobs` available jobs of the worker's automation in claim order, waiting up to
 * `waitSeconds` for at least one. Returns [] when none became available in time, when `signal`
 * aborts (the client went away) or when the process is shutting down.
 */
export async function claimNextJobs(ctx: AppContext, worker: AuthenticatedWorker, request: ClaimRequest, signal: AbortSignal): Promise<Job[]> {
  const { metrics } = ctx;
  const stopTimer = metrics.jobs.claimDuration.startTimer();
  metrics.jobs.claimsWaiting.inc();
  try {
    const jobs = await pollForJobs(ctx, worker, request.maxJobs, Date.now() + request.waitSeconds * 1000, signal, request.completing);
    // A refused result started no claim.
    if (request.completing?.outcome?.ok === false) return jobs;
    const outcome = jobs.length > 0 ? "claimed" : "empty";
    metrics.jobs.claims.inc({ outcome });
    stopTimer({ outcome });
    // Measured from available_at (CONTRACT §6.3): a job set to run next week did not wait a week.
    for (const job of jobs) if (job.startedAt) metrics.jobs.queueWait.observe(Math.max(0, job.startedAt.getTime() - job.availableAt.getTime()) / 1000);
    return jobs;
  } finally {
    metrics.jobs.claimsWaiting.dec();
  }
}

/** The single-job form (POST /jobs/claim, and the claim of POST /jobs/{job_id}/complete-and-claim). */
export async function claimNextJob(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  waitSeconds: number,
  signal: AbortSignal,
  options: Pick<ClaimRequest, "completing"> = {},
): Promise<Job | null> {
  const [job] = await claimNextJobs(ctx, worker, { maxJobs: 1, waitSeconds, ...options }, signal);
  return job ?? null;
}

/**
 * The claims of one automation in this process take turns: PostgreSQL serialises them on the
 * automation row anyway, and a claim that looks after the previous one finished sees what that
 * one took (the ready set, `claimedBeingWithdrawn`, a claim now waiting for room) instead of
 * racing it into a claim for the same jobs. Waiting for a turn holds no connection.
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

async function pollForJobs(
  ctx: AppContext,
  worker: AuthenticatedWorker,
  maxJobs: number,
  deadline: number,
  signal: AbortSignal,
  completing: PendingCompletion | undefined,
): Promise<Job[]> {
  const { automationId } = worker;
  const freedSlot = completing !== undefined;
  const fence = { id: worker.id, automationId, attempt: completing?.attempt };
  /** Records the pending result on its own statement (a look that does not go to PostgreSQL). */
  const completeAlone = async () => {
    if (completing && !completing.outcome) completing.outcome = await jobs.complete(ctx.database.pool, completing.jobId, fence, completing.result);
  };
  let firstLook = true;
  // The wake-up a freed slot is owed unless this claim takes the slot at its first look.
  let owesSlotWake = freedSlot;
  const payOwedSlotWake = async () => {
    if (!owesSlotWake) return;
    owesSlotWake = false;
    await wakeClaims(ctx, automationId);
  };
  for (;;) {
    // A client that hung up gets nothing: a job claimed now would sit running until its lease lapsed.
    // Its result is recorded all the same, as POST /jobs/{job_id}/complete would record it.
    if (signal.aborted) {
      await completeAlone();
      if (completing?.outcome?.ok) await payOwedSlotWake();
      return [];
    }
    // Registered before looking, so a wake-up between the look and the wait is not lost.
    const waiter = ctx.dispatch.wakes.register(automationId);
    // A wake-up wakes one claim (WakeListener.wakeOne), so one that reached a claim which leaves
    // without using it is passed on; `passOn` is what the leaving claim owes the others, when it
    // decided (undefined: whatever wake-up reached it).
    let passOn: WakeReason | null | undefined;
    let leaving = true;
    try {
      const mayWait = deadline > Date.now();
      const { candidates, outcome, nothingOffered } = await inTurn(automationId, async (): Promise<Look> => {
        // A claim that may wait and arrives while another of this process waits for room queues
        // behind it without looking: its look could only find the limit full, or take the slot the
        // other is being woken for. Only the first look is skipped: re-checks always look, so a
        // lost wake-up still costs at most about twice WAKE_RECHECK_INTERVAL_MS.
        if (signal.aborted || (firstLook && !freedSlot && mayWait && ctx.dispatch.wakes.someoneWaitsForRoom(automationId))) {
          await completeAlone();
          return { candidates: [], outcome: { kind: "blocked" } };
        }
        const candidates = await readyCandidates(ctx, automationId, maxJobs + EXTRA_CANDIDATES);
        // Jobs this process just claimed may still sit in the ready set; on their own they are no reason to try.
        if (!candidates.some(({ id }) => !claimedBeingWithdrawn.has(id))) {
          await completeAlone();
          return { candidates, outcome: { kind: "none", slotsLeft: 0, staleIds: [] }, nothingOffered: true };
        }
        const request = { maxJobs, leaseSeconds: ctx.env.HUB_JOB_LEASE_SECONDS, candidateIds: candidates.map(({ id }) => id) };
        let claimed: jobs.ClaimOutcome;
        if (completing && !completing.outcome) {
          const both = await jobs.completeAndClaim(ctx.database.pool, completing.jobId, fence, completing.result, request);
          completing.outcome = both.completed;
          if (!both.claimed) return { candidates, outcome: { kind: "blocked" } };
          claimed = both.claimed;
        } else {
          claimed = await jobs.claim(ctx.database.pool, { automationId, workerId: worker.id, ...request });
        }
        ctx.metrics.jobs.claimStatements.inc({ outcome: claimed.kind });
        if (claimed.kind === "claimed") for (const job of claimed.jobs) claimedBeingWithdrawn.add(job.id);
        // Seen by the next claim's turn: it should queue behind this one rather than look.
        if (claimed.kind === "blocked") waiter.waitingForRoom();
        return { candidates, outcome: claimed };
      });
      firstLook = false;
      // A refused result freed no slot and starts no claim.
      if (completing?.outcome?.ok === false) return [];
      if (outcome.kind === "claimed") owesSlotWake = false;
      else await payOwedSlotWake();
      const staleOffers = (staleIds: string[]) => candidates.filter(({ id }) => staleIds.includes(id));
      switch (outcome.kind) {
        case "claimed": {
          const claimedIds = outcome.jobs.map((job) => job.id);
          try {
            await withdrawClaimed(ctx, automationId, outcome.jobs);
          } finally {
            for (const id of claimedIds) claimedBeingWithdrawn.delete(id);
          }
          if (outcome.staleIds.length > 0) await withdrawOffers(ctx, automationId, staleOffers(outcome.staleIds));
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
          if (outcome.staleIds.length > 0 && (await withdrawOffers(ctx, automationId, staleOffers(outcome.staleIds)))) {
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
      if (remainingMs <= 0 || ctx.dispatch.wakes.stopped || signal.aborted) return [];
      // A rate limit's window (CONTRACT §6.13) opens without any wake-up: look again when it does.
      const windowOpensInMs = outcome.kind === "blocked" && outcome.retryAfterMs !== undefined ? outcome.retryAfterMs + 1 : Infinity;
      // Until a wake-up, the deadline, the window, or this process's re-check (WakeListener.recheck) wakes it.
      await waiter.wait(Math.min(remainingMs, windowOpensInMs), signal, { roomOnly: outcome.kind === "blocked", offerOnly: nothingOffered === true });
      // The deadline passed with no wake-up: answer now, without one more look. Nothing told this
      // claim that anything changed; a wake-up that was lost is the re-check's to find, and the
      // worker's next claim looks first thing (issue 29: an idle long-poll's renewal read the ready
      // set twice).
      if (!waiter.wokenBy && !signal.aborted && deadline <= Date.now()) return [];
      leaving = signal.aborted;
    } finally {
      waiter.cancel();
      const owed = passOn === undefined ? waiter.wokenBy : passOn;
      if (leaving && owed) ctx.dispatch.wakes.wakeOne(automationId, owed);
    }
  }
}

/**
 * The first jobs offered to the automation, in claim order; bounded, so while Redis is away a claim
 * finds nothing and still answers 204 in time.
 */
async function readyCandidates(ctx: AppContext, automationId: string, count: number): Promise<ReadyJobKey[]> {
  try {
    return await settleWithin(ctx.dispatch.ready.candidates(automationId, count), READY_READ_TIMEOUT_MS);
  } catch (error) {
    ctx.logger.warn({ err: error, automationId }, "could not read ready jobs from Redis");
    return [];
  }
}
