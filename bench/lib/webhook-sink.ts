/**
 * A local webhook endpoint for the benchmark's `hub-webhooks` part: it answers 204 to every
 * delivery at once and counts what arrived (by `webhook-id`, so a redelivery is not counted twice).
 * It does not verify signatures — the relay's tests do, with an independent implementation — so
 * that the sink costs as little CPU as a real receiver that hands the body to a queue.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface WebhookSink {
  url: string;
  /** Distinct events received. */
  received(): number;
  /** Requests received, redeliveries included. */
  requests(): number;
  close(): Promise<void>;
}

export async function startWebhookSink(): Promise<WebhookSink> {
  const ids = new Set<string>();
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const id = req.headers["webhook-id"];
    if (typeof id === "string") ids.add(id);
    req.resume();
    req.on("end", () => {
      res.writeHead(204);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hub-events`,
    received: () => ids.size,
    requests: () => requests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
