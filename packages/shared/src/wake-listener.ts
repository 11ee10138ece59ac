/**
 * Wake-ups of long-polling claims: one subscriber connection per API process hands each wake-up
 * message (./ready-jobs.ts publishes them: `offer` when a job was offered, `slot` when a slot freed,
 * a limit rose or a pause ended) to one claim of the automation waiting in this process, so
 * waiting costs no Redis connection per automation or per request.
 *
 * Wake-ups only make claims fast; no claim depends on one arriving for its correctness. The rule
 * the claim loop (apps/api/src/worker-protocol/long-poll.ts) and this listener keep together:
 *
 *   Every registration is the start of a look. A claim registers just before it reads the ready
 *   set, so "the automation's last registration here" is "its last look here".
 *   No automation with a claim waiting here and a non-empty ready set goes longer than
 *   {@link WAKE_RECHECK_INTERVAL_MS} without a look: the re-check wakes one of its claims then.
 *
 * So a due job that PostgreSQL would hand out is looked at within about two intervals while any
 * claim of its automation is open, whatever wake-up was lost or went elsewhere; with no wake-up
 * lost it is looked at as soon as it is offered or its room appears (the model test of the long
 * poll checks both over random interleavings).
 *
 * On a Redis Cluster the subscriber listens on one node (PUBLISH reaches every node) and ioredis
 * subscribes again on reconnecting or when it moves to another node.
 */
import { parseWakeMessage, type WakeReason } from "./wake-messages";
import type { RedisConnection, RedisKeys } from "./redis";

interface Waiter {
  /**
   * `looking`: registered, checking for work (may end up waiting for either kind);
   * `waitingForOffer`: found nothing offered that it could take (only a new job helps);
   * `waiting`: found offers it could not take (key values at their limit: a job or a slot helps);
   * `waitingForRoom`: found the automation blocked (limit full, paused).
   */
  state: "looking" | "waitingForOffer" | "waiting" | "waitingForRoom";
  /** When the claim registered, just before it looked (ms since the epoch). */
  registeredAt: number;
  wake(reason: WakeReason): void;
}

/**
 * How often a process makes a claim of an automation look again when none of its claims here looked
 * for this long and its ready set is not empty (a lost wake-up: Redis pub/sub drops messages while
 * a subscriber reconnects; a process that died between its commit and its PUBLISH). A due job then
 * waits at most about twice this. No timer runs while no claim waits; 64 idle long-polls cost one
 * pipelined read of the ready sets' sizes a second at most.
 */
export const WAKE_RECHECK_INTERVAL_MS = 1000;

/**
 * Which waiters a wake-up may go to, best first; a wake-up goes to none of the others. A wake-up
 * that would be dropped costs nothing the re-check does not repair, and the senders publish both
 * reasons where both apply (a job queued again is an offer and a freed slot).
 */
const WAKE_PREFERENCE: Record<WakeReason, ReadonlyArray<Waiter["state"]>> = {
  // Not to a claim waiting for an offer: it found nothing offered, and a freed slot offers nothing
  // (at low load every completion's slot wake-up would send one into a look bound to find the
  // ready set empty: one look per job).
  slot: ["waitingForRoom", "looking", "waiting"],
  // Not to a claim waiting for room: a new job does not make room.
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
  /** The wake-up that reached this registration, if one did. */
  readonly wokenBy: WakeReason | null;
}

export class WakeListener {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private isStopped = false;
  /** Armed while claims wait (see {@link recheck}). */
  private recheckTimer: NodeJS.Timeout | undefined;
  /** When a claim of each automation last looked here (registered), for automations with waiting claims. */
  private readonly lastLookAt = new Map<string, number>();

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
   * can help (WAKE_PREFERENCE). One per message, not all: a message means "one more claim may now
   * succeed", and waking every waiting claim sent all but one of them into a claim that could only
   * find nothing (measured: twice the CPU per job at half load, bench/README.md). The claim passes
   * the wake-up on when it leaves without using it (apps/api/src/worker-protocol/long-poll.ts).
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
    this.take(automationId, chosen);
    chosen.wake(reason);
  }

  /**
   * Wakes, in each automation none of whose claims here looked within
   * {@link WAKE_RECHECK_INTERVAL_MS}, its longest-waiting claim when its ready set is not empty
   * (it looks again, as after a wake-up). Claims still looking are left alone. Redis unreachable:
   * no claim could read the ready set either, so none is woken.
   */
  async recheck(now = Date.now()): Promise<void> {
    const due = new Map<string, Waiter>();
    for (const [automationId, waiting] of this.waiters) {
      if (now - (this.lastLookAt.get(automationId) ?? Number.NEGATIVE_INFINITY) < WAKE_RECHECK_INTERVAL_MS) continue;
      let oldest: Waiter | undefined;
      for (const waiter of waiting) {
        if (waiter.state !== "looking" && (!oldest || waiter.registeredAt < oldest.registeredAt)) oldest = waiter;
      }
      if (oldest) due.set(automationId, oldest);
    }
    for (const automationId of this.lastLookAt.keys()) if (!this.waiters.has(automationId)) this.lastLookAt.delete(automationId);
    if (due.size === 0) return;
    // Counted as a look: the automation is not re-checked again within the interval, whatever the read finds.
    for (const automationId of due.keys()) this.lastLookAt.set(automationId, now);
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
      if (!offered || !this.waiters.get(automationId)?.has(oldest) || oldest.state === "looking") continue;
      this.take(automationId, oldest);
      oldest.wake("slot");
    }
  }

  private take(automationId: string, waiter: Waiter): void {
    const waiting = this.waiters.get(automationId);
    waiting?.delete(waiter);
    if (waiting?.size === 0) this.waiters.delete(automationId);
  }

  /**
   * Runs {@link recheck} every WAKE_RECHECK_INTERVAL_MS while any claim waits. Every interval, not
   * every half: each automation is re-checked at most once an interval anyway, and at half the
   * pace an idle process woke and read Redis twice a second for what one read a second covers.
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
   * Registers interest in the automation *before* the caller looks for work, so a wake-up that
   * arrives between the look and the wait is not lost (a registration that is not waiting yet
   * takes wake-ups of either kind). A registration is a look: call it only right before looking.
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
    this.lastLookAt.set(automationId, waiter.registeredAt);
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
    const cancel = () => this.take(automationId, waiter);
    return {
      cancel,
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
