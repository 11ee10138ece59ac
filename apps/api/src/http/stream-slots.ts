/**
 * Caps on open streams (CONTRACT §6.15): at most 5 per user (whatever token or api key it uses) and
 * HUB_WORKER_MAX_STREAMS per worker key, on each stream path, counted over every API process.
 *
 * One Redis hash per (stream, owner): a field per open stream (`<process>:<stream id>`), its value
 * `<opened at ms>:<counts until ms>`. Each process renews its fields every
 * {@link RENEW_INTERVAL_MS} to {@link SLOT_LEASE_MS} ahead, so a dead process's streams stop
 * counting within 30 s. Taking a slot is one script (count the live fields, add one or refuse, or
 * displace the oldest for a request that resumes with Last-Event-ID), so concurrent requests
 * cannot pass the cap together. A displaced stream of this process ends at once; one of another
 * process ends at that process's next renewal, which finds its field marked `displaced:<ms>`.
 * A field that is simply gone — Redis restarted empty, or the lease ran out while Redis was
 * unreachable — was lost, not displaced: the renewal takes it again and the stream goes on
 * (CONTRACT §6.21), so a Redis restart does not make every client reconnect. While Redis is
 * unreachable, each process counts its own streams.
 */
import { randomUUID } from "node:crypto";
import type { RedisConnection, RedisKeys } from "@hub/shared";
import { RateLimitedError } from "./http-errors";
import type { Metrics } from "../metrics";

/** How long a slot counts without renewal: a dead process's streams stop counting within this. */
export const SLOT_LEASE_MS = 30_000;
/** How often a process renews its slots (and notices displaced ones). */
export const RENEW_INTERVAL_MS = 5_000;
/** `Retry-After` of a refused stream: about when a client that left is noticed, or a slot frees. */
export const STREAM_CAP_RETRY_AFTER_SECONDS = 5;
export const TOO_MANY_STREAMS = "Too many open streams";

/**
 * KEYS[1] the hash; ARGV: field, cap, lease ms, displace (1/0). Returns {1} taken, {0} refused,
 * or {2, displacedField}.
 */
const TAKE_SLOT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local entries = redis.call('HGETALL', KEYS[1])
local live, oldestField, oldestOpened = 0, nil, nil
local lease = tonumber(ARGV[3])
for i = 1, #entries, 2 do
  local opened, untilMs = string.match(entries[i + 1], '^(%d+):(%d+)$')
  local displacedAt = string.match(entries[i + 1], '^displaced:(%d+)$')
  if displacedAt ~= nil then
    -- Kept for its process's next renewal to read; a dead process's marker goes after a lease.
    if tonumber(displacedAt) + lease < now then redis.call('HDEL', KEYS[1], entries[i]) end
  elseif opened == nil or tonumber(untilMs) < now then
    redis.call('HDEL', KEYS[1], entries[i])
  else
    live = live + 1
    if oldestOpened == nil or tonumber(opened) < oldestOpened then oldestOpened, oldestField = tonumber(opened), entries[i] end
  end
end
local value = now .. ':' .. (now + lease)
if live < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], value)
  redis.call('PEXPIRE', KEYS[1], lease * 2)
  return {1}
end
if ARGV[4] == '1' and oldestField ~= nil then
  redis.call('HSET', KEYS[1], oldestField, 'displaced:' .. now)
  redis.call('HSET', KEYS[1], ARGV[1], value)
  redis.call('PEXPIRE', KEYS[1], lease * 2)
  return {2, oldestField}
end
return {0}
`;

/**
 * KEYS[1] the hash; ARGV: lease ms, then pairs of field and the ms it opened at. Renews each field;
 * one that is gone (Redis lost it) is taken again with its opening time, so it keeps its place as
 * the oldest. Returns the fields another request displaced, and removes their markers.
 */
const RENEW_SLOTS_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[1])
local displaced = {}
for i = 2, #ARGV, 2 do
  local value = redis.call('HGET', KEYS[1], ARGV[i])
  if value and string.match(value, '^displaced:') then
    redis.call('HDEL', KEYS[1], ARGV[i])
    table.insert(displaced, ARGV[i])
  else
    local opened = (value and string.match(value, '^(%d+):')) or ARGV[i + 1]
    redis.call('HSET', KEYS[1], ARGV[i], opened .. ':' .. (now + lease))
  end
end
redis.call('PEXPIRE', KEYS[1], lease * 2)
return displaced
`;

/** KEYS[1] the hash. Returns how many of its fields still count (their lease has not run out). */
const COUNT_SLOTS_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local entries = redis.call('HGETALL', KEYS[1])
local live = 0
for i = 1, #entries, 2 do
  local untilMs = string.match(entries[i + 1], '^%d+:(%d+)$')
  if untilMs ~= nil and tonumber(untilMs) >= now then live = live + 1 end
