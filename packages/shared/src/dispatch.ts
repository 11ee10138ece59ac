/**
 * The Redis side of dispatch ("PostgreSQL decides, Redis delivers"):
 *
 *   POST /jobs ──commit──▶ BullMQ `dispatch` queue of the automation's shard ──dispatcher──▶ ready set of the automation ──claim──▶ worker
 *
 * - Shards (HUB_DISPATCH_SHARDS, ./redis.ts redisKeys): an automation belongs to one; each shard has
 *   its own BullMQ queue and delayed set under its hash tag, so on a Redis Cluster the shards spread
 *   over the masters and every script or pipeline touches one slot. One shard on one server keeps
 *   the key names of before shards.
 *
 * - {@link DispatchQueue}: the API hands each committed job to an in-process {@link MicroBatcher},
 *   which every couple of milliseconds adds one BullMQ job carrying every job committed meanwhile
 *   (offering a job twice is harmless). The request never waits for Redis: PostgreSQL's commit is
 *   the acknowledgement.
 * - {@link ReadyJobs} (./ready-jobs.ts): per automation, a sorted set of the jobs the worker may
 *   claim, in claim order (priority, then `available_at`, then creation: ./claim-order.ts).
 *   Dispatchers fill it; claims read candidates from it and PostgreSQL decides (concurrency
 *   limit, development mode, job still queued and due).
 * - Delayed jobs: a job not due yet (`run_at` ahead, a retry back-off, CONTRACT §6.4, §6.8) waits in
 *   one sorted set scored by when it comes due, not in a ready set — where every claim would take it
 *   to PostgreSQL only to find it not due — and only once it is due within about a minute. Each
 *   dispatcher's one timer moves due jobs to their ready sets ({@link ReadyJobs.promoteDue});
 *   PostgreSQL still refuses any job before its `available_at`.
 * - Wake-ups: a message on one pub/sub channel names an automation whose claim may now succeed
 *   (a job was offered, a slot freed, development mode ended), so long-polling claims answer at once.
 *
 * Redis holds nothing that PostgreSQL cannot rebuild: when Redis lost its state, the dispatcher
 * re-offers every due queued job and puts back those due within the minute (see apps/dispatcher).
 */
import { Queue } from "bullmq";
import type { DispatchableJob } from "./claim-order";
import { MicroBatcher, type MicroBatcherOptions } from "./micro-batcher";
import { groupByShard, parseWakeMessage, type WakeReason } from "./ready-jobs";
import type { RedisConnection, RedisKeys } from "./redis";

export { MicroBatcher, type MicroBatcherOptions } from "./micro-batcher";
export { DELAYED_HOLD_MS, DELAYED_HORIZON_MS, parseWakeMessage, ReadyJobs, type AlongsideCommands, type WakeReason } from "./ready-jobs";
export { readyMember, readyScore, type DispatchableJob, type ReadyJobKey } from "./claim-order";

/**
 * Payload of a BullMQ dispatch job: the committed hub jobs it carries, as `[id, automationId,
 * availableAtMs, priority, seq]` (compact: one BullMQ job carries up to hundreds). Messages of older
 * API processes carry only the first three (the third then being the creation time).
 */
export interface DispatchPayload {
  jobs: Array<[id: string, automationId: string, availableAtMs: number, priority?: number, seq?: number]>;
}

/** The payload of a BullMQ dispatch job enqueued before batching: one hub job, whose id is the BullMQ job id. */
export interface SingleJobDispatchPayload {
  automationId: string;
  createdAtMs: number;
}

/**
 * The hub jobs a BullMQ dispatch job carries. Also reads the payloads of older API processes, so a
 * rolling upgrade loses no offer: their jobs had no `run_at` and come as priority 0 (`seq` 0, see
 * jobOfDelayedMember in ./claim-order.ts for what that costs).
 */
