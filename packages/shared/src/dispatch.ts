/**
 * The Redis side of dispatch ("PostgreSQL decides, Redis delivers"):
 *
 *   POST /jobs ──commit──▶ BullMQ `dispatch` queue ──dispatcher──▶ ready set of the automation ──claim──▶ worker
 *
 * - {@link DispatchQueue}: the API enqueues each committed job into BullMQ with the job id as the
 *   BullMQ job id, so enqueueing twice is harmless.
 * - {@link ReadyJobs}: per automation, a sorted set of job ids the worker may claim, oldest first
 *   (scored by creation time). Dispatchers fill it; claims read candidates from it and PostgreSQL
 *   decides (concurrency limit, development mode, job still queued).
 * - Wake-ups: a message on one pub/sub channel names an automation whose claim may now succeed
 *   (a job was offered, a slot freed, development mode ended), so long-polling claims answer at once.
 *
 * Redis holds nothing that PostgreSQL cannot rebuild: the dispatcher's reconciler re-offers every
 * queued job when Redis lost its state (see apps/dispatcher).
 */
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import type { RedisKeys } from "./redis";

export interface DispatchableJob {
  id: string;
  automationId: string;
  createdAt: Date;
}

/** Payload of a BullMQ dispatch job. */
export interface DispatchPayload {
  automationId: string;
  createdAtMs: number;
}

export class DispatchQueue {
  readonly queue: Queue<DispatchPayload>;

  constructor(connection: Redis, keys: RedisKeys) {
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
  }

  /** Enqueues committed jobs for dispatch; idempotent per job id. */
  async enqueue(jobs: DispatchableJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map((job) => ({
        name: "offer",
        data: { automationId: job.automationId, createdAtMs: job.createdAt.getTime() },
        opts: { jobId: job.id },
      })),
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

export class ReadyJobs {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** Makes jobs claimable by their automation's worker and wakes waiting claims. Idempotent. */
  async offer(jobs: DispatchableJob[]): Promise<void> {
    if (jobs.length === 0) return;
    const pipeline = this.redis.pipeline();
    const automations = new Set<string>();
    for (const job of jobs) {
      pipeline.zadd(this.keys.readyJobs(job.automationId), "NX", job.createdAt.getTime(), job.id);
      automations.add(job.automationId);
    }
    for (const automationId of automations) pipeline.publish(this.keys.wakeChannel, wakeMessage("offer", automationId));
    await pipeline.exec();
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
    await this.redis.del(this.keys.readyJobs(automationId));
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
