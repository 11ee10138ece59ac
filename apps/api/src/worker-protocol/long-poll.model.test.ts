/**
 * The long-poll's rule (./long-poll.ts), checked against a model of the world it lives in: the real
 * claim loop and the real WakeListener, driven on a simulated clock, with a ready set, PostgreSQL's
 * claim decision (limit, development mode, queued jobs), and wake-up messages that may be lost.
 * Random interleavings of claims (1–8 at once, any wait_seconds 0–30, batches), offers,
 * completions, re-queues, cancels, blocks and limit changes; after every step of simulated time:
 *
 *   while a job is due and claimable (offered, queued, room free) and a claim is open, some claim
 *   takes a job within BOUND — no more than a few milliseconds with every wake-up delivered, and
 *   about two re-check intervals when wake-ups are lost.
 */
import { EventEmitter } from "node:events";
import type { Job } from "@hub/db";
import { redisKeys, type RedisConnection } from "@hub/shared";
import { WAKE_RECHECK_INTERVAL_MS, WakeListener, type ReadyJobKey } from "@hub/shared/dispatch";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { longPoll, type LongPollPort } from "./long-poll";

const AUTOMATION = "8c0f3c5e-2a4b-4d7e-9f10-112233445566";
const keys = redisKeys("model");
/** How often the invariant is checked, and the granularity of simulated time (ms). */
const STEP_MS = 10;

/** A small seeded generator (mulberry32), so a failing seed can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The world a claim sees: Redis's ready set and wake-ups, PostgreSQL's jobs and limit. */
class World {
  readonly subscriber = Object.assign(new EventEmitter(), { disconnect: () => undefined });
  readonly wakes = new WakeListener(this.subscriber as unknown as RedisConnection, keys, async (ids) => {
    await sleep(1);
    return ids.map(() => this.ready.length);
  });
  readonly queued = new Set<string>();
  readonly running = new Set<string>();
  /** The ready set, in claim order (creation order here). */
  ready: string[] = [];
  limit = 2;
  blocked = false;
  openClaims = 0;
  readonly log: string[] = [];
  private seq = 0;

  constructor(
    private readonly lossRate: number,
    private readonly rng: ReturnType<typeof random>,
  ) {}

  note(line: string) {
    this.log.push(`${Date.now()} ${line}`);
    if (this.log.length > 80) this.log.shift();
  }

  /** A wake-up message: reaches the listener after a little latency, unless lost. */
  publish(reason: "offer" | "slot") {
    if (this.rng.next() < this.lossRate) return this.note(`lost ${reason}`);
    setTimeout(
      () => {
        this.note(`deliver ${reason}`);
        this.subscriber.emit("message", keys.wakeChannel, reason === "slot" ? `slot:${AUTOMATION}` : AUTOMATION);
      },
      this.rng.int(0, 3),
    );
  }

  offer(id: string) {
    if (!this.ready.includes(id)) this.ready.push(id);
    this.publish("offer");
  }

  createJob() {
    const id = `job-${++this.seq}`;
    this.queued.add(id);
    this.note(`create ${id}`);
    // The dispatcher's hand-off to the ready set.
    setTimeout(() => this.offer(id), this.rng.int(1, 20));
  }

  claimable(): boolean {
    return !this.blocked && this.running.size < this.limit && this.ready.some((id) => this.queued.has(id));
  }

  finish(id: string) {
    if (!this.running.delete(id)) return false;
    this.note(`finish ${id}`);
    return true;
  }