end
return live
`;

interface SlotScripts {
  hubCountStreamSlots(key: string): Promise<number>;
  hubTakeStreamSlot(key: string, field: string, cap: number, leaseMs: number, displace: number): Promise<[number, string?]>;
  hubRenewStreamSlots(key: string, leaseMs: number, ...fieldsAndOpenedAt: string[]): Promise<string[]>;
}

export interface SlotRequest {
  /** The stream path's name (`events`). */
  stream: string;
  /** Whose streams count together: `user:<id>` or `worker:<id>`. */
  owner: string;
  cap: number;
  /** The request resumes (Last-Event-ID): at the cap it takes the oldest stream's place. */
  resuming: boolean;
  /** Ends the stream when another request takes its place. */
  displace(): void;
}

interface HeldSlot {
  key: string;
  field: string;
  request: SlotRequest;
  /** In Redis (false: counted by this process only, Redis was unreachable). */
  shared: boolean;
  /** When it was opened, ms since the epoch (by this host's clock; Redis's when Redis took it). */
  openedAtMs: number;
}

export class StreamSlots {
  private readonly processId = randomUUID();
  private readonly held = new Map<string, HeldSlot>();
  private readonly scripts: SlotScripts;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly metrics: Pick<Metrics, "streamsRefused">,
  ) {
    redis.defineCommand("hubTakeStreamSlot", { numberOfKeys: 1, lua: TAKE_SLOT_SCRIPT });
    redis.defineCommand("hubRenewStreamSlots", { numberOfKeys: 1, lua: RENEW_SLOTS_SCRIPT });
    redis.defineCommand("hubCountStreamSlots", { numberOfKeys: 1, lua: COUNT_SLOTS_SCRIPT });
    this.scripts = redis as unknown as SlotScripts;
  }

  /**
   * Takes a slot for a stream about to open, or throws 429 "Too many open streams" with
   * Retry-After. Returns the release, to call when the stream ends (however it ends).
   */
  async take(request: SlotRequest): Promise<() => void> {
    const key = this.keys.openStreams(request.stream, request.owner);
    const field = `${this.processId}:${randomUUID()}`;
    let shared = true;
    let displaced: string | undefined;
    try {
      const [verdict, displacedField] = await this.scripts.hubTakeStreamSlot(key, field, request.cap, SLOT_LEASE_MS, request.resuming ? 1 : 0);
      if (verdict === 0) throw this.refuse(request);
      displaced = displacedField;
    } catch (error) {
      if (error instanceof RateLimitedError) throw error;
      // Redis is unreachable: this process counts its own streams.
      shared = false;
      const local = [...this.held.values()].filter((slot) => slot.key === key).sort((a, b) => (a.field < b.field ? -1 : 1));
      if (local.length >= request.cap) {
        if (!request.resuming) throw this.refuse(request);
        displaced = local[0]!.field;
      }
    }
    if (displaced !== undefined) this.endDisplaced(displaced);
    this.held.set(field, { key, field, request, shared, openedAtMs: Date.now() });
    this.timer ??= setInterval(() => void this.renew(), RENEW_INTERVAL_MS);
    return () => this.release(field);
  }

  /**
   * How many streams of `owner` are open on `stream` over every API process (a dead process's
   * count until their leases run out, within 30 s). While Redis is unreachable, this process's own.
   */
  async openCount(stream: string, owner: string): Promise<number> {
    const key = this.keys.openStreams(stream, owner);
    const local = [...this.held.values()].filter((slot) => slot.key === key).length;
    try {
      return Math.max(local, await this.scripts.hubCountStreamSlots(key));
    } catch {
      return local;
    }
  }

  private refuse(request: SlotRequest): RateLimitedError {
    this.metrics.streamsRefused.inc({ stream: request.stream });
    return new RateLimitedError(TOO_MANY_STREAMS, STREAM_CAP_RETRY_AFTER_SECONDS);
  }

  /** Stops renewing (API shutdown); the streams' own ends release their slots. */
  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private release(field: string): void {
    const slot = this.held.get(field);
    if (!slot) return;
    this.held.delete(field);
    if (slot.shared) this.redis.hdel(slot.key, field).catch(() => undefined);
    if (this.held.size === 0) this.close();
  }

  private endDisplaced(field: string): void {
    const slot = this.held.get(field);
    if (!slot) return;
    this.release(field);
    slot.request.displace();
  }

  private async renew(): Promise<void> {
    const byKey = new Map<string, HeldSlot[]>();
    for (const slot of this.held.values()) byKey.set(slot.key, [...(byKey.get(slot.key) ?? []), slot]);
    for (const [key, slots] of byKey) {
      try {
        const displaced = await this.scripts.hubRenewStreamSlots(key, SLOT_LEASE_MS, ...slots.flatMap((slot) => [slot.field, String(slot.openedAtMs)]));
        // A slot counted here alone while Redis was away is in Redis now.
        for (const slot of slots) slot.shared = true;
        for (const field of displaced) this.endDisplaced(field);
      } catch {
        // Redis is unreachable: the slots stay counted here and are renewed on its return.
      }
    }
  }
}
