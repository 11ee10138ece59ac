/**
 * The Redis stream `hub:events` as a live feed for this API process: one reader (a dedicated
 * connection blocked in `XREAD`) fans every entry out to the connected event-stream clients, so a
 * hundred open consoles cost one Redis connection, not a hundred. The reader runs only while a
 * client is connected: with none, the process reads nothing (a benchmark's thousands of events per
 * second are not read just to be dropped).
 *
 * The relay XADDs each event with the fields `id`, `event_type`, `aggregate_id` and `data` (the
 * event record as JSON, CONTRACT §4); entries are passed on as they are, never re-encoded.
 */
import { connectRedis, type Logger, type RedisConnection, type RedisTarget } from "@hub/shared";

/** One entry of the events stream. */
export interface StreamEntry {
  /** The stream entry id (`1700000000000-0`): the SSE `id`, and where a client resumes. */
  streamId: string;
  eventType: string;
  aggregateId: string;
  /** The event record, JSON as the relay wrote it. */
  data: string;
}

/** A connected client of the feed. */
export interface FeedSubscriber {
  /** Entries in stream order; called synchronously by the reader. */
  deliver(entries: readonly StreamEntry[]): void;
  /** The feed is closing (API shutdown): end the client's response. */
  close(): void;
}

/** What a client that resumes after `Last-Event-ID` missed. */
export type Backfill =
  | { kind: "entries"; entries: StreamEntry[] }
  /** More than the bound, or entries after that id were trimmed away: the client must re-read state. */
  | { kind: "gap"; reason: "too_many" | "trimmed" };

export interface LiveEventFeedOptions {
  redisTarget: RedisTarget;
  /** Name of the reader's Redis connection (CLIENT LIST). */
  connectionName: string;
  /** The stream's key (`redisKeys(prefix).eventsStream`). */
  stream: string;
  /** The API's request connection (with its command timeout): positions and backfills use it. */
  redis: RedisConnection;
  logger: Logger;
  /** Told the number of connected clients whenever it changes (the metrics gauge). */
  onClientCount?: (count: number) => void;
}

/** Entries one XREAD hands over at most. */
const READ_COUNT = 500;
/** How long one XREAD blocks: also how soon an idle reader notices its last client left. */
const READ_BLOCK_MS = 5000;
/** Entries a resume reads first, before it knows how large they are. */
const RESUME_FIRST_CHUNK = 16;
/** Most entries one read of a resume asks for. */
const RESUME_MAX_CHUNK = 100;
/** Pause before reading again after Redis failed a read. */
const READ_RETRY_MS = 1000;

export class LiveEventFeed {
  private readonly subscribers = new Set<FeedSubscriber>();
  private reader: RedisConnection | undefined;
  /** The read loop, while it runs. */
  private loop: Promise<void> | undefined;
  /** Positioning a loop that is about to start (shared by clients that arrive together). */
  private starting: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: LiveEventFeedOptions) {}

  get clientCount(): number {
    return this.subscribers.size;
  }

  /**
   * Adds a client. Resolves once the reader is positioned at or before this moment, so every entry
   * added from now on reaches `subscriber`; rejects (the client is not added) when Redis cannot
   * say where the stream ends.
   */
  async subscribe(subscriber: FeedSubscriber): Promise<() => void> {
    if (this.closed) throw new Error("the live event feed is closed");
    this.subscribers.add(subscriber);
    this.options.onClientCount?.(this.subscribers.size);
    const unsubscribe = () => {
      if (this.subscribers.delete(subscriber)) this.options.onClientCount?.(this.subscribers.size);
    };
    try {
      await this.ensureReading();
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  /**
   * The entries after `afterId` (exclusive), at most `maxEntries` of them and `maxBytes` of their
   * fields, for a client that resumes; or a gap when it missed more than that or the stream no
   * longer holds what followed `afterId`. Read in chunks sized by what the entries so far weighed,
   * so deciding costs Redis and this process about `maxBytes`, never `maxEntries` whole entries
   * at once (large events and a storm of reconnects once pushed Redis past 1 GB).
   */
  async readAfter(afterId: string, { maxEntries, maxBytes }: { maxEntries: number; maxBytes: number }): Promise<Backfill> {
    const { redis, stream } = this.options;
    const info = redis.xinfo("STREAM", stream).catch((error: Error) => {
      // No stream at all: nothing was ever published, or Redis lost it.
      if (/no such key/i.test(error.message)) return null;
      throw error;
    });
    const entries: StreamEntry[] = [];
    let bytes = 0;
    let read = 0;
    let cursor = afterId;
    let chunk = RESUME_FIRST_CHUNK;
    for (;;) {
      const range = await redis.xrange(stream, `(${cursor}`, "+", "COUNT", chunk);
      for (const [id, fields] of range) {
        read += 1;
        for (const field of fields) bytes += Buffer.byteLength(field, "utf8");
        const entry = toEntry(id, fields);
        if (entry) entries.push(entry);
      }
      if (read > maxEntries || bytes > maxBytes) {
        await info.catch(() => undefined);
        return { kind: "gap", reason: "too_many" };
      }
      if (range.length < chunk) break;
      cursor = range[range.length - 1]![0];
      // As many entries as the bytes left would hold at the size seen so far (one more, to notice passing it).
      const averageBytes = Math.max(1, bytes / read);
      chunk = Math.max(1, Math.min(RESUME_MAX_CHUNK, maxEntries + 1 - read, Math.floor((maxBytes - bytes) / averageBytes) + 1));
    }
    const streamInfo = await info;
    if (streamInfo === null || wasTrimmedAfter(streamInfo, afterId)) return { kind: "gap", reason: "trimmed" };
    return { kind: "entries", entries };
  }

  /** Ends every client and stops the reader (API shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    for (const subscriber of [...this.subscribers]) subscriber.close();
    this.subscribers.clear();
    this.options.onClientCount?.(0);
    // A blocked XREAD fails at once with "Connection is closed", which ends the loop.
    this.reader?.disconnect();
    await this.starting?.catch(() => undefined);
    await this.loop;
  }

  private async ensureReading(): Promise<void> {
    if (this.loop) return;
    this.starting ??= (async () => {
      try {
        const cursor = await this.streamEnd();
        if (!this.loop && !this.closed && this.subscribers.size > 0) this.loop = this.read(cursor);
      } finally {
        this.starting = undefined;
      }
    })();
    await this.starting;
  }

  /** The id of the stream's newest entry ("0-0" when it is empty or missing): reading after it misses nothing newer. */
  private async streamEnd(): Promise<string> {
    const [newest] = await this.options.redis.xrevrange(this.options.stream, "+", "-", "COUNT", 1);
    return newest?.[0] ?? "0-0";
  }

  private async read(initialCursor: string): Promise<void> {
    // Yield first, so that `this.loop` is assigned before the loop can end and clear it.
    await Promise.resolve();
    let cursor = initialCursor;
    let failing = false;
    while (!this.closed && this.subscribers.size > 0) {
      let reply: [string, [string, string[]][]][] | null;
      // Created by the first client and kept while the process runs (close() disconnects it).
      const reader = (this.reader ??= connectRedis(this.options.redisTarget, this.options.connectionName, { logger: this.options.logger }));
      try {
        reply = (await reader.xread("COUNT", READ_COUNT, "BLOCK", READ_BLOCK_MS, "STREAMS", this.options.stream, cursor)) as typeof reply;
        if (failing) this.options.logger.info("live event feed: reading the events stream again");
        failing = false;
      } catch (error) {
        if (this.closed) break;
        if (!failing) this.options.logger.warn({ err: { message: (error as Error).message } }, "live event feed: reading the events stream failed; retrying");
        failing = true;
        await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS));
        continue;
      }
      const raw = reply?.[0]?.[1];
      if (!raw || raw.length === 0) continue;
      cursor = raw[raw.length - 1]![0];
      const entries = raw.flatMap(([id, fields]) => toEntry(id, fields) ?? []);
      if (entries.length === 0) continue;
      for (const subscriber of [...this.subscribers]) {
        try {
          subscriber.deliver(entries);
        } catch (error) {
          this.options.logger.warn({ err: { message: (error as Error).message } }, "live event feed: a client failed to take entries");
        }
      }
    }
    // Synchronously after the check above: a client that subscribes from here on starts a new loop.
    this.loop = undefined;
  }
}

