/**
 * What every server-sent event stream of the API writes the same way: the response headers and
 * the first lines, and one message's framing (https://html.spec.whatwg.org/#server-sent-events).
 */
import type { Request, Response } from "express";

/** What a browser's EventSource waits before reconnecting (the SSE `retry` field), in ms. */
export const CLIENT_RETRY_MS = 2000;

/** Answers 200 `text/event-stream` and sends the `retry` field and a first comment at once. */
export function openEventStream(req: Request, res: Response): void {
  res.status(200).set({
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    // Reverse proxies (nginx) would otherwise buffer the stream.
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();
  req.socket.setNoDelay(true);
  res.write(`retry: ${CLIENT_RETRY_MS}\n: connected\n\n`);
}

/**
 * One message: `id:` and `event:` when given, then `data` (JSON text, or any text, split into
 * `data:` lines as SSE requires), then the blank line.
 */
export function sseMessage(message: { id?: string | number | undefined; event?: string | undefined; data: string }): string {
  const head = `${message.id === undefined ? "" : `id: ${message.id}\n`}${message.event === undefined ? "" : `event: ${message.event}\n`}`;
  return `${head}${message.data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join("\n")}\n\n`;
}

/** Resolves once the response's buffer drained or the client left. */
export function drained(res: Response): Promise<void> {
  if (res.closed || res.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}
