/** Which waiting claim a wake-up reaches (WakeListener), against a stand-in subscriber connection. */
import { EventEmitter } from "node:events";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { parseWakeMessage } from "./wake-messages";
import { WAKE_RECHECK_INTERVAL_MS, WakeListener } from "./wake-listener";
import { redisKeys } from "./redis";

const keys = redisKeys("test");
const AUTOMATION = "0b7a4a3e-9f57-4d4e-8d51-3f1e8c2a9d11";

function listener(countReady?: (automationIds: string[]) => Promise<number[]>) {
  const subscriber = new EventEmitter();
  const wakes = new WakeListener(subscriber as unknown as Redis, keys, countReady);
  return { wakes, publish: (message: string) => subscriber.emit("message", keys.wakeChannel, message) };
}

describe("WakeListener", () => {
  it("when a job is offered, then a claim waiting for room is not woken but one waiting for jobs is", async () => {
    const { wakes, publish } = listener();
    const forRoom = wakes.register(AUTOMATION);
    const forJobs = wakes.register(AUTOMATION);
    const roomWait = forRoom.wait(50, undefined, { roomOnly: true });
    const jobsWait = forJobs.wait(10_000);

    publish(AUTOMATION);
    await Promise.all([jobsWait, roomWait]);

    expect(forJobs.wokenBy).toBe("offer");
    expect(forRoom.wokenBy).toBeNull();
  });

  it("when a slot frees, then the claim waiting for room gets it before an older claim waiting for jobs", async () => {
    const { wakes, publish } = listener();
    const forJobs = wakes.register(AUTOMATION);
    const forRoom = wakes.register(AUTOMATION);
    const jobsWait = forJobs.wait(50);
    const roomWait = forRoom.wait(10_000, undefined, { roomOnly: true });

    publish(`slot:${AUTOMATION}`);
    await Promise.all([jobsWait, roomWait]);

    expect(forRoom.wokenBy).toBe("slot");
    expect(forJobs.wokenBy).toBeNull();
  });

  it("when a slot frees while a claim is still looking, then that claim is woken (its look may have missed the room)", async () => {
    const { wakes, publish } = listener();
    const looking = wakes.register(AUTOMATION);

    publish(`slot:${AUTOMATION}`);

    expect(looking.wokenBy).toBe("slot");
    await looking.wait(10_000, undefined, { roomOnly: true });
  });

  it("when a job is offered while a claim is looking and the look finds no room, then the claim waits on for a slot", async () => {
    const { wakes, publish } = listener();
    const looking = wakes.register(AUTOMATION);
    publish(AUTOMATION);
    expect(looking.wokenBy).toBe("offer");

    let woken = false;
    const roomWait = looking.wait(10_000, undefined, { roomOnly: true }).then(() => (woken = true));
    publish(AUTOMATION);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(woken).toBe(false);

    publish(`slot:${AUTOMATION}`);
    await roomWait;
    expect(looking.wokenBy).toBe("slot");
  });

  it("when a slot frees and the only claims wait for an offer (they found nothing offered), then none is woken; an offer wakes one", async () => {
    const { wakes, publish } = listener();
    const forOffer = wakes.register(AUTOMATION);
    let woken = false;
    const offerWait = forOffer.wait(10_000, undefined, { offerOnly: true }).then(() => (woken = true));

    publish(`slot:${AUTOMATION}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(woken).toBe(false);

    publish(AUTOMATION);
    await offerWait;
    expect(forOffer.wokenBy).toBe("offer");
  });

  it("when an offer comes, then a claim waiting for an offer gets it before one that was refused the offers it saw", async () => {
    const { wakes, publish } = listener();
    const refused = wakes.register(AUTOMATION);
    const forOffer = wakes.register(AUTOMATION);
    const refusedWait = refused.wait(50);
    const offerWait = forOffer.wait(10_000, undefined, { offerOnly: true });

    publish(AUTOMATION);
    await Promise.all([refusedWait, offerWait]);

    expect(forOffer.wokenBy).toBe("offer");
    expect(refused.wokenBy).toBeNull();
  });

  it("when a slot frees while a claim looks and the look finds nothing offered, then the slot goes to a claim waiting for room and the looking claim waits for an offer", async () => {
    const { wakes, publish } = listener();
    const looking = wakes.register(AUTOMATION);
    publish(`slot:${AUTOMATION}`);
    expect(looking.wokenBy).toBe("slot");
    const forRoom = wakes.register(AUTOMATION);
    const roomWait = forRoom.wait(10_000, undefined, { roomOnly: true });

    let woken = false;
    const offerWait = looking.wait(10_000, undefined, { offerOnly: true }).then(() => (woken = true));
    await roomWait;
    expect(forRoom.wokenBy).toBe("slot");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(woken).toBe(false);

    publish(AUTOMATION);
    await offerWait;
    expect(looking.wokenBy).toBe("offer");
  });

  it("when another claim of the automation looked less than an interval ago, then the re-check wakes none, however long the oldest has waited", async () => {
    const { wakes } = listener();
    const oldest = wakes.register(AUTOMATION);
    const oldestWait = oldest.wait(10_000);
    const registered = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const younger = wakes.register(AUTOMATION);
    const youngerWait = younger.wait(10_000);
    const youngerLooked = Date.now();

    await wakes.recheck(youngerLooked + WAKE_RECHECK_INTERVAL_MS - 10);
    expect([oldest.wokenBy, younger.wokenBy]).toEqual([null, null]);
    expect(youngerLooked + WAKE_RECHECK_INTERVAL_MS - 10 - registered).toBeGreaterThanOrEqual(WAKE_RECHECK_INTERVAL_MS);

    await wakes.recheck(youngerLooked + WAKE_RECHECK_INTERVAL_MS + 10);
    await oldestWait;
    expect([oldest.wokenBy, younger.wokenBy]).toEqual(["slot", null]);
    younger.cancel();
    await Promise.race([youngerWait, new Promise((resolve) => setTimeout(resolve, 20))]);
  });

  it("when a wake-up message is read, then its automation and reason come back", () => {
    expect(parseWakeMessage(AUTOMATION)).toEqual({ automationId: AUTOMATION, reason: "offer" });
    expect(parseWakeMessage(`slot:${AUTOMATION}`)).toEqual({ automationId: AUTOMATION, reason: "slot" });
  });

  it("when no wake-up comes, then each automation's longest-waiting claim, and only it, is made to look again once it has waited the re-check interval", async () => {
    const { wakes } = listener();
    const other = "5d1f7a10-2b1c-4c55-9f00-1a2b3c4d5e6f";
    const oldest = wakes.register(AUTOMATION);
    const younger = wakes.register(AUTOMATION);
    const elsewhere = wakes.register(other);
    const waits = [oldest.wait(10_000), younger.wait(50), elsewhere.wait(10_000)];
    const registered = Date.now();

    await wakes.recheck(registered + WAKE_RECHECK_INTERVAL_MS - 100);
    expect([oldest.wokenBy, younger.wokenBy, elsewhere.wokenBy]).toEqual([null, null, null]);

    await wakes.recheck(registered + WAKE_RECHECK_INTERVAL_MS + 100);
    await Promise.all(waits);
    expect([oldest.wokenBy, younger.wokenBy, elsewhere.wokenBy]).toEqual(["slot", null, "slot"]);
  });

  it("when no wake-up comes, then the process's own re-check makes a waiting claim look again within two intervals, reading Redis at most once an interval", async () => {
    const other = "5d1f7a10-2b1c-4c55-9f00-1a2b3c4d5e6f";
    const reads: number[] = [];
    const { wakes } = listener(async (automationIds) => {
      reads.push(Date.now());
      return automationIds.map(() => 1);
    });
    const started = Date.now();
    const first = wakes.register(AUTOMATION);
    const firstWait = first.wait(10_000).then(() => Date.now() - started);
    // Registered half an interval later: the two must not make the process read Redis on a second timer.
    await new Promise((resolve) => setTimeout(resolve, WAKE_RECHECK_INTERVAL_MS / 2));
    const second = wakes.register(other);
    const secondWait = second.wait(10_000).then(() => Date.now() - started - WAKE_RECHECK_INTERVAL_MS / 2);

    const waited = await Promise.all([firstWait, secondWait]);

    expect([first.wokenBy, second.wokenBy]).toEqual(["slot", "slot"]);
    for (const ms of waited) expect(ms).toBeLessThan(2 * WAKE_RECHECK_INTERVAL_MS + 300);
    for (let i = 1; i < reads.length; i++) expect(reads[i]! - reads[i - 1]!).toBeGreaterThanOrEqual(WAKE_RECHECK_INTERVAL_MS - 50);
  });

  it("when a claim is still looking, then the re-check leaves it alone (it is looking already)", async () => {
    const { wakes } = listener();
    const looking = wakes.register(AUTOMATION);
    await wakes.recheck(Date.now() + 10 * WAKE_RECHECK_INTERVAL_MS);
    expect(looking.wokenBy).toBeNull();
    looking.cancel();
  });

  it("when an automation's claims were re-checked, then none of its claims is made to look again within the interval", async () => {
    const { wakes } = listener();
    const first = wakes.register(AUTOMATION);
    const second = wakes.register(AUTOMATION);
    const waits = [first.wait(10_000), second.wait(50)];
    const registered = Date.now();

    await wakes.recheck(registered + WAKE_RECHECK_INTERVAL_MS + 100);
    await wakes.recheck(registered + WAKE_RECHECK_INTERVAL_MS + 200);
    await Promise.all(waits);

    expect([first.wokenBy, second.wokenBy]).toEqual(["slot", null]);
  });

  it("when an automation's ready set is empty, then the re-check wakes none of its claims, and it asks Redis once for every automation", async () => {
    const other = "5d1f7a10-2b1c-4c55-9f00-1a2b3c4d5e6f";
    const asked: string[][] = [];
    const { wakes } = listener(async (automationIds) => {
      asked.push(automationIds);
      return automationIds.map((automationId) => (automationId === other ? 3 : 0));
    });
    const idle = wakes.register(AUTOMATION);
    const offered = wakes.register(other);
    const waits = [idle.wait(50), offered.wait(10_000)];

    await wakes.recheck(Date.now() + WAKE_RECHECK_INTERVAL_MS + 100);
    await Promise.all(waits);

    expect(asked).toEqual([[AUTOMATION, other]]);
    expect([idle.wokenBy, offered.wokenBy]).toEqual([null, "slot"]);
  });
});
