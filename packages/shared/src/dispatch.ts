/**
 * The Redis side of dispatch ("PostgreSQL decides, Redis delivers"):
 *
 *   POST /jobs ──commit──▶ BullMQ `dispatch` queue ──dispatcher──▶ ready set of the automation ──claim──▶ worker
 *
 * - {@link DispatchQueue}: the API hands each committed job to an in-process {@link MicroBatcher},
 *   which every couple of milliseconds adds one BullMQ job carrying every job committed meanwhile
 *   (offering a job twice is harmless). The request never waits for Redis: PostgreSQL's commit is
 *   the acknowledgement.
 * - {@link ReadyJobs}: per automation, a sorted set of job ids the worker may claim, oldest first
 *   (scored by creation time). Dispatchers fill it; claims read candidates from it and PostgreSQL
 *   decides (concurrency limit, development mode, job still queued).
 * - Delayed jobs: a job queued again after a failure waits out its back-off (CONTRACT §6.4) in one
 *   sorted set scored by when it comes due, not in a ready set — where every claim would take it to
 *   PostgreSQL only to find it not due. Each dispatcher's one timer moves due jobs to their ready sets
 *   ({@link ReadyJobs.promoteDue}); PostgreSQL still refuses any job before its `available_at`.
 * - Wake-ups: a message on one pub/sub channel names an automation whose claim may now succeed
 *   (a job was offered, a slot freed, development mode ended), so long-polling claims answer at once.
 *
 * Redis holds nothing that PostgreSQL cannot rebuild: the dispatcher's reconciler re-offers every
 * queued job when Redis lost its state (see apps/dispatcher).
 */
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { MicroBatcher, type MicroBatcherOptions } from "./micro-batcher";
import type { RedisKeys } from "./redis";

export { MicroBatcher, type MicroBatcherOptions } from "./micro-batcher";

export interface DispatchableJob {
  id: string;
  automationId: string;
  createdAt: Date;
  /** When it may be claimed; absent or past = now. Jobs due later wait in the delayed set. */
  availableAt?: Date | undefined;
}

/**
 * Payload of a BullMQ dispatch job: the committed hub jobs it carries, as
 * `[id, automationId, createdAtMs]` (compact: one BullMQ job carries up to hundreds).
 */
export interface DispatchPayload {
  jobs: Array<[id: string, automationId: string, createdAtMs: number]>;
}

/** The payload of a BullMQ dispatch job enqueued before batching: one hub job, whose id is the BullMQ job id. */
export interface SingleJobDispatchPayload {
  automationId: string;
  createdAtMs: number;
}

/**
 * The hub jobs a BullMQ dispatch job carries. Also reads the one-job payload of older API
 * processes, so a rolling upgrade loses no offer.
 */
export function jobsOfDispatchPayload(bullJobId: string | undefined, payload: DispatchPayload | SingleJobDispatchPayload): DispatchableJob[] {
  if ("jobs" in payload) return payload.jobs.map(([id, automationId, createdAtMs]) => ({ id, automationId, createdAt: new Date(createdAtMs) }));
  return bullJobId ? [{ id: bullJobId, automationId: payload.automationId, createdAt: new Date(payload.createdAtMs) }] : [];
}

/**
 * Longest a committed job waits in the API before its hand-off while the hand-offs cannot keep up
 * (adaptive linger, MicroBatcher `maxLingerMs`; 2 ms otherwise). A BullMQ message costs ~55 Redis
 * commands whatever it carries, so under load batches should grow; at half of peak the sends keep
 * up and the linger stays at 2 ms, keeping create→claim p50 well under 10 ms (bench/README.md).
 */
const DISPATCH_MAX_LINGER_MS = 8;

/** Most hub jobs one BullMQ dispatch job carries; a larger flush becomes several, added in one `addBulk`. */
const JOBS_PER_DISPATCH_MESSAGE = 500;

export class DispatchQueue {
  readonly queue: Queue<DispatchPayload>;
  private readonly batcher: MicroBatcher<DispatchableJob>;

  constructor(
    private readonly connection: Redis,
    keys: RedisKeys,
    options: MicroBatcherOptions<DispatchableJob> = {},
  ) {
    this.queue = new Queue<DispatchPayload>(keys.dispatchQueue, {
      connection,
      prefix: keys.bullPrefix,
      defaultJobOptions: {
        removeOnComplete: true,
        removeOnFail: 1000,
        attempts: 10,
        backoff: { type: "exponential", delay: 200 },
      },
    });
    // `this.enqueue` is looked up on every send, so a test may replace it on the instance.
    this.batcher = new MicroBatcher((jobs) => this.enqueue(jobs), () => this.connection.status === "ready", {
      maxLingerMs: DISPATCH_MAX_LINGER_MS,
      ...options,
    });
  }

