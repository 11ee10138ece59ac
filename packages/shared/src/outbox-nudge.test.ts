/** When the API and dispatchers tell the relays that events were committed (OutboxNudger). */
import { describe, expect, it } from "vitest";
import { NUDGE_COOLDOWN_MS, OutboxNudger, RELAY_FAST_WINDOW_MS } from "./outbox-nudge";
import { redisKeys } from "./redis";

const keys = redisKeys("test");

function nudger() {
  let now = 1_000_000;
  const sent: string[] = [];
  const redis = {
    publish: (channel: string) => {
      sent.push(channel);
      return Promise.resolve(1);
    },
  };
  return {
    nudger: new OutboxNudger(redis, keys, () => now),
    sent,
    advance: (ms: number) => (now += ms),
  };
}

describe("OutboxNudger", () => {
  it("when commits come in quick succession, then the relays are nudged once per cooldown, on the hub's outbox channel", () => {
    const { nudger: outbox, sent, advance } = nudger();
    outbox.nudge();
    advance(NUDGE_COOLDOWN_MS - 1);
    outbox.nudge();
    expect(sent).toEqual([keys.outboxChannel]);
    advance(1);
    outbox.nudge();
    expect(sent).toEqual([keys.outboxChannel, keys.outboxChannel]);
  });

  it("the cooldown is shorter than the relay's fast window, so events committed during a cooldown are probed for at the fast pace", () => {
    expect(NUDGE_COOLDOWN_MS).toBeLessThan(RELAY_FAST_WINDOW_MS);
  });

  it("when Redis refuses the nudge, then the caller never sees an error", async () => {
    const outbox = new OutboxNudger({ publish: () => Promise.reject(new Error("connection is closed")) }, keys);
    expect(() => outbox.nudge()).not.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
});
