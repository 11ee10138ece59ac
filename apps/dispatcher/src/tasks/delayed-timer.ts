/**
 * Delayed jobs: one timer moves jobs whose `available_at` has come (a `run_at`, a back-off) from
 * the delayed set to ready sets. It sleeps until the earliest job in the set is due; whoever puts
 * an earlier one in publishes on the `delayedChannel`, which wakes it (so does the subscriber's
 * reconnecting: messages may have been lost), and it never sleeps longer than
 * `delayedPromoteMaxSleepMs`.
 */
import { settleWithin, type RedisConnection } from "@hub/shared";
import type { DispatcherContext } from "../config";

const PROMOTE_BATCH = 1000;
/**
 * Shortest pause of the delayed timer between two runs it schedules itself: while jobs come due
 * every few milliseconds (a burst of `run_at`s), one run moves all that came due meanwhile instead
 * of one run per job, at the cost of at most this much lateness. A wake-up (an earlier job) runs it at once.
 */
const PROMOTE_MIN_PAUSE_MS = 100;
/** Longest start() waits to subscribe to the delayed channel. */
const SUBSCRIBE_TIMEOUT_MS = 2000;
/** Pause before the delayed timer tries again after a failure (Redis away). */
export const PROMOTE_RETRY_MS = 200;

export function createDelayedTimer({ redis, keys, settings, metrics, ready, shards }: DispatcherContext) {
  let subscriber: RedisConnection | undefined;
  return {
    /** Moves every due delayed job to its ready set; resolves with the pause until the earliest one left is due. */
    async promoteDueJobs(): Promise<number> {
      const nextDueAts = await Promise.all(
        shards.map(async (shard) => {
          for (;;) {
            const { promoted, nextDueAt } = await ready.promoteDue(shard, PROMOTE_BATCH);
            metrics.jobsOffered.inc({ path: "due" }, promoted);
            if (promoted < PROMOTE_BATCH) return nextDueAt ?? Number.POSITIVE_INFINITY;
          }
        }),
      );
      return Math.max(PROMOTE_MIN_PAUSE_MS, Math.min(Math.min(...nextDueAts) - Date.now(), settings.delayedPromoteMaxSleepMs));
    },
    /** Wakes the delayed timer when a job earlier than the one it sleeps for arrives (see ReadyJobs). */
    async listenForEarlierJobs(onEarlier: () => void): Promise<void> {
      const connection = redis.duplicate();
      subscriber = connection;
      connection.on("error", () => undefined);
      connection.on("message", (channel: string) => {
        if (channel === keys.delayedChannel) onEarlier();
      });
      // Messages lost while the subscriber was away: look at once when it is back.
      connection.on("ready", onEarlier);
      // Bounded: with Redis away the dispatcher starts anyway, and ioredis subscribes once it connects.
      await settleWithin(connection.subscribe(keys.delayedChannel), SUBSCRIBE_TIMEOUT_MS).catch(() => undefined);
    },
    stopListening(): void {
      subscriber?.disconnect();
    },
  };
}
