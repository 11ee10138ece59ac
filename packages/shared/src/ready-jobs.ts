/**
 * The Redis structures a claim reads (see ./dispatch.ts for the whole flow):
 *
 * - per automation, a ready set: the jobs its worker may claim now, in claim order (CONTRACT §6.8;
 *   score and member in ./claim-order.ts). Claims read candidates from it and PostgreSQL decides
 *   (concurrency limit, development mode, job still queued, `available_at` come);
 * - per dispatch shard (./redis.ts, redisKeys), one delayed set: queued jobs not due yet (a
 *   `run_at` ahead, a retry back-off), scored by when they come due. It holds only jobs due within
 *   {@link DELAYED_HOLD_MS}: a job due next week costs Redis nothing until it nears, when a
 *   dispatcher's horizon pass brings it in from PostgreSQL. Each dispatcher's one timer moves due
 *   jobs to their ready sets ({@link ReadyJobs.promoteDue});
 * - wake-ups: a message on one pub/sub channel names an automation whose claim may now succeed.
 */
import { delayedMember, jobOfDelayedMember, readyKeyOfMember, readyMember, readyScore, type DispatchableJob, type ReadyJobKey } from "./claim-order";
import { CLAIMED_MEMORY_MS, CLAIMED_SCRIPT, DELAY_SCRIPT, OFFER_SCRIPT, RESCHEDULE_SCRIPT, TAKE_DUE_SCRIPT, type ReadyScripts } from "./ready-jobs.scripts";
import type { RedisConnection, RedisKeys } from "./redis";
import { wakeMessage, type WakeReason } from "./wake-messages";

export { parseWakeMessage, type WakeReason } from "./wake-messages";

/**
 * How far ahead the dispatchers' horizon pass brings queued jobs from PostgreSQL into the delayed
 * set (PostgreSQL's clock).
 */
export const DELAYED_HORIZON_MS = 60_000;

/**
 * Jobs due within this time of this process's clock go to the delayed set when offered; later
 * ones are left to the horizon pass. Longer than {@link DELAYED_HORIZON_MS}, so a job created
 * just after a pass, inside the window that pass covered, is held even when this host's clock is
 * up to 10 s behind PostgreSQL's.
 */
export const DELAYED_HOLD_MS = DELAYED_HORIZON_MS + 10_000;

/** How often one process trims an automation's claimed ids (two Redis commands) rather than on every claim. */
const CLAIMED_TRIM_INTERVAL_MS = 1000;

/** Where an offered job goes: its ready set (due), the delayed set (due soon), or nowhere yet (later). */
type Placement = "ready" | "delayed" | "later";

/**
 * Commands sent in the same round trip as an offer, on the pipeline of the offer's dispatch shard
 * `shard` (their keys must share its slot); sent only when the offer has due jobs of that shard.
 * The dispatcher uses it to clear BullMQ's wake-up marker along with each message's offer.
 */
export interface AlongsideCommands {
  shard: number;
  add: (pipeline: ChainablePipeline) => void;
}

/** What {@link AlongsideCommands} may add to: an ioredis pipeline. */
export type ChainablePipeline = ReturnType<RedisConnection["pipeline"]>;

/** Jobs grouped by a key of theirs, in first-seen order. */
function groupBy<K>(jobs: DispatchableJob[], keyOf: (job: DispatchableJob) => K): Map<K, DispatchableJob[]> {
  const groups = new Map<K, DispatchableJob[]>();
  for (const job of jobs) {
    const key = keyOf(job);
    const group = groups.get(key);
    if (group) group.push(job);
    else groups.set(key, [job]);
  }
  return groups;
}

function groupByAutomation(jobs: DispatchableJob[]): Map<string, DispatchableJob[]> {
  return groupBy(jobs, (job) => job.automationId);
}

/**
 * Jobs grouped by their automation's dispatch shard: a shard's keys share one cluster slot, so each
 * group can go in one pipeline or one BullMQ message. One shard: every job in shard 0, as it is.
 */
