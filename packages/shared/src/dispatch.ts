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

export { MicroBatcher, settleWithin, type MicroBatcherOptions } from "./micro-batcher";

export interface DispatchableJob {
  id: string;
  automationId: string;
  createdAt: Date;
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
    this.batcher = new MicroBatcher((jobs) => this.enqueue(jobs), () => this.connection.status === "ready", options);
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
    for (const automationId of automations) pipeline.publish(this.keys.wakeChannel, automationId);
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

  /** Tells waiting claims of these automations to try again (a slot was freed, a pause ended). */
  async wake(...automationIds: string[]): Promise<void> {
    const unique = [...new Set(automationIds)];
    if (unique.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const automationId of unique) pipeline.publish(this.keys.wakeChannel, automationId);
    await pipeline.exec();
  }
}

/**
 * One subscriber connection per process hands each wake-up to one long-polling claim waiting in
 * it, so waiting costs no Redis connection per automation or per request.
 */
export class WakeListener {
  private readonly waiters = new Map<string, Set<() => void>>();
  private isStopped = false;

  /** True once the process is shutting down: long-polls should answer now. */
  get stopped(): boolean {
    return this.isStopped;
  }

  constructor(
    private readonly subscriber: Redis,
    private readonly keys: RedisKeys,
  ) {
    subscriber.on("message", (channel: string, automationId: string) => {
      if (channel === this.keys.wakeChannel) this.wakeOne(automationId);
    });
  }

  /**
   * Wakes the longest-registered claim of the automation in this process. One per message, not
   * all: a message means "one more claim may now succeed" (a job offered, a slot freed), and
   * waking every waiting claim sent all but one of them into a transaction that could only find
   * nothing (measured: twice the CPU per job at half load, bench/README.md). The claim passes the
   * wake-up on when it leaves without looking again, or claimed while more jobs were ready.
   */
  wakeOne(automationId: string): void {
    const waiting = this.waiters.get(automationId);
    const first = waiting?.values().next();
    if (!waiting || !first || first.done) return;
    waiting.delete(first.value);
    if (waiting.size === 0) this.waiters.delete(automationId);
    first.value();
  }

  async start(): Promise<void> {
    await this.subscriber.subscribe(this.keys.wakeChannel);
  }

  /**
   * Registers interest in the automation *before* the caller checks for work, so a wake-up that
   * arrives between the check and the wait is not lost. Resolves on a wake-up, after `timeoutMs`,
   * or when `signal` aborts — whichever comes first.
   */
  register(automationId: string): { wait(timeoutMs: number, signal?: AbortSignal): Promise<void>; cancel(): void; readonly woken: boolean } {
    let woken = false;
    let resolveWait: (() => void) | undefined;
    const wake = () => {
      woken = true;
      resolveWait?.();
    };
    let set = this.waiters.get(automationId);
    if (!set) {
      set = new Set();
      this.waiters.set(automationId, set);
    }
    set.add(wake);
    const cancel = () => {
      const current = this.waiters.get(automationId);
      current?.delete(wake);
      if (current?.size === 0) this.waiters.delete(automationId);
    };
    return {
      cancel,
      /** True once a wake-up reached this registration. */
      get woken() {
        return woken;
      },
      wait: (timeoutMs, signal) =>
        new Promise<void>((resolve) => {
          if (woken || signal?.aborted || this.isStopped) {
            cancel();
            return resolve();
          }
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
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.waiters.clear();
    this.subscriber.disconnect();
  }
}
