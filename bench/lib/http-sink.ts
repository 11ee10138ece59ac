/**
 * A local HTTP endpoint that answers every request at once and keeps nothing of its body, so that
 * it costs this driver as little CPU as a real receiver that hands the body to a queue: the
 * `hub-webhooks` part's webhook endpoint (./webhook-sink.ts) and the tracing mode's OTLP collector.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface HttpSink {
  /** `http://127.0.0.1:<port>` (no path: every path is answered alike). */
  origin: string;
  /** Requests received. */
  requests(): number;
  /** Body bytes received. */
  bytes(): number;
  close(): Promise<void>;
}

/** Starts a sink answering `status` with no body; `onRequest` sees each request's headers first. */
export async function startHttpSink(status: number, onRequest?: (request: IncomingMessage) => void): Promise<HttpSink> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    requests++;
    onRequest?.(req);
    req.on("data", (chunk: Buffer) => (bytes += chunk.length));
    req.on("end", () => {
      res.writeHead(status);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    bytes: () => bytes,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