  /**
   * Hands committed jobs to dispatch without waiting: they are sent with the jobs other requests
   * committed within the next few milliseconds, as one BullMQ job. Never throws or blocks; a job
   * lost here (Redis down long enough to fill the buffer, a crash) is offered by the dispatcher's
   * reconciler from PostgreSQL.
   */
  submit(jobs: DispatchableJob[]): void {
    this.batcher.add(jobs);
  }

  /** Jobs submitted and not yet sent. */
  get buffered(): number {
    return this.batcher.buffered;
  }

  /** Enqueues committed jobs for dispatch now, as few BullMQ jobs as possible, in one round trip. */
  async enqueue(jobs: DispatchableJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const messages: Array<{ name: string; data: DispatchPayload }> = [];
    for (let start = 0; start < jobs.length; start += JOBS_PER_DISPATCH_MESSAGE) {
      const chunk = jobs.slice(start, start + JOBS_PER_DISPATCH_MESSAGE);
      messages.push({ name: "offer", data: { jobs: chunk.map((job) => [job.id, job.automationId, job.createdAt.getTime()]) } });
    }
    if (messages.length === 1) await this.queue.add(messages[0]!.name, messages[0]!.data);
    else await this.queue.addBulk(messages);
  }

  /** Sends what is buffered (waiting at most `timeoutMs`), then closes the BullMQ queue. */
  async close(timeoutMs = 2000): Promise<void> {
    await this.batcher.close(timeoutMs);
    await this.queue.close();
  }
}

/** How long a claimed id stays refused by {@link ReadyJobs.offer}: longer than any offer can lag its claim. */
const CLAIMED_MEMORY_MS = 60_000;

/**
 * KEYS: ready set, claimed ids; ARGV: wake channel, wake message, "1" to offer even recently
 * claimed ids (they were queued again), then score/id pairs. Adds the ids not recently claimed and
 * wakes one claim when it added any.
 */
const OFFER_SCRIPT = `
local added = 0
for i = 4, #ARGV, 2 do
  if ARGV[3] == '1' then redis.call('ZREM', KEYS[2], ARGV[i + 1]) end
  if not redis.call('ZSCORE', KEYS[2], ARGV[i + 1]) then
    added = added + redis.call('ZADD', KEYS[1], 'NX', ARGV[i], ARGV[i + 1])
  end
end
if added > 0 then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return added`;

/**
 * KEYS: ready set, claimed ids; ARGV: now (ms), memory (ms), "1" to forget ids older than the
 * memory, then ids. Withdraws the ids and remembers them.
 */
const CLAIMED_SCRIPT = `
for i = 4, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZADD', KEYS[2], ARGV[1], ARGV[i])
end
if ARGV[3] == '1' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1] - ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return 0`;

/**
 * KEYS: delayed set; ARGV: now (ms), most to move. Removes and returns the members due by now,
 * earliest first: whoever removed a member offers it (one dispatcher per job, however many run).
 */
