/** The Lua scripts behind ReadyJobs (./ready-jobs.ts): each runs atomically on one slot of the shard its keys share. */
import { READY_MEMBER_ID_START } from "./claim-order";

/** How long a claimed id stays refused by ReadyJobs.offer: longer than any offer can lag its claim. */
export const CLAIMED_MEMORY_MS = 60_000;

/**
 * KEYS: ready set, claimed ids; ARGV: wake channel, wake message, "1" to offer even recently
 * claimed ids (they were queued again), then score/member pairs. Adds the members whose job was not
 * recently claimed and wakes one claim when it added any.
 */
export const OFFER_SCRIPT = `
local added = 0
for i = 4, #ARGV, 2 do
  local id = string.sub(ARGV[i + 1], ${READY_MEMBER_ID_START})
  if ARGV[3] == '1' then redis.call('ZREM', KEYS[2], id) end
  if not redis.call('ZSCORE', KEYS[2], id) then
    added = added + redis.call('ZADD', KEYS[1], 'NX', ARGV[i], ARGV[i + 1])
  end
end
if added > 0 then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return added`;

/**
 * KEYS: ready set, claimed ids; ARGV: now (ms), memory (ms), "1" to forget ids older than the
 * memory, then members. Withdraws the members and remembers their job ids.
 */
export const CLAIMED_SCRIPT = `
for i = 4, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('ZADD', KEYS[2], ARGV[1], string.sub(ARGV[i], ${READY_MEMBER_ID_START}))
end
if ARGV[3] == '1' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1] - ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return 0`;

/**
 * KEYS: delayed set; ARGV: now (ms), most to move. Removes and returns the members due by now with
 * their scores, earliest first: whoever removed a member offers it (one dispatcher per job). Also
 * returns the earliest score left (false when the set is empty): when to look next.
 */
export const TAKE_DUE_SCRIPT = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
for i = 1, #due, 2 do redis.call('ZREM', KEYS[1], due[i]) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {due, first[2] or false}`;

/**
 * Lua: publishes on ARGV[1] when `earliest` (a number, or nil) comes before the score the
 * delayed set KEYS[1] started with (`first`, its ZRANGE 0 0 WITHSCORES before the change): the
 * dispatchers sleep until the earliest job is due, so an earlier one must wake them.
 */
const WAKE_IF_EARLIER = `
local function wakeIfEarlier(first, earliest)
  if earliest ~= nil and (first[2] == nil or earliest < tonumber(first[2])) then redis.call('PUBLISH', ARGV[1], '') end
end`;

/**
 * KEYS: delayed set; ARGV: delayed channel, then score/member pairs. Adds (or moves) the members,
 * waking the dispatchers when one of them is now the earliest.
 */
export const DELAY_SCRIPT = `${WAKE_IF_EARLIER}
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliest = nil
for i = 2, #ARGV, 2 do
  local score = tonumber(ARGV[i])
  redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1])
  if earliest == nil or score < earliest then earliest = score end
end
wakeIfEarlier(first, earliest)
return 0`;

/**
 * KEYS: ready set, claimed ids, delayed set; ARGV: delayed channel, ready member, previous delayed
 * member, where the job goes now ("ready" | "delayed" | "later"), its score there, its delayed
 * member, wake channel, wake message. Takes a rescheduled job out of both sets and puts it where
 * its new time says.
 */
export const RESCHEDULE_SCRIPT = `${WAKE_IF_EARLIER}
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[3])
if ARGV[4] == 'ready' then
  redis.call('ZREM', KEYS[2], string.sub(ARGV[2], ${READY_MEMBER_ID_START}))
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[2])
  redis.call('PUBLISH', ARGV[7], ARGV[8])
elseif ARGV[4] == 'delayed' then
  local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
  wakeIfEarlier(first, tonumber(ARGV[5]))
end
return 0`;

/** The scripts, defined on the connection once (ioredis sends EVALSHA, falling back to EVAL). */
export interface ReadyScripts {
  hubOfferJobs(readyKey: string, claimedKey: string, ...args: Array<string | number>): Promise<number>;
  hubMarkClaimed(readyKey: string, claimedKey: string, ...args: Array<string | number>): Promise<number>;
  hubTakeDueJobs(delayedKey: string, now: number, max: number): Promise<[string[], string | null]>;
  hubDelayJobs(delayedKey: string, ...args: Array<string | number>): Promise<number>;
  hubRescheduleJob(readyKey: string, claimedKey: string, delayedKey: string, ...args: Array<string | number>): Promise<number>;
}
