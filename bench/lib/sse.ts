/**
 * Following a server-sent-events answer (`GET /jobs/{id}/logs/stream`) from the driver, message by
 * message, each stamped with `performance.now()` as it is parsed. The worker SDK reads its signals
 * stream with a reader of its own that it does not export.
 */
import { performance } from "node:perf_hooks";

export interface TimedSseMessage {
  /** The `event:` field; "message" when absent. */
  event: string;
  data: string;
  id: string | undefined;
  /** When the message's last byte had been read (performance.now()). */
  at: number;
}

function parseBlock(block: string, at: number): TimedSseMessage | undefined {
  let id: string | undefined;
  let event = "message";
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    // Comments (":") are keep-alives.
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") id = value;
    else if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length > 0 ? { id, event, data: data.join("\n"), at } : undefined;
}

/** Yields each message of `body` until it ends or its request is aborted. */
export async function* readTimedEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<TimedSseMessage> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    const at = performance.now();
    buffer += decoder.decode(value, { stream: true });
    let boundary: RegExpExecArray | null;
    while ((boundary = /\r?\n\r?\n/.exec(buffer))) {
      const message = parseBlock(buffer.slice(0, boundary.index), at);
      buffer = buffer.slice(boundary.index + boundary[0].length);
      if (message) yield message;
    }
  }
}