export function groupByShard(keys: RedisKeys, jobs: DispatchableJob[]): Map<number, DispatchableJob[]> {
  if (keys.shards === 1) return new Map(jobs.length > 0 ? [[0, jobs]] : []);
  return groupBy(jobs, (job) => keys.shardOf(job.automationId));
}

export class ReadyJobs {
  private readonly scripts: ReadyScripts;
  /** When this process last trimmed each automation's claimed ids. */
  private readonly lastTrimAt = new Map<string, number>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: RedisKeys,
  ) {
    redis.defineCommand("hubOfferJobs", { numberOfKeys: 2, lua: OFFER_SCRIPT });
    redis.defineCommand("hubMarkClaimed", { numberOfKeys: 2, lua: CLAIMED_SCRIPT });
    redis.defineCommand("hubTakeDueJobs", { numberOfKeys: 1, lua: TAKE_DUE_SCRIPT });
    redis.defineCommand("hubDelayJobs", { numberOfKeys: 1, lua: DELAY_SCRIPT });
    redis.defineCommand("hubRescheduleJob", { numberOfKeys: 3, lua: RESCHEDULE_SCRIPT });
    this.scripts = redis as unknown as ReadyScripts;
  }

  /** Claimed ids, remembered for a while so that a late offer of a claimed job is dropped. */
  private claimedKey(automationId: string): string {
    return this.keys.claimedJobs(automationId);
  }

  /** The delayed set of the automation's dispatch shard. */
  private delayedKeyOf(automationId: string): string {
    return this.keys.delayedJobs(this.keys.shardOf(automationId));
  }

  /** Where a job goes by this process's clock (PostgreSQL still refuses it before its `available_at`). */
  private placementOf(job: DispatchableJob, now: number): Placement {
    const dueInMs = job.availableAt.getTime() - now;
    if (dueInMs <= 0) return "ready";
    return dueInMs <= DELAYED_HOLD_MS ? "delayed" : "later";
  }

  /**
   * Makes new jobs claimable by their automation's worker and wakes a waiting claim; jobs not due
   * yet go to the delayed set, or wait in PostgreSQL for the horizon pass when due later than
   * {@link DELAYED_HOLD_MS}. Idempotent. Claims pick jobs from PostgreSQL in claim order, so a job
   * may be claimed before its offer arrives: ids claimed in the last minute ({@link markClaimed})
   * are not added, else each would send a claim into PostgreSQL for nothing.
   */
  async offer(jobs: DispatchableJob[], alongside?: AlongsideCommands): Promise<void> {
    await this.place(jobs, "offer", false, alongside);
  }

  /**
   * Makes jobs that PostgreSQL shows queued claimable even if they were claimed before: jobs
   * queued again (retry, lapsed lease, unregistered worker: `slot`, the wake-up for the slot they
   * freed, sent with the `offer` of the jobs) or re-offered (`offer`). Jobs not due yet are placed
   * as {@link offer} places them (their automations' claims are still woken once for the slot they
   * freed).
   */
  async offerAgain(jobs: DispatchableJob[], reason: WakeReason = "slot"): Promise<void> {
    await this.place(jobs, reason, true);
  }

  /**
   * Offers jobs PostgreSQL found due (the reconciler), even if claimed before, whatever this
   * process's clock says: a host clock behind PostgreSQL's must not hold a due job back.
   */
  async offerDue(jobs: DispatchableJob[]): Promise<void> {
    await this.offerByAutomation(jobs, "offer", true);
  }

  /** Puts jobs PostgreSQL found coming due (the horizon pass) in their shards' delayed sets, whatever their time. */
  async holdUntilDue(jobs: DispatchableJob[]): Promise<void> {
    await Promise.all(
      [...groupByShard(this.keys, jobs)].map(([shard, ofShard]) => this.scripts.hubDelayJobs(this.keys.delayedJobs(shard), ...this.delayArgs(ofShard))),
    );
  }

  private async place(jobs: DispatchableJob[], reason: WakeReason, evenIfClaimed: boolean, alongside?: AlongsideCommands): Promise<void> {
    const now = Date.now();
    const due: DispatchableJob[] = [];
    const delayed: DispatchableJob[] = [];
    const notDueAutomations = new Set<string>();
    for (const job of jobs) {
      const placement = this.placementOf(job, now);
      if (placement === "ready") {
        due.push(job);
        continue;
      }
      if (placement === "delayed") delayed.push(job);
      notDueAutomations.add(job.automationId);
    }
    const dueAutomations = new Set(due.map((job) => job.automationId));
    const slotWakes = reason === "slot" ? [...notDueAutomations].filter((automationId) => !dueAutomations.has(automationId)) : [];
    if (delayed.length > 0 || slotWakes.length > 0) {
      // One pipeline per shard (its keys share a slot); the wake-ups, which touch no key, ride on
      // the first, so one shard costs one round trip as before shards.
      const pipelines = [...groupByShard(this.keys, delayed)].map(([shard, ofShard]) => {
        // Back-off never moves a job earlier, so a later score replaces the one a lost signal left
        // (a reschedule, which may, removes the old entry itself).
        const pipeline = this.redis.pipeline();
        void (pipeline as unknown as ReadyScripts).hubDelayJobs(this.keys.delayedJobs(shard), ...this.delayArgs(ofShard));
        return pipeline;
      });
      if (slotWakes.length > 0) {
        const withWakes = pipelines[0] ?? this.redis.pipeline();
        for (const automationId of slotWakes) withWakes.publish(this.keys.wakeChannel, wakeMessage("slot", automationId));
        if (pipelines.length === 0) pipelines.push(withWakes);
      }
      await Promise.all(pipelines.map((pipeline) => pipeline.exec()));
    }
    await this.offerByAutomation(due, reason, evenIfClaimed, alongside);
  }

  /** The delayed script's arguments: the channel, then score/member pairs. */
  private delayArgs(jobs: DispatchableJob[]): Array<string | number> {
    return [this.keys.delayedChannel, ...jobs.flatMap((job) => [job.availableAt.getTime(), delayedMember(job)])];
  }

  /**
   * Moves up to `max` delayed jobs of a dispatch shard that are due by now to their ready sets and
   * wakes their claims; returns how many, and when the earliest job left comes due (ms since the
   * epoch; null when none is left). Safe with any number of dispatchers (each member is taken
   * once); a crash between taking and offering loses nothing that the reconciler does not offer
   * again. Whoever puts a job earlier than that time in the set publishes on `delayedChannel`.
   */
  async promoteDue(shard: number, max = 1000): Promise<{ promoted: number; nextDueAt: number | null }> {
    const [taken, next] = await this.scripts.hubTakeDueJobs(this.keys.delayedJobs(shard), Date.now(), max);
    const due: DispatchableJob[] = [];
    for (let index = 0; index + 1 < taken.length; index += 2) {
      const job = jobOfDelayedMember(taken[index]!, Number(taken[index + 1]));
      if (job) due.push(job);
    }
    await this.offerByAutomation(due, "offer", true);
    return { promoted: taken.length / 2, nextDueAt: next === null ? null : Number(next) };
  }

  /**
   * A queued job's priority or `available_at` changed (POST /jobs/{id}/reschedule): it leaves the
   * ready and delayed sets and goes where `current` says — its ready set at its new place (waking a
   * claim), the delayed set, or neither until the horizon pass finds it. `previous` names the
   * delayed entry it may have had.
   */
  async reschedule(previous: DispatchableJob, current: DispatchableJob): Promise<void> {
    const placement = this.placementOf(current, Date.now());
    const score = placement === "ready" ? readyScore(current) : current.availableAt.getTime();
    await this.scripts.hubRescheduleJob(
      this.keys.readyJobs(current.automationId),
      this.claimedKey(current.automationId),
      this.delayedKeyOf(current.automationId),
      this.keys.delayedChannel,
      readyMember(current),
      delayedMember(previous),
      placement,
      score,
      delayedMember(current),
      this.keys.wakeChannel,
      wakeMessage("offer", current.automationId),
    );
  }

  /** One script call per automation, in one pipeline per dispatch shard (one pipeline with one shard). */
  private async offerByAutomation(jobs: DispatchableJob[], reason: WakeReason, evenIfClaimed: boolean, alongside?: AlongsideCommands): Promise<void> {
    await Promise.all(
      [...groupByShard(this.keys, jobs)].map(([shard, ofShard]) =>
        this.offerInOnePipeline(ofShard, reason, evenIfClaimed, alongside?.shard === shard ? alongside.add : undefined),
      ),
    );
  }

  private async offerInOnePipeline(jobs: DispatchableJob[], reason: WakeReason, evenIfClaimed: boolean, alongside?: AlongsideCommands["add"]): Promise<void> {
    const redisPipeline = this.redis.pipeline();
    alongside?.(redisPipeline);
    const pipeline = redisPipeline as unknown as ReadyScripts & { exec(): Promise<unknown> };
    const queuedAgain = evenIfClaimed ? "1" : "0";
    for (const [automationId, ofAutomation] of groupByAutomation(jobs)) {
      const pairs = ofAutomation.flatMap((job) => [readyScore(job), readyMember(job)]);
      // Offered jobs wake a claim with `offer`; jobs queued again also freed the slots they ran in,
      // which claims waiting for room need, and which never wake a claim waiting for an offer: both.
      void pipeline.hubOfferJobs(
        this.keys.readyJobs(automationId),
        this.claimedKey(automationId),
        this.keys.wakeChannel,
        wakeMessage("offer", automationId),
        queuedAgain,
        ...pairs,
      );
      if (reason === "slot") redisPipeline.publish(this.keys.wakeChannel, wakeMessage("slot", automationId));
    }
    await pipeline.exec();
  }

  /** Withdraws claimed jobs and remembers them, so a late offer does not bring them back. */
  async markClaimed(automationId: string, jobs: readonly ReadyJobKey[]): Promise<void> {
    if (jobs.length === 0) return;
    const now = Date.now();
    // The first claim of an automation in this process trims, so the key always gets its expiry.
    const trim = now - (this.lastTrimAt.get(automationId) ?? 0) >= CLAIMED_TRIM_INTERVAL_MS;
    if (trim) this.lastTrimAt.set(automationId, now);
    await this.scripts.hubMarkClaimed(
      this.keys.readyJobs(automationId),
      this.claimedKey(automationId),
      now,
      CLAIMED_MEMORY_MS,
      trim ? "1" : "0",
      ...jobs.map(readyMember),
    );
  }

  /** The first `count` jobs offered to the automation, in claim order. */
  async candidates(automationId: string, count: number): Promise<ReadyJobKey[]> {
    const members = await this.redis.zrange(this.keys.readyJobs(automationId), 0, count - 1);
    return members.map(readyKeyOfMember);
  }

  /** How many jobs are offered to each automation, in the order given: one pipeline per dispatch shard (its ready sets share a slot). */
  async counts(automationIds: readonly string[]): Promise<number[]> {
    const byShard = new Map<number, number[]>();
    automationIds.forEach((automationId, index) => {
      const shard = this.keys.shardOf(automationId);
      const indices = byShard.get(shard);
      if (indices) indices.push(index);
      else byShard.set(shard, [index]);
    });
    const counts = new Array<number>(automationIds.length).fill(0);
    await Promise.all(
      [...byShard.values()].map(async (indices) => {
        const pipeline = this.redis.pipeline();
        for (const index of indices) pipeline.zcard(this.keys.readyJobs(automationIds[index]!));
        const replies = (await pipeline.exec()) ?? [];
        indices.forEach((index, position) => {
          const [error, count] = replies[position] ?? [null, 0];
          if (error) throw error;
          counts[index] = Number(count);
        });
      }),
    );
    return counts;
  }

  /** Drops jobs that were claimed or are no longer queued. */
  async remove(automationId: string, jobs: readonly ReadyJobKey[]): Promise<void> {
    if (jobs.length > 0) await this.redis.zrem(this.keys.readyJobs(automationId), ...jobs.map(readyMember));
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
