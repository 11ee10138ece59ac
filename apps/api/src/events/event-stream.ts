/**
 * GET /events/stream: the event log live, as server-sent events (text/event-stream), for the
 * console and any program that follows the hub. Every message is one event record (the JSON of
 * GET /events) with the Redis stream entry id as its SSE `id`, so a client that reconnects with
 * `Last-Event-ID` gets what it missed (at most {@link RESUME_MAX_ENTRIES}), then the live feed.
 *
 * Who sees what is GET /events' rule (`isEventVisibleTo`, one function for both), applied to each
 * entry with the role the caller has now: the credential is checked again on every credential
 * change (../http/open-streams.ts), so a deactivated user's, a revoked key's or an expired token's
 * stream ends within a second.
 */
import type { Request, Response } from "express";
import { eventTypesAbout, isEventVisibleTo, type AggregateType, type Role } from "@hub/shared";
import type { AppContext } from "../context";
import type { UserCaller } from "../http/auth";
import { openEventStream, sseMessage } from "../http/sse";
import { compareStreamIds, type Backfill, type FeedSubscriber, type StreamEntry } from "./live-event-feed";
import { StreamReach } from "./stream-reach";

/** Most entries a resuming client is sent from before it connected; beyond, it gets a `reset`. */
export const RESUME_MAX_ENTRIES = 1000;
/** Most streams one user has open at once on this path, whatever token or api key each uses (CONTRACT §6.15). */
export const USER_MAX_STREAMS = 5;
/** Most bytes of entries a resume reads (CONTRACT §6.15); beyond, the client gets a `reset`. */
export const RESUME_MAX_BYTES = 1024 * 1024;
/**
 * Bytes a client may leave unread before it is cut off: a stalled client must not make the
 * process buffer the event log for it. It reconnects with Last-Event-ID and resumes.
 */
const MAX_UNREAD_BYTES = 1024 * 1024;

export interface EventStreamFilter {
  aggregateId?: string | undefined;
  aggregateType?: AggregateType | undefined;
  eventType?: string | undefined;
}

/** Whether `role` is shown `entry` under `filter`. */
export function streamEntryMatches(entry: StreamEntry, filter: EventStreamFilter, role: Role): boolean {
  if (!isEventVisibleTo(role, entry.eventType)) return false;
  if (filter.eventType !== undefined && entry.eventType !== filter.eventType) return false;
  if (filter.aggregateId !== undefined && entry.aggregateId !== filter.aggregateId) return false;
  if (filter.aggregateType !== undefined && !eventTypesAbout(filter.aggregateType).some((type) => type === entry.eventType)) return false;
  return true;
}

/** One SSE message: the event record as `data`, its stream entry id as `id`. */
export function formatStreamMessage(entry: StreamEntry): string {
  // The relay writes JSON.stringify's output, which has no line breaks; sseMessage splits anyway.
  return sseMessage({ id: entry.streamId, data: entry.data });
}

export interface EventStreamRequest {
  ctx: AppContext;
  req: Request;
  res: Response;
  caller: UserCaller;
  filter: EventStreamFilter;
  /** The `Last-Event-ID` header: resume after this stream entry id. */
  lastEventId: string | undefined;
}

/**
 * Answers the request with the stream and keeps it open until the client leaves, its credential
 * stops being valid, or the API shuts down. Throws (before anything is sent, so the error handler
 * answers 503) when Redis cannot position the stream.
 */