/** A stream entry as the relay writes it, or undefined when a field is missing. */
function toEntry(streamId: string, fields: string[]): StreamEntry | undefined {
  const values = new Map<string, string>();
  for (let index = 0; index + 1 < fields.length; index += 2) values.set(fields[index]!, fields[index + 1]!);
  const eventType = values.get("event_type");
  const aggregateId = values.get("aggregate_id");
  const data = values.get("data");
  if (eventType === undefined || aggregateId === undefined || data === undefined) return undefined;
  return { streamId, eventType, aggregateId, data };
}

/**
 * Whether entries that followed `afterId` may be gone, from XINFO STREAM: the oldest entry left is
 * newer than `afterId` (MAXLEN trimming removed it, and maybe more after it: assumed so), the
 * stream is empty although entries followed it, or an entry after it was deleted (XDEL).
 */
function wasTrimmedAfter(info: unknown, afterId: string): boolean {
  const field = (name: string): unknown => {
    if (!Array.isArray(info)) return undefined;
    const index = info.indexOf(name);
    return index >= 0 ? info[index + 1] : undefined;
  };
  const firstEntry = field("first-entry");
  const firstId = Array.isArray(firstEntry) && typeof firstEntry[0] === "string" ? firstEntry[0] : undefined;
  if (firstId !== undefined) {
    if (compareStreamIds(firstId, afterId) > 0) return true;
  } else {
    const lastGenerated = field("last-generated-id");
    if (typeof lastGenerated === "string" && compareStreamIds(lastGenerated, afterId) > 0) return true;
  }
  const maxDeleted = field("max-deleted-entry-id");
  return typeof maxDeleted === "string" && compareStreamIds(maxDeleted, afterId) > 0;
}

const STREAM_ID = /^(\d+)-(\d+)$/;

/** Whether `value` is a complete stream entry id (`<ms>-<seq>`). */
export function isStreamId(value: string): boolean {
  return STREAM_ID.test(value) && value.length <= 41;
}

/** Orders stream entry ids as Redis does: by time, then sequence. */
export function compareStreamIds(a: string, b: string): number {
  const [, aMs = "0", aSeq = "0"] = STREAM_ID.exec(a) ?? [];
  const [, bMs = "0", bSeq = "0"] = STREAM_ID.exec(b) ?? [];
  const byMs = BigInt(aMs) - BigInt(bMs);
  if (byMs !== 0n) return byMs > 0n ? 1 : -1;
  const bySeq = BigInt(aSeq) - BigInt(bSeq);
  return bySeq === 0n ? 0 : bySeq > 0n ? 1 : -1;
}
