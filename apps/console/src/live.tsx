/**
 * Live updates: GET /events/stream read with fetch (the typed client, `parseAs: "stream"`), not
 * EventSource, so the token travels in the Authorization header and never in a URL. A dropped
 * connection is reopened with `Last-Event-ID`, so nothing is missed; when the hub cannot replay
 * what was missed it says `reset`, and listeners re-read what they show.
 *
 * The app holds one stream (no filters) and hands each event to the pages that listen; the events
 * page opens its own, with the filters the user picked.
 */
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import { call, describeError, hub, type HubEvent } from "./api";

export type LiveStatus = "connecting" | "live" | "reconnecting";

export interface StreamFilters {
  aggregate_id?: string;
  aggregate_type?: "sector" | "automation" | "job" | "user" | "schedule" | "maintenance_window" | "webhook" | "api_key" | "alert_rule";
  event_type?: string;
}

export interface StreamHandlers {
  onEvent(event: HubEvent): void;
  /** Events were missed and cannot be replayed: re-read the state. */
  onReset(): void;
  onStatus(status: LiveStatus): void;
  /** The hub refused the request (a bad filter): following stops. */
  onRefused?(detail: string): void;
}

/** Longest pause between reconnection attempts. */
const MAX_RECONNECT_DELAY_MS = 15_000;

/** The pause before reconnecting after `failures` failed attempts in a row: 1 s doubling to 15 s. */
export function reconnectDelayMs(failures: number): number {
  return Math.min(1000 * 2 ** Math.min(failures - 1, 4), MAX_RECONNECT_DELAY_MS);
}

/** Reads the event stream until `signal` aborts, reconnecting (with Last-Event-ID) whenever it drops. */
export async function followEvents(filters: StreamFilters, handlers: StreamHandlers, signal: AbortSignal): Promise<void> {
  let lastEventId: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    handlers.onStatus(failures === 0 && lastEventId === undefined ? "connecting" : "reconnecting");
    try {
      const { data, error, response } = await hub.GET("/events/stream", {
        params: { query: filters, header: lastEventId === undefined ? {} : { "last-event-id": lastEventId } },
        parseAs: "stream",
        signal,
      });
      if (response.status === 401) return; // the session ended: the app signs out
      if (response.status >= 400 && response.status < 500) {
        handlers.onRefused?.(await call(Promise.resolve({ error, response })).then(String, describeError));
        return;
      }
      if (response.ok && data) {
        failures = 0;
        handlers.onStatus("live");
        await readMessages(data, signal, (message) => {
          if (message.id !== undefined) lastEventId = message.id;
          if (message.event === "reset") handlers.onReset();
          else if (message.event === "message") handlers.onEvent(JSON.parse(message.data) as HubEvent);
        });
      }
    } catch {
      // Network failure or abort: retried below unless aborted.
    }
    if (signal.aborted) return;
    failures += 1;
    handlers.onStatus("reconnecting");
    await pause(reconnectDelayMs(failures), signal);
  }
}

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Parses text/event-stream (messages separated by a blank line; `:` lines are comments).
 * `onChunkRead` follows the messages of each chunk read, for callers that gather them.
 */
export async function readMessages(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  onMessage: (message: SseMessage) => void,
  onChunkRead?: () => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener("abort", stop, { once: true });
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let boundary: RegExpExecArray | null;
      while ((boundary = /\r?\n\r?\n/.exec(buffer))) {
        const block = buffer.slice(0, boundary.index);
        buffer = buffer.slice(boundary.index + boundary[0].length);
        const message = parseBlock(block);
        if (message) onMessage(message);
      }
      onChunkRead?.();
    }
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

function parseBlock(block: string): SseMessage | undefined {
  let id: string | undefined;
  let event = "message";
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") id = value;
    else if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length > 0 ? { id, event, data: data.join("\n") } : undefined;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}

/** What a page is told: each event, or that it should re-read everything. */
export type LiveListener = (event: HubEvent | "reset") => void;

interface LiveContextValue {
  status: LiveStatus;
  listen(listener: LiveListener): () => void;
}

const LiveContext = createContext<LiveContextValue>({ status: "connecting", listen: () => () => undefined });

/** Holds the app's one event stream while a user is signed in. */
export function LiveEventsProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<LiveStatus>("connecting");
  const listeners = useRef(new Set<LiveListener>());
  const [value] = useState<Omit<LiveContextValue, "status">>(() => ({
    listen(listener: LiveListener) {
      listeners.current.add(listener);
      return () => listeners.current.delete(listener);
    },
  }));

  useEffect(() => {
    const abort = new AbortController();
    const tell = (event: HubEvent | "reset") => {
      for (const listener of [...listeners.current]) listener(event);
    };
    void followEvents({}, { onEvent: tell, onReset: () => tell("reset"), onStatus: setStatus }, abort.signal);
    return () => abort.abort();
  }, []);

  return <LiveContext.Provider value={{ ...value, status }}>{children}</LiveContext.Provider>;
}

/** The app stream's connection state (shown in the header). */
export function useLiveStatus(): LiveStatus {
  return useContext(LiveContext).status;
}

/** Calls `listener` (its latest version) for each live event while the component is mounted. */
export function useLiveEvents(listener: LiveListener): void {
  const { listen } = useContext(LiveContext);
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => listen((event) => latest.current(event)), [listen]);
}

/** The automation an event is about, when it is about one (its own events, its worker's, its jobs'). */
export function automationIdOf(event: HubEvent): string | undefined {
  if (event.event_type.startsWith("automation.") || event.event_type.startsWith("worker.")) return event.aggregate_id;
  const payload = event.payload as { automation_id?: unknown };
  return typeof payload.automation_id === "string" ? payload.automation_id : undefined;
}
