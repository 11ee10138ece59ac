/** Reading a text/event-stream body (the hub's signals stream) message by message. */

export interface SseMessage {
  /** The `event:` field; "message" when absent. */
  event: string;
  /** The `data:` lines, joined by "\n". */
  data: string;
  id: string | undefined;
}

/** One message from its lines (comments, starting with ":", are the hub's keep-alives). */
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

/** Yields each message of `body` until it ends (messages are separated by a blank line). */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let boundary: RegExpExecArray | null;
    while ((boundary = /\r?\n\r?\n/.exec(buffer))) {
      const block = buffer.slice(0, boundary.index);
      buffer = buffer.slice(boundary.index + boundary[0].length);
      const message = parseBlock(block);
      if (message) yield message;
    }
  }
}