  readonly port: LongPollPort = {
    wakes: this.wakes,
    readyCandidates: async (_automationId, count) => {
      await sleep(this.rng.int(0, 2));
      this.note(`look ${this.ready.slice(0, count).join(",") || "-"}`);
      return this.ready
        .slice(0, count)
        .map((id): ReadyJobKey => ({ id, automationId: AUTOMATION, priority: 0, availableAtMs: 0, seq: 0 }) as unknown as ReadyJobKey);
    },
    claim: async ({ maxJobs, candidateIds }) => {
      await sleep(this.rng.int(1, 4));
      if (this.blocked || this.running.size >= this.limit) {
        this.note("blocked");
        return { kind: "blocked" };
      }
      const slots = this.limit - this.running.size;
      const staleIds = candidateIds.filter((id) => !this.queued.has(id));
      const taken = candidateIds.filter((id) => this.queued.has(id)).slice(0, Math.min(maxJobs, slots));
      if (taken.length === 0) return { kind: "none", slotsLeft: slots, staleIds };
      for (const id of taken) {
        this.queued.delete(id);
        this.running.add(id);
      }
      this.note(`claimed ${taken.join(",")}`);
      return { kind: "claimed", jobs: taken.map((id) => ({ id }) as unknown as Job), slotsLeft: slots - taken.length, staleIds };
    },
    completeAndClaim: async (pending, request) => {
      // As hub_complete_and_claim: a refused result claims nothing.
      const completed = await this.port.complete(pending);
      return completed.ok ? { completed, claimed: await this.port.claim(request) } : { completed };
    },
    complete: async (pending) => {
      await sleep(1);
      return this.finish(pending.jobId) ? { ok: true, job: { id: pending.jobId } as unknown as Job } : { ok: false, refusal: "not_leased" };
    },
    wakeClaims: async () => this.publish("slot"),
    withdrawClaimed: async (_automationId, claimed) => {
      await sleep(this.rng.int(0, 2));
      this.ready = this.ready.filter((id) => !claimed.some((job) => job.id === id));
    },
    withdrawOffers: async (_automationId, stale) => {
      await sleep(1);
      this.ready = this.ready.filter((id) => !stale.some((key) => key.id === id));
      return true;
    },
    countStatement: () => undefined,
  };

  /** One claim, counted as open while it runs. */
  async claim(maxJobs: number, waitSeconds: number, completing?: string): Promise<Job[]> {
    this.openClaims += 1;
    try {
      const pending = completing ? { jobId: completing, result: {}, attempt: undefined } : undefined;
      return await longPoll(
        this.port,
        { automationId: AUTOMATION, maxJobs, deadline: Date.now() + waitSeconds * 1000, completing: pending },
        new AbortController().signal,
      );
    } finally {
      this.openClaims -= 1;
    }
  }
}

/** A worker slot: claims, runs what it got, reports it (with complete-and-claim or apart), again. */
async function workerLoop(
  world: World,
  rng: ReturnType<typeof random>,
  until: number,
  options: { waitSeconds: number[]; maxJobs: number; startAfterMs: number },
) {
  await sleep(options.startAfterMs);
  let finished: string | undefined;
  while (Date.now() < until) {
    const got = await world.claim(options.maxJobs, rng.pick(options.waitSeconds), options.maxJobs === 1 && rng.next() < 0.5 ? finished : undefined);
    if (finished && world.running.has(finished)) {
      // Not reported with the claim: reported on its own, as POST /jobs/{id}/complete does.
      world.finish(finished);
      world.publish("slot");
    }
    finished = undefined;
    if (got.length === 0) {
      await sleep(rng.int(0, 30));
      continue;
    }
    await sleep(rng.int(5, 1500));
    const [first, ...rest] = got.map((job) => job.id);
    for (const id of rest) if (world.finish(id)) world.publish("slot");
    finished = first;
    if (options.maxJobs > 1 && first && world.finish(first)) world.publish("slot");
  }
  if (finished && world.finish(finished)) world.publish("slot");
}

/** Things that change what a claim may take, at random moments. */
async function operator(world: World, rng: ReturnType<typeof random>, until: number) {
  while (Date.now() < until) {
    await sleep(rng.int(20, 600));
    const roll = rng.next();
    if (roll < 0.45) for (let i = rng.int(1, 3); i > 0; i--) world.createJob();
    else if (roll < 0.55) {
      world.blocked = !world.blocked;
      world.note(world.blocked ? "block" : "unblock");
      if (!world.blocked) world.publish("slot");
    } else if (roll < 0.62) {
      world.limit = rng.int(1, 4);
      world.note(`limit ${world.limit}`);
      world.publish("slot");
    } else if (roll < 0.7) {
      // A lease lapsed: the job is queued again (an offer and a freed slot).
      const [id] = world.running;
      if (id && world.finish(id)) {
        world.queued.add(id);
        world.ready = world.ready.filter((ready) => ready !== id);
        world.ready.unshift(id);
        world.publish("offer");
        world.publish("slot");
      }
    } else if (roll < 0.78) {
      // A bulk cancel: queued jobs leave PostgreSQL; their offers go stale.
      for (const id of [...world.queued].slice(0, rng.int(1, 3))) world.queued.delete(id);
      world.note("cancel");
    }
  }
}