const TAKE_DUE_SCRIPT = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
return due`;

/** A delayed-set member: enough to offer the job once it is due. */
function delayedMember(job: DispatchableJob): string {
  return `${job.automationId}|${job.id}|${job.createdAt.getTime()}`;
}

function jobOfDelayedMember(member: string): DispatchableJob | undefined {
  const [automationId, id, createdAtMs] = member.split("|");
  if (!automationId || !id || !createdAtMs) return undefined;
  return { id, automationId, createdAt: new Date(Number(createdAtMs)) };
}

/** How often one process trims an automation's claimed ids (two Redis commands) rather than on every claim. */
const CLAIMED_TRIM_INTERVAL_MS = 1000;

/** The two scripts, defined on the connection once (ioredis sends EVALSHA, falling back to EVAL). */
interface ReadyScripts {
  hubOfferJobs(readyKey: string, claimedKey: string, ...args: Array<string | number>): Promise<number>;
  hubMarkClaimed(readyKey: string, claimedKey: string, ...args: Array<string | number>): Promise<number>;
  hubTakeDueJobs(delayedKey: string, now: number, max: number): Promise<string[]>;
}

function groupByAutomation(jobs: DispatchableJob[]): Map<string, DispatchableJob[]> {
  const byAutomation = new Map<string, DispatchableJob[]>();
  for (const job of jobs) {
    const ofAutomation = byAutomation.get(job.automationId);
    if (ofAutomation) ofAutomation.push(job);
    else byAutomation.set(job.automationId, [job]);
  }
  return byAutomation;
}

export class ReadyJobs {
  private readonly scripts: ReadyScripts;
  /** When this process last trimmed each automation's claimed ids. */
  private readonly lastTrimAt = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    redis.defineCommand("hubOfferJobs", { numberOfKeys: 2, lua: OFFER_SCRIPT });
    redis.defineCommand("hubMarkClaimed", { numberOfKeys: 2, lua: CLAIMED_SCRIPT });
    redis.defineCommand("hubTakeDueJobs", { numberOfKeys: 1, lua: TAKE_DUE_SCRIPT });
    this.scripts = redis as unknown as ReadyScripts;
  }

  /** Claimed ids, remembered for a while so that a late offer of a claimed job is dropped. */
  private claimedKey(automationId: string): string {
    return `${this.keys.readyJobs(automationId)}:claimed`;
  }

  /**
   * Makes jobs claimable by their automation's worker and wakes a waiting claim. Idempotent.
   * Claims pick jobs from PostgreSQL in claim order, so a job may be claimed before its offer
   * arrives: ids claimed in the last minute ({@link markClaimed}) are not added, else each would
   * send a claim into PostgreSQL for nothing.
   */
  async offer(jobs: DispatchableJob[]): Promise<void> {
    await this.offerByAutomation(jobs, "offer", false);
  }

  /**
   * Makes jobs that PostgreSQL shows queued claimable even if they were claimed before: jobs
   * queued again (retry, lapsed lease, unregistered worker: `slot`, the wake-up for the slot they
   * freed) or re-offered by the reconciler (`offer`), which repairs any signal that was lost.
   * Jobs whose `availableAt` is still ahead go to the delayed set instead (their automations'
   * claims are still woken once for the slot they freed); {@link promoteDue} offers them when due.
   */
  async offerAgain(jobs: DispatchableJob[], reason: WakeReason = "slot"): Promise<void> {
    const now = Date.now();
    const due = jobs.filter((job) => !job.availableAt || job.availableAt.getTime() <= now);
    const later = jobs.filter((job) => job.availableAt && job.availableAt.getTime() > now);
    if (later.length > 0) {
      const pipeline = this.redis.pipeline();
      // Back-off never moves a job earlier, so a later score replaces the one a lost signal left.
      pipeline.zadd(this.keys.delayedJobs, ...later.flatMap((job) => [job.availableAt!.getTime(), delayedMember(job)]));
      const dueAutomations = new Set(due.map((job) => job.automationId));
      if (reason === "slot") {
        for (const automationId of new Set(later.map((job) => job.automationId))) {
          if (!dueAutomations.has(automationId)) pipeline.publish(this.keys.wakeChannel, wakeMessage("slot", automationId));
        }
      }
      await pipeline.exec();
    }
    await this.offerByAutomation(due, reason, true);
  }

  /**
   * Moves up to `max` delayed jobs that are due by now to their ready sets and wakes their claims;
   * returns how many. Safe with any number of dispatchers (each member is taken once); a crash
   * between taking and offering loses nothing that the reconciler does not offer again.
   */
  async promoteDue(max = 1000): Promise<number> {
    const members = await this.scripts.hubTakeDueJobs(this.keys.delayedJobs, Date.now(), max);
    const due = members.map(jobOfDelayedMember).filter((job): job is DispatchableJob => job !== undefined);
    await this.offerByAutomation(due, "offer", true);
    return due.length;
  }

  /** When the earliest delayed job comes due (ms since the epoch), or null when none waits. */
  async nextDueAt(): Promise<number | null> {
    const [, score] = await this.redis.zrange(this.keys.delayedJobs, 0, 0, "WITHSCORES");
    return score === undefined ? null : Number(score);
  }

  /** One script call per automation, in one pipeline. */
  private async offerByAutomation(jobs: DispatchableJob[], reason: WakeReason, evenIfClaimed = false): Promise<void> {
    if (jobs.length === 0) return;
    const pipeline = this.redis.pipeline() as unknown as ReadyScripts & { exec(): Promise<unknown> };
    const queuedAgain = evenIfClaimed ? "1" : "0";
    for (const [automationId, ofAutomation] of groupByAutomation(jobs)) {
      const pairs = ofAutomation.flatMap((job) => [job.createdAt.getTime(), job.id]);
      void pipeline.hubOfferJobs(
        this.keys.readyJobs(automationId),
        this.claimedKey(automationId),
        this.keys.wakeChannel,
        wakeMessage(reason, automationId),
        queuedAgain,
        ...pairs,
      );
    }
    await pipeline.exec();
  }

  /** Withdraws claimed jobs and remembers them, so a late offer does not bring them back. */
  async markClaimed(automationId: string, jobIds: string[]): Promise<void> {
    if (jobIds.length === 0) return;
    const now = Date.now();
    // The first claim of an automation in this process trims, so the key always gets its expiry.
    const trim = now - (this.lastTrimAt.get(automationId) ?? 0) >= CLAIMED_TRIM_INTERVAL_MS;
    if (trim) this.lastTrimAt.set(automationId, now);
    await this.scripts.hubMarkClaimed(this.keys.readyJobs(automationId), this.claimedKey(automationId), now, CLAIMED_MEMORY_MS, trim ? "1" : "0", ...jobIds);
  }

  /** The oldest `count` job ids offered to the automation. */
  async candidates(automationId: string, count: number): Promise<string[]> {
    return this.redis.zrange(this.keys.readyJobs(automationId), 0, count - 1);
  }

  /** Drops ids that were claimed or are no longer queued. */
  async remove(automationId: string, jobIds: string[]): Promise<void> {
    if (jobIds.length > 0) await this.redis.zrem(this.keys.readyJobs(automationId), ...jobIds);
  }

  /** Forgets every offer of an automation (it was deactivated). */
  async clear(automationId: string): Promise<void> {
    await this.redis.del(this.keys.readyJobs(automationId), this.claimedKey(automationId));
  }

  /**
   * Tells waiting claims that a claim may now find room (a slot was freed, a limit raised, a pause
   * ended): one wake-up per id given, each waking one claim, so name an automation once per slot.
   */
  async wake(...automationIds: string[]): Promise<void> {
    if (automationIds.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const automationId of automationIds) pipeline.publish(this.keys.wakeChannel, wakeMessage("slot", automationId));
    await pipeline.exec();
  }
}

/**
 * Why a claim may now succeed: `offer` — a job became claimable; `slot` — room appeared (a slot
 * freed, a limit raised, a pause ended).
 */
export type WakeReason = "offer" | "slot";

const SLOT_WAKE_PREFIX = "slot:";

/** The pub/sub message for a wake-up; an offer is the bare automation id. */
function wakeMessage(reason: WakeReason, automationId: string): string {
  switch (reason) {
    case "offer":
      return automationId;
    case "slot":
      return SLOT_WAKE_PREFIX + automationId;
    default: {
      const exhaustive: never = reason;
      throw new Error(`unknown wake reason ${String(exhaustive)}`);
    }
  }
}

/** Reads a wake-up message: which automation, and why. */
export function parseWakeMessage(message: string): { automationId: string; reason: WakeReason } {
  return message.startsWith(SLOT_WAKE_PREFIX)
    ? { automationId: message.slice(SLOT_WAKE_PREFIX.length), reason: "slot" }
    : { automationId: message, reason: "offer" };
}

interface Waiter {
  /**
   * `looking`: registered, checking for work (may end up waiting for either kind); `waiting`:
   * found nothing ready; `waitingForRoom`: found the automation blocked (limit full, paused).
   */
  state: "looking" | "waiting" | "waitingForRoom";
  wake(reason: WakeReason): void;
}

/** Which waiters a wake-up may go to, best first; a wake-up goes to none of the others. */
const WAKE_PREFERENCE: Record<WakeReason, ReadonlyArray<Waiter["state"]>> = {
  slot: ["waitingForRoom", "looking", "waiting"],
  offer: ["waiting", "looking"],
};

/** A claim's registration for wake-ups of one automation (see {@link WakeListener.register}). */
export interface WakeRegistration {
  /**
   * Resolves on a wake-up, after `timeoutMs`, or when `signal` aborts. With `roomOnly`, offers
   * do not wake it: the claim found no room, so a new job alone would only send it into a claim
   * bound to find the limit full; the wake-up that frees room comes as a `slot` wake.
   */
  wait(timeoutMs: number, signal?: AbortSignal, options?: { roomOnly?: boolean }): Promise<void>;
  cancel(): void;
  /**
   * Marks the claim as waiting for room before it calls `wait`: it found no room, and claims
   * arriving meanwhile should see it (WakeListener.someoneWaitsForRoom).
   */
  waitingForRoom(): void;
  /** The wake-up that reached this registration, if one did. */
  readonly wokenBy: WakeReason | null;
}

/**
 * One subscriber connection per process hands each wake-up to one long-polling claim waiting in
 * it, so waiting costs no Redis connection per automation or per request.
 */
export class WakeListener {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private isStopped = false;

  /** True once the process is shutting down: long-polls should answer now. */
  get stopped(): boolean {
    return this.isStopped;
  }

  constructor(
    private readonly subscriber: Redis,
    private readonly keys: RedisKeys,
  ) {
    subscriber.on("message", (channel: string, message: string) => {
      if (channel !== this.keys.wakeChannel) return;
      const { automationId, reason } = parseWakeMessage(message);
      this.wakeOne(automationId, reason);
    });
  }

  /**
   * Wakes one claim of the automation in this process, the longest-registered that the wake-up
   * can help. One per message, not all: a message means "one more claim may now succeed", and
   * waking every waiting claim sent all but one of them into a claim that could only find nothing
   * (measured: twice the CPU per job at half load, bench/README.md). A `slot` wake goes first to
   * a claim waiting for room, then to one still looking (its look may have missed the room), then
   * to any; an `offer` wake never to a claim waiting for room — those get their own wake-up when
   * room appears. The claim passes the wake-up on when it leaves without using it (see
   * apps/api/src/jobs/claim.ts).
   */
  wakeOne(automationId: string, reason: WakeReason = "slot"): void {
    const waiting = this.waiters.get(automationId);
    if (!waiting) return;
    let chosen: Waiter | undefined;
    for (const state of WAKE_PREFERENCE[reason]) {
      for (const waiter of waiting) {
        if (waiter.state === state) {
          chosen = waiter;
          break;
        }
      }
      if (chosen) break;
    }
    if (!chosen) return;
    waiting.delete(chosen);
    if (waiting.size === 0) this.waiters.delete(automationId);
    chosen.wake(reason);
  }

  /**
   * True when a claim of the automation in this process is already waiting for room: a claim
   * arriving now would find the limit as full as it did, and the room that appears is that claim's
   * first (wake-ups go to the longest waiting).
   */
  someoneWaitsForRoom(automationId: string): boolean {
    for (const waiter of this.waiters.get(automationId) ?? []) if (waiter.state === "waitingForRoom") return true;
    return false;
  }

  async start(): Promise<void> {
    await this.subscriber.subscribe(this.keys.wakeChannel);
  }

  /**
   * Registers interest in the automation *before* the caller checks for work, so a wake-up that
   * arrives between the check and the wait is not lost (a registration that is not waiting yet
   * takes wake-ups of either kind).
   */
  register(automationId: string): WakeRegistration {
    let wokenBy: WakeReason | null = null;
    let resolveWait: (() => void) | undefined;
    const waiter: Waiter = {
      state: "looking",
      wake: (reason) => {
        wokenBy = reason;
        resolveWait?.();
      },
    };
    let set = this.waiters.get(automationId);
    if (!set) {
      set = new Set();
      this.waiters.set(automationId, set);
    }
    set.add(waiter);
    const cancel = () => {
      const current = this.waiters.get(automationId);
      current?.delete(waiter);
      if (current?.size === 0) this.waiters.delete(automationId);
    };
    return {
      cancel,
      waitingForRoom: () => {
        waiter.state = "waitingForRoom";
      },
      get wokenBy() {
        return wokenBy;
      },
      wait: (timeoutMs, signal, options) =>
        new Promise<void>((resolve) => {
          if (wokenBy || signal?.aborted || this.isStopped) {
            cancel();
            return resolve();
          }
          waiter.state = options?.roomOnly ? "waitingForRoom" : "waiting";
          const finish = () => {
            clearTimeout(timer);
            signal?.removeEventListener("abort", finish);
            cancel();
            resolve();
          };
          const timer = setTimeout(finish, timeoutMs);
          resolveWait = finish;
          signal?.addEventListener("abort", finish, { once: true });
        }),
    };
  }

  async stop(): Promise<void> {
    this.isStopped = true;
    for (const set of this.waiters.values()) for (const waiter of set) waiter.wake("slot");
    this.waiters.clear();
    this.subscriber.disconnect();
  }
}
