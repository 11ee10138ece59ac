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
import { groupByShard } from "./ready-jobs";
import type { RedisConnection, RedisKeys } from "./redis";

export { MicroBatcher, type MicroBatcherOptions } from "./micro-batcher";
export { WAKE_RECHECK_INTERVAL_MS, WakeListener, type WakeRegistration } from "./wake-listener";
export { DELAYED_HOLD_MS, DELAYED_HORIZON_MS, parseWakeMessage, ReadyJobs, type AlongsideCommands, type WakeReason } from "./ready-jobs";
export { readyMember, readyScore, type DispatchableJob, type ReadyJobKey } from "./claim-order";

/**
 * Payload of a BullMQ dispatch job: the committed hub jobs it carries, as `[id, automationId,
 * availableAtMs, priority, seq, traceSampled]` (compact: one BullMQ job carries up to hundreds;
 * `traceSampled` 1 or 0 only when known: DispatchableJob.traceSampled). Messages of older API
 * processes carry only the first three (the third then being the creation time), or five.
 */
export interface DispatchPayload {
  jobs: Array<[id: string, automationId: string, availableAtMs: number, priority?: number, seq?: number, traceSampled?: 0 | 1]>;
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
    return payload.jobs.map(([id, automationId, availableAtMs, priority, seq, traceSampled]) => ({
      id,
      automationId,
      seq: seq ?? 0,
      priority: priority ?? 0,
      availableAt: new Date(availableAtMs),
      ...(traceSampled === undefined ? {} : { traceSampled: traceSampled === 1 }),
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
    this.batcher = new MicroBatcher(
      (jobs) => this.enqueue(jobs),
      () => this.connection.status === "ready",
      {
        maxLingerMs: DISPATCH_MAX_LINGER_MS,
        ...options,
      },
    );
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
        data: {
          jobs: chunk.map((job) =>
            job.traceSampled === undefined
              ? [job.id, job.automationId, job.availableAt.getTime(), job.priority, job.seq]
              : [job.id, job.automationId, job.availableAt.getTime(), job.priority, job.seq, job.traceSampled ? 1 : 0],
          ),
        },
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
