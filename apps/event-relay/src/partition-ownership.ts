/**
 * Which outbox partitions this relay publishes. A partition is this relay's while its lock
 * session — one dedicated PostgreSQL connection — holds the partition's session advisory lock;
 * the session also holds a shared membership lock by which relays count each other.
 *
 * When that session dies (PostgreSQL restarted or failed over, `pg_terminate_backend`, a broken
 * network), PostgreSQL has released all of its locks and another relay may take the partitions at
 * its next rebalance. This module then forgets every partition at once and bumps its epoch, so a
 * batch read before the loss is not published; the next rebalance opens a new session, after a
 * back-off capped at the rebalance interval, and takes partitions again.
 */
import { openDedicatedSession, type DedicatedSession, events } from "@hub/db";
import type { Logger } from "@hub/shared";
import type { EventRelayConfig } from "./config";
import type { RelayMetrics } from "./metrics";
import { backoffMs } from "./outage-backoff";

export interface PartitionOwnership {
  /** Partitions held right now, ascending (none while the lock session is lost). */
  owned(): number[];
  /**
   * The lock session while it is alive. The relay reads its partitions' events on it: a read that
   * succeeds there proves the session, and so its locks, were still alive when it ran.
   */
  session(): DedicatedSession | undefined;
  /** Changes whenever the partitions are lost; a batch read under an older epoch is not published. */
  epoch(): number;
  /** When the next {@link PartitionOwnership.rebalance} is due (a `Date.now()` value). */
  rebalanceDueAt(): number;
  /**
   * Opens the lock session if there is none, then takes free partitions up to a fair share
   * (⌈partitions / live relays⌉) and gives back the surplus. Call it between batches only, after
   * the last one was stamped. On failure the session is dropped (with every partition) and the
   * error is thrown; the next attempt is due after a back-off.
   */
  rebalance(): Promise<void>;
  /**
   * Gives every partition back at once by ending the lock session (PostgreSQL releases its locks).
   * For stop and crash; the next rebalance would open a new session.
   */
  releaseAll(): Promise<void>;
}

const LOCK_SESSION_APPLICATION_NAME = "hub-event-relay-locks";

export function createPartitionOwnership(options: {
  databaseUrl: string;
  config: Pick<EventRelayConfig, "rebalanceMs" | "maxBackoffMs">;
  logger: Logger;
  metrics: RelayMetrics;
}): PartitionOwnership {
  const { config, logger, metrics } = options;
  const owned = new Set<number>();
  let session: DedicatedSession | undefined;
  let epoch = 0;
  let dueAt = 0;
  let failedAttempts = 0;
  // Reconnecting is cheap and a relay without a session publishes nothing: retry at least as often
  // as a healthy relay rebalances.
  const reconnectCapMs = Math.min(config.maxBackoffMs, config.rebalanceMs);

  /** Forgets every partition (the locks are gone or about to be): nothing more is published for them. */
  function forget(lostReason?: string) {
    if (lostReason && owned.size > 0) logger.warn({ partitions: owned.size, reason: lostReason }, "lost outbox partitions");
    owned.clear();
    epoch++;
    metrics.ownedPartitions.set(0);
  }

  async function openSession(): Promise<DedicatedSession> {
    if (session && !session.lost) return session;
    // `onLost` can fire while the session is still connecting (before `openDedicatedSession`
    // returns); such a session was never ours, so there is nothing to forget.
    let opened: DedicatedSession | undefined = undefined;
    opened = await openDedicatedSession(options.databaseUrl, {
      applicationName: LOCK_SESSION_APPLICATION_NAME,
      onLost: (reason) => {
        if (opened === undefined || session !== opened) return;
        session = undefined;
        forget(`lock session ${reason}`);
        // Take partitions again soon; the first attempt may well find PostgreSQL back already.
        dueAt = Math.min(dueAt, Date.now() + backoffMs(1, reconnectCapMs));
      },
    });
    try {
      await events.joinRelayGroup(opened);
    } catch (error) {
      await opened.close();
      throw error;
    }
    session = opened;
    return opened;
  }

  async function rebalance(): Promise<void> {
    try {
      const lockSession = await openSession();
      const relays = Math.max(1, await events.countLiveRelays(lockSession));
      const share = Math.ceil(events.OUTBOX_PARTITIONS / relays);
      const surplus = [...owned].sort((a, b) => a - b).slice(share);
      for (const partition of surplus) {
        await events.unlockOutboxPartition(lockSession, partition);
        owned.delete(partition);
      }
      const taken: number[] = [];
      // Start at a random partition so relays starting together do not all race for the same ones.
      const offset = Math.floor(Math.random() * events.OUTBOX_PARTITIONS);
      for (let i = 0; i < events.OUTBOX_PARTITIONS && owned.size < share; i++) {
        const partition = (offset + i) % events.OUTBOX_PARTITIONS;
        if (owned.has(partition)) continue;
        if (await events.tryLockOutboxPartition(lockSession, partition)) {
          owned.add(partition);
          taken.push(partition);
        }
      }
      if (surplus.length > 0 || taken.length > 0) {
        logger.info({ relays, owned: owned.size, taken: taken.length, released: surplus.length }, "outbox partitions rebalanced");
      }
      metrics.ownedPartitions.set(owned.size);
      failedAttempts = 0;
      dueAt = Date.now() + config.rebalanceMs * (0.9 + Math.random() * 0.2);
    } catch (error) {
      // Without its lock session a relay must not publish: another relay may own its partitions.
      failedAttempts++;
      dueAt = Date.now() + backoffMs(failedAttempts, reconnectCapMs);
      await releaseAll("rebalance failed");
      throw error;
    }
  }

  async function releaseAll(lostReason?: string): Promise<void> {
    const lockSession = session;
    session = undefined;
    forget(lostReason);
    await lockSession?.close();
  }

  return {
    owned: () => [...owned].sort((a, b) => a - b),
    session: () => (session && !session.lost ? session : undefined),
    epoch: () => epoch,
    rebalanceDueAt: () => dueAt,
    rebalance,
    releaseAll: () => releaseAll(),
  };
}