interface Run {
  seed: number;
  lossRate: number;
  durationMs: number;
}

/** Runs one interleaving; returns the longest a claimable job waited while a claim was open (ms), and the log around it. */
async function runModel({ seed, lossRate, durationMs }: Run): Promise<{ worstMs: number; log: string[] }> {
  const rng = random(seed);
  const world = new World(lossRate, rng);
  const until = Date.now() + durationMs;
  const waitChoices = [[0], [1], [1, 2], [5], [30], [0, 1, 2, 5, 10, 20, 30]] as const;
  const loops = Array.from({ length: rng.int(1, 8) }, () =>
    workerLoop(world, rng, until, { waitSeconds: [...rng.pick(waitChoices)], maxJobs: rng.next() < 0.2 ? rng.int(2, 8) : 1, startAfterMs: rng.int(0, 400) }),
  );
  const work = Promise.all([...loops, operator(world, rng, until)]);
  let waitedMs = 0;
  let worstMs = 0;
  let worstLog: string[] = [];
  while (Date.now() < until + 100) {
    await vi.advanceTimersByTimeAsync(STEP_MS);
    if (!world.claimable()) waitedMs = 0;
    else if (world.openClaims > 0) waitedMs += STEP_MS;
    if (waitedMs > worstMs) {
      worstMs = waitedMs;
      worstLog = [
        ...world.log,
        `${Date.now()} waiting ${waitedMs} ms: ready ${world.ready.join(",")} queued ${[...world.queued].join(",")} running ${world.running.size}/${world.limit} open ${world.openClaims}`,
      ];
    }
  }
  // Let the last long-polls (up to 30 s) answer.
  world.blocked = true;
  await vi.advanceTimersByTimeAsync(31_000);
  await work;
  await world.wakes.stop();
  return { worstMs, log: worstLog };
}

describe("the long-poll's rule, over random interleavings", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("when every wake-up is delivered, then a claimable job never waits more than a few milliseconds while a claim is open", async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { worstMs, log } = await runModel({ seed, lossRate: 0, durationMs: 15_000 });
      expect(worstMs, `seed ${seed}:\n${log.join("\n")}`).toBeLessThanOrEqual(60);
    }
  });

  it("when wake-ups are lost, then a claimable job waits at most about two re-check intervals while a claim is open", async () => {
    for (let seed = 101; seed <= 140; seed++) {
      const { worstMs, log } = await runModel({ seed, lossRate: 0.3, durationMs: 15_000 });
      expect(worstMs, `seed ${seed}:\n${log.join("\n")}`).toBeLessThanOrEqual(2 * WAKE_RECHECK_INTERVAL_MS + 100);
    }
  });

  it("when two 1 s long-polls overlap, the automation was paused with jobs that were cancelled, and it resumes, then the next job is claimed at once", async () => {
    const rng = random(7);
    const world = new World(0, rng);
    world.blocked = true;
    const until = Date.now() + 20_000;
    const loops = [0, 350].map((startAfterMs) => workerLoop(world, rng, until, { waitSeconds: [1], maxJobs: 1, startAfterMs }));
    await vi.advanceTimersByTimeAsync(3_000);
    for (let i = 0; i < 3; i++) world.createJob();
    await vi.advanceTimersByTimeAsync(2_000);
    world.queued.clear();
    await vi.advanceTimersByTimeAsync(2_000);
    world.blocked = false;
    world.publish("slot");
    await vi.advanceTimersByTimeAsync(2_000);
    world.createJob();
    let waitedMs = 0;
    while (world.running.size === 0 && waitedMs < 10_000) {
      await vi.advanceTimersByTimeAsync(STEP_MS);
      waitedMs += STEP_MS;
    }
    expect(world.running.size, world.log.join("\n")).toBe(1);
    expect(waitedMs).toBeLessThanOrEqual(100);
    world.blocked = true;
    await vi.advanceTimersByTimeAsync(25_000);
    await Promise.all(loops);
    await world.wakes.stop();
  });
});
