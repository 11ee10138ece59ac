/** A claimed job's trace context: sent with the calls about the job, given to hub-worker's command. */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { traceEnvironment } from "./cli/run-command";
import { HubWorkerClient } from "./hub-client";

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
const JOB_ID = "6f1c1a56-34a4-4c39-9a1c-5a0c3f0d2b10";

/** A stand-in hub: hands out one job with `traceparent` on claim, records every request's headers. */
async function standInHub(traceparent: string | null) {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    seen.push({ path: request.url ?? "", headers: request.headers });
    request.resume();
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      if (request.url === "/jobs/claim")
        response.end(JSON.stringify({ id: JOB_ID, attempts: 1, status: "running", traceparent, tracestate: traceparent ? "hub=1" : null }));
      else if (request.url?.endsWith("/heartbeat")) response.end(JSON.stringify({ lease_expires_at: new Date().toISOString() }));
      else response.end(JSON.stringify({ id: JOB_ID, status: "completed" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe("a job's trace context in the worker", () => {
  it("when the claim carries a traceparent, then every call about the job sends it, and none after the job is done", async () => {
    const hub = await standInHub(TRACEPARENT);
    close = hub.close;
    const client = new HubWorkerClient({ baseUrl: hub.url, apiKey: "k".repeat(43) });
    const job = await client.claim();
    await client.heartbeat(job!.id, 1);
    await client.complete(job!.id, { ok: true }, 1);
    await client.heartbeat(job!.id, 1);
    const [claim, heartbeat, complete, late] = hub.seen;
    expect(claim!.headers.traceparent).toBeUndefined();
    expect(heartbeat!.headers).toMatchObject({ traceparent: TRACEPARENT, tracestate: "hub=1" });
    expect(complete!.headers).toMatchObject({ traceparent: TRACEPARENT, tracestate: "hub=1" });
    expect(late!.headers.traceparent).toBeUndefined();
  });

  it("when the hub does not trace, then no trace header is sent and hub-worker's command gets no TRACEPARENT", async () => {
    const hub = await standInHub(null);
    close = hub.close;
    const client = new HubWorkerClient({ baseUrl: hub.url, apiKey: "k".repeat(43) });
    const job = await client.claim();
    await client.complete(job!.id, { ok: true }, 1);
    expect(hub.seen.every((request) => request.headers.traceparent === undefined)).toBe(true);
    expect(traceEnvironment({ traceparent: null, tracestate: null })).toEqual({ TRACEPARENT: undefined, TRACESTATE: undefined });
    expect(traceEnvironment({ traceparent: TRACEPARENT, tracestate: "hub=1" })).toEqual({ TRACEPARENT: TRACEPARENT, TRACESTATE: "hub=1" });
  });
});
