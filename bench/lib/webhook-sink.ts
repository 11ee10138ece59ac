/**
 * A local webhook endpoint for the benchmark's `hub-webhooks` part: it answers 204 to every
 * delivery at once and counts what arrived (by `webhook-id`, so a redelivery is not counted twice).
 * It does not verify signatures — the relay's tests do, with an independent implementation — so
 * that the sink costs as little CPU as a real receiver that hands the body to a queue.
 */
import { startHttpSink } from "./http-sink";

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
  const sink = await startHttpSink(204, (req) => {
    const id = req.headers["webhook-id"];
    if (typeof id === "string") ids.add(id);
  });
  return { url: `${sink.origin}/hub-events`, received: () => ids.size, requests: sink.requests, close: sink.close };
}
