/**
 * Nudges tell the event relays that events were committed, so that a quiet relay can probe the
 * outbox seldom (HUB_RELAY_QUIET_POLL_MS) and still relay the first event after a quiet spell at
 * once. They travel on Redis pub/sub after the commit, never inside the writing transaction (a
 * NOTIFY there would serialise every commit, MEASURED.md), and at most one per
 * {@link NUDGE_COOLDOWN_MS} per process: a relay that receives a nudge probes at its fast pace
 * for {@link RELAY_FAST_WINDOW_MS}, longer than the cooldown, so events committed during a
 * process's cooldown are caught by those fast probes. A lost nudge costs at most one quiet poll.
 */
import type { RedisConnection, RedisKeys } from "./redis";

/** Least time between two nudges of one process. */
export const NUDGE_COOLDOWN_MS = 900;
/** How long a relay probes at its fast pace after a nudge or an event (longer than the cooldown). */
export const RELAY_FAST_WINDOW_MS = 1000;

export class OutboxNudger {
  private lastSentAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly redis: Pick<RedisConnection, "publish">,
    private readonly keys: Pick<RedisKeys, "outboxChannel">,
    private readonly now: () => number = Date.now,
  ) {}

  /** Call after a commit that may have written events; sends at most one nudge per cooldown, never throws. */
  nudge(): void {
    const now = this.now();
    if (now - this.lastSentAt < NUDGE_COOLDOWN_MS) return;
    this.lastSentAt = now;
    // Fire and forget: a nudge that fails (Redis away) only costs the relay's next quiet poll.
    this.redis.publish(this.keys.outboxChannel, "").catch(() => undefined);
  }
}