export async function serveEventStream({ ctx, req, res, caller, filter, lastEventId }: EventStreamRequest): Promise<void> {
  let ended = false;
  const end = (how: "end" | "destroy" = "end") => {
    if (ended) return;
    ended = true;
    if (how === "destroy") res.destroy();
    else res.end();
  };
  // At the cap, 429 before anything is read; a resuming client takes its oldest stream's place.
  const releaseSlot = await ctx.streamSlots.take({
    stream: "events",
    owner: `user:${caller.user.id}`,
    cap: USER_MAX_STREAMS,
    resuming: lastEventId !== undefined,
    displace: () => end(),
  });
  // Left, or already displaced by a newer stream of the same user.
  if (res.closed || ended) {
    releaseSlot();
    return;
  }
  let role = caller.user.role;
  /** Entries that arrive while the backfill is read; null once live. */
  let pending: StreamEntry[] | null = [];
  /** The newest stream id handled (sent or filtered out): what the backfill already covered. */
  let position = lastEventId;
  const write = (chunk: string) => {
    if (ended) return;
    res.write(chunk);
    if (res.writableLength > MAX_UNREAD_BYTES) {
      req.log.warn({ unread_bytes: res.writableLength }, "event stream client is not reading: disconnected (it may resume with Last-Event-ID)");
      end("destroy");
    }
  };
  // A scoped caller's entries pass its reach too (CONTRACT §6.22): a look-up, so they queue behind
  // one another to keep their order; everyone else's are written at once, as before.
  const reach = new StreamReach(ctx.database.pool, caller.reach);
  let scopedQueue: Promise<void> = Promise.resolve();
  const send = (entries: readonly StreamEntry[]) => {
    const matching: StreamEntry[] = [];
    for (const entry of entries) {
      if (position !== undefined && compareStreamIds(entry.streamId, position) <= 0) continue;
      position = entry.streamId;
      if (streamEntryMatches(entry, filter, role)) matching.push(entry);
    }
    if (matching.length === 0) return;
    if (reach.everything) {
      for (const entry of matching) write(formatStreamMessage(entry));
      return;
    }
    scopedQueue = scopedQueue
      .then(() => reach.filter(matching))
      .then((reached) => {
        for (const entry of reached) write(formatStreamMessage(entry));
      })
      .catch((error: unknown) => {
        // PostgreSQL unreachable: these entries cannot be proven reached, so they are not sent.
        req.log.warn({ err: error }, "event stream could not check what its caller reaches; entries skipped");
      });
  };
  const subscriber: FeedSubscriber = {
    deliver: (entries) => (pending ? pending.push(...entries) : send(entries)),
    close: () => end(),
  };

  let unsubscribe: (() => void) | undefined = undefined;
  let heartbeat: NodeJS.Timeout | undefined = undefined;
  // Listened to before anything is awaited: a client that leaves meanwhile is still let go.
  // The credential as it is now, checked again on every credential change and every moment
  // (../http/open-streams.ts): a deactivated user's, a revoked key's or an expired token's stream
  // ends within a second, and a changed role changes what the stream shows.
  const untrack = ctx.streams.track({
    name: "events",
    req,
    requirement: "user",
    onCaller: (current) => {
      role = current.user.role;
      // From now on, what the new sectors reach; nothing earlier is replayed.
      reach.update(current.reach);
    },
    end: () => end(),
  });
  res.once("close", () => {
    ended = true;
    clearInterval(heartbeat);
    unsubscribe?.();
    untrack();
    releaseSlot();
  });

  unsubscribe = await ctx.liveEvents.subscribe(subscriber);
  let backfill: Backfill | undefined;
  try {
    if (lastEventId !== undefined) backfill = await ctx.liveEvents.readAfter(lastEventId, { maxEntries: RESUME_MAX_ENTRIES, maxBytes: RESUME_MAX_BYTES });
  } catch (error) {
    unsubscribe();
    throw error;
  }
  if (ended) {
    unsubscribe();
    return;
  }

  openEventStream(req, res);

  if (backfill?.kind === "gap") {
    // What the client missed is no longer in the stream (or is too much to replay): it should
    // read the state afresh (GET /events has every event), then follow the live feed.
    position = undefined;
    const detail =
      backfill.reason === "too_many"
        ? `More than ${RESUME_MAX_ENTRIES} events or ${RESUME_MAX_BYTES / 1024 / 1024} MiB followed Last-Event-ID: read what you missed from GET /events`
        : "The events after Last-Event-ID are no longer in the stream: read what you missed from GET /events";
    write(`event: reset\ndata: ${JSON.stringify({ reason: backfill.reason, detail })}\n\n`);
  } else if (backfill) {
    send(backfill.entries);
  }
  const buffered = pending;
  pending = null;
  send(buffered);

  heartbeat = setInterval(() => write(": heartbeat\n\n"), ctx.env.HUB_EVENTS_STREAM_HEARTBEAT_SECONDS * 1000);
}
