/**
 * Following GET /events/stream in tests: an SSE client over fetch (as the console reads it), and
 * the event relay running in-process, so events travel outbox → relay → Redis stream → API → client
 * as in production.
 */
import { createEventRelay, type EventRelay } from "@hub/event-relay";
import { openDatabase, type Database } from "@hub/db";
import { createLogger, createRedis } from "@hub/shared";
import type { Redis } from "ioredis";
import type { TestHub } from "./harness";

/** One server-sent message. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** How long a test waits for a message it expects: a bound on a hung test, not an expectation. */
const MESSAGE_TIMEOUT_MS = 20_000;

/** An open event stream: messages and comments as they arrive. */
export class SseClient {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  private readonly waiters = new Set<() => void>();
  private ended = false;
  /** Resolves when the server ends the stream (or the client closed it). */
  readonly closed: Promise<void>;

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    this.closed = this.pump().finally(() => {
      this.ended = true;
      this.notify();
    });
  }

  /**
   * Opens the stream (`path`, default /events/stream) with a bearer `token` or a `workerKey`;
   * resolves once the response's headers arrived (the client is subscribed).
   */
  static async open(
    baseUrl: string,
    options: ({ token: string; workerKey?: undefined } | { token?: undefined; workerKey: string }) & { path?: string; query?: string; lastEventId?: string },
  ): Promise<SseClient> {
    const abort = new AbortController();
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.workerKey !== undefined) headers["x-worker-api-key"] = options.workerKey;
    if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
    const path = options.path ?? "/events/stream";
    const response = await fetch(`${baseUrl}${path}${options.query ? `?${options.query}` : ""}`, { headers, signal: abort.signal });
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return new SseClient(response, abort);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The event records received so far (messages without an `event:` name). */
  events(): any[] {
    return this.messages.filter((message) => message.event === "message").map((message) => JSON.parse(message.data));
  }

  /** Waits until `predicate` holds over what arrived (or the stream ended, or the bound passed). */
  async waitFor(what: string, predicate: (client: SseClient) => boolean, timeoutMs = MESSAGE_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (this.ended) throw new Error(`${what}: the stream ended first; received ${JSON.stringify(this.messages)}`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`${what}: not within ${timeoutMs} ms; received ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until the events received include one of `eventType` about `aggregateId`, and returns it. */
  async waitForEvent(eventType: string, aggregateId?: string): Promise<any> {
    const find = () => this.events().find((event) => event.event_type === eventType && (aggregateId === undefined || event.aggregate_id === aggregateId));
    await this.waitFor(`${eventType} ${aggregateId ?? ""}`, () => find() !== undefined);
    return find();
  }

  close(): void {
    this.abort.abort();
  }

  private notify(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  private async pump(): Promise<void> {
    const reader = this.response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += value;
        let boundary: number;
        while ((boundary = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, "");
          this.take(block);
        }
        this.notify();
      }
    } catch {
      // Aborted by close(), or the connection was cut: the stream is over either way.
    }
  }

  private take(block: string): void {
    let id: string | undefined;
    let event = "message";
    const data: string[] = [];
    let isMessage = false;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") {
        data.push(value);
        isMessage = true;
      }
    }
    if (isMessage) this.messages.push({ id, event, data: data.join("\n") });
  }
}

export interface RelayForHub {
  relay: EventRelay;
  /** A connection to the hub's Redis (for looking at the stream). */
  redis: Redis;
  stop(): Promise<void>;
}

/** Runs an event relay in this process on the hub's database and Redis prefix. */
export async function startRelayFor(hub: TestHub): Promise<RelayForHub> {
  const database: Database = openDatabase(hub.env.DATABASE_URL, { max: 2, applicationName: "hub-relay-test" });
  const redis = createRedis(hub.env.REDIS_URL, "hub-relay-test");
  const relay = createEventRelay({
    db: database.pool,
    databaseUrl: hub.env.DATABASE_URL,
    redis,
    keys: hub.api.ctx.keys,
    logger: createLogger("relay-test", hub.env.LOG_LEVEL),
  });
  await relay.start();
  return {
    relay,
    redis,
    stop: async () => {
      await relay.stop();
      redis.disconnect();
      await database.close();
    },
  };
}