export function jobsOfDispatchPayload(bullJobId: string | undefined, payload: DispatchPayload | SingleJobDispatchPayload): DispatchableJob[] {
  if ("jobs" in payload) {
    return payload.jobs.map(([id, automationId, availableAtMs, priority, seq]) => ({
      id,
      automationId,
      seq: seq ?? 0,
      priority: priority ?? 0,
      availableAt: new Date(availableAtMs),
    }));
  }
  return bullJobId ? [{ id: bullJobId, automationId: payload.automationId, seq: 0, priority: 0, availableAt: new Date(payload.createdAtMs) }] : [];
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
  /** The BullMQ queue of each dispatch shard, by shard number. */
  readonly queues: ReadonlyArray<Queue<DispatchPayload>>;
  private readonly batcher: MicroBatcher<DispatchableJob>;

  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: RedisKeys,
    options: MicroBatcherOptions<DispatchableJob> = {},
  ) {
    this.queues = Array.from(
      { length: keys.shards },
      (_, shard) =>
        new Queue<DispatchPayload>(keys.dispatchQueue, {
          connection,
          prefix: keys.bullPrefix(shard),
          defaultJobOptions: {
            removeOnComplete: true,
            removeOnFail: 1000,
            attempts: 10,
            backoff: { type: "exponential", delay: 200 },
          },
        }),
    );
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

  /**
   * Enqueues committed jobs for dispatch now, each to its automation's shard, as few BullMQ jobs
   * as possible: one round trip per shard concerned.
   */
  async enqueue(jobs: DispatchableJob[]): Promise<void> {
    await Promise.all([...groupByShard(this.keys, jobs)].map(([shard, ofShard]) => this.enqueueToShard(shard, ofShard)));
  }

  private async enqueueToShard(shard: number, jobs: DispatchableJob[]): Promise<void> {
    const queue = this.queues[shard]!;
    const messages: Array<{ name: string; data: DispatchPayload }> = [];
    for (let start = 0; start < jobs.length; start += JOBS_PER_DISPATCH_MESSAGE) {
      const chunk = jobs.slice(start, start + JOBS_PER_DISPATCH_MESSAGE);
      messages.push({
        name: "offer",
        data: { jobs: chunk.map((job) => [job.id, job.automationId, job.availableAt.getTime(), job.priority, job.seq]) },
      });
    }
    if (messages.length === 1) await queue.add(messages[0]!.name, messages[0]!.data);
    else await queue.addBulk(messages);
  }

  /** Sends what is buffered (waiting at most `timeoutMs`), then closes the BullMQ queues. */
  async close(timeoutMs = 2000): Promise<void> {
    await this.batcher.close(timeoutMs);
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}

interface Waiter {
  /**
   * `looking`: registered, checking for work (may end up waiting for either kind);
   * `waitingForOffer`: found nothing offered that it could take (only a new job helps);
   * `waiting`: found offers it could not take (key values at their limit: a job or a slot helps);
   * `waitingForRoom`: found the automation blocked (limit full, paused).
   */
  state: "looking" | "waitingForOffer" | "waiting" | "waitingForRoom";
  /** When the claim registered, just before it last looked (ms since the epoch). */
  registeredAt: number;
  wake(reason: WakeReason): void;
}

/**
 * How often a process makes one waiting claim per automation look again when no wake-up came: a
 * wake-up lost (Redis pub/sub drops messages while a subscriber reconnects; a process that died
 * between its commit and its PUBLISH) costs at most about twice this (the claim must have waited
 * this long, and the re-check runs once an interval). One claim per automation, not every
 * waiting claim, and only where the automation's ready set holds jobs (a claim can only take an
 * offered job, so an empty ready set is nothing to look at): 64 idle long-polls cost one pipelined
 * read of the ready sets' sizes a second, and no timer runs while no claim waits.
 */
export const WAKE_RECHECK_INTERVAL_MS = 1000;

/** Which waiters a wake-up may go to, best first; a wake-up goes to none of the others. */
const WAKE_PREFERENCE: Record<WakeReason, ReadonlyArray<Waiter["state"]>> = {
  // Not to a claim waiting for an offer: it found nothing offered, and a freed slot offers nothing.
  // (At low load every completion's slot wake-up found only such claims, and sent one into a look
  // bound to find the ready set empty: one look per job, issue 29.)
  slot: ["waitingForRoom", "looking", "waiting"],
  offer: ["waitingForOffer", "waiting", "looking"],
};

/** A claim's registration for wake-ups of one automation (see {@link WakeListener.register}). */
export interface WakeRegistration {
  /**
   * Resolves on a wake-up, after `timeoutMs`, or when `signal` aborts. With `roomOnly`, offers
   * do not wake it: the claim found no room, so a new job alone would only send it into a claim
   * bound to find the limit full; the wake-up that frees room comes as a `slot` wake. With
   * `offerOnly`, slots do not: the claim found nothing offered that it could take, so only a new
   * offer (an `offer` wake, or the re-check) can help it.
   */
  wait(timeoutMs: number, signal?: AbortSignal, options?: { roomOnly?: boolean; offerOnly?: boolean }): Promise<void>;
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
 * it, so waiting costs no Redis connection per automation or per request. On a Redis Cluster the
 * subscriber listens on one node (PUBLISH reaches every node) and ioredis subscribes again on
 * reconnecting or when it moves to another node; a wake-up lost meanwhile costs a claim at most
 * the re-check of one of its claims within WAKE_RECHECK_INTERVAL_MS.
 */
export class WakeListener {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private isStopped = false;
  /** Armed while claims wait (see {@link recheck}). */
  private recheckTimer: NodeJS.Timeout | undefined;
  /** When each automation's claims were last made to look again (only automations with waiting claims). */
  private readonly recheckedAt = new Map<string, number>();

  /** True once the process is shutting down: long-polls should answer now. */
  get stopped(): boolean {
    return this.isStopped;
  }

  /**
   * @param countReady the sizes of the automations' ready sets, in order (ReadyJobs.counts); the
   *   re-check wakes a claim only where that is not 0. Without it (tests), every re-check wakes one.
   */
  constructor(
    private readonly subscriber: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly countReady?: (automationIds: string[]) => Promise<number[]>,
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

  /**
   * Wakes, in each automation, the claim that has waited longest without looking, when that is
   * {@link WAKE_RECHECK_INTERVAL_MS} or more, this automation was not re-checked within that time,
   * and its ready set is not empty (it looks again, as after a wake-up). Redis unreachable: no claim
   * could read the ready set either, so none is woken.
   */
  async recheck(now = Date.now()): Promise<void> {
    const due = new Map<string, Waiter>();
    for (const [automationId, waiting] of this.waiters) {
      if (now - (this.recheckedAt.get(automationId) ?? Number.NEGATIVE_INFINITY) < WAKE_RECHECK_INTERVAL_MS) continue;
      let oldest: Waiter | undefined;
      for (const waiter of waiting) {
        if (waiter.state !== "looking" && (!oldest || waiter.registeredAt < oldest.registeredAt)) oldest = waiter;
      }
      if (oldest && now - oldest.registeredAt >= WAKE_RECHECK_INTERVAL_MS) due.set(automationId, oldest);
    }
    for (const automationId of this.recheckedAt.keys()) if (!this.waiters.has(automationId)) this.recheckedAt.delete(automationId);
    if (due.size === 0) return;
    for (const automationId of due.keys()) this.recheckedAt.set(automationId, now);
    let counts: number[] | undefined;
    if (this.countReady) {
      try {
        counts = await this.countReady([...due.keys()]);
      } catch {
        return;
      }
    }
    let index = 0;
    for (const [automationId, oldest] of due) {
      const offered = counts === undefined || (counts[index] ?? 0) > 0;
      index += 1;
      // Still waiting: a wake-up may have reached it while the sizes were read.
      const waiting = this.waiters.get(automationId);
      if (!offered || !waiting?.has(oldest) || oldest.state === "looking") continue;
      waiting.delete(oldest);
      if (waiting.size === 0) this.waiters.delete(automationId);
      oldest.wake("slot");
    }
  }

  /**
   * Runs {@link recheck} every WAKE_RECHECK_INTERVAL_MS while any claim waits. Every interval, not
   * every half: each automation is re-checked at most once an interval anyway, so at half the pace
   * the automations fell into two alternating groups, and an idle process woke and read Redis
   * twice a second for what one read a second covers (issue 29). A claim is looked at after 1–2
   * intervals of waiting instead of 1–1.5.
   */
  private armRecheck(): void {
    if (this.recheckTimer || this.isStopped) return;
    this.recheckTimer = setTimeout(() => {
      void this.recheck().finally(() => {
        this.recheckTimer = undefined;
        if (this.waiters.size > 0) this.armRecheck();
      });
    }, WAKE_RECHECK_INTERVAL_MS);
    this.recheckTimer.unref();
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
      registeredAt: Date.now(),
      wake: (reason) => {
        wokenBy = reason;
        resolveWait?.();
      },
    };
    const enlist = () => {
      let set = this.waiters.get(automationId);
      if (!set) {
        set = new Set();
        this.waiters.set(automationId, set);
      }
      set.add(waiter);
      this.armRecheck();
    };
    enlist();
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
          // An offer that arrived while the claim looked and found no room cannot help it, nor any
          // other claim of the automation here: drop it and wait for room (measured: offers arriving
          // during each look chained one blocked claim statement per new job).
          if (options?.roomOnly && wokenBy === "offer") {
            wokenBy = null;
            enlist();
          }
          // Likewise a slot that freed while it looked and found nothing offered: it goes to the
          // claim it may help, if one is here now (slot wake-ups never go to claims waiting for an offer).
          let slotToPassOn = false;
          if (options?.offerOnly && !options.roomOnly && wokenBy === "slot") {
            wokenBy = null;
            enlist();
            slotToPassOn = true;
          }
          if (wokenBy || signal?.aborted || this.isStopped) {
            cancel();
            return resolve();
          }
          waiter.state = options?.roomOnly ? "waitingForRoom" : options?.offerOnly ? "waitingForOffer" : "waiting";
          if (slotToPassOn) this.wakeOne(automationId, "slot");
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
    clearTimeout(this.recheckTimer);
    for (const set of this.waiters.values()) for (const waiter of set) waiter.wake("slot");
    this.waiters.clear();
    this.subscriber.disconnect();
  }
}
