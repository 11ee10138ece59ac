/**
 * Arrange helpers for the SDK and CLI tests: the real API with a dispatcher (in-process), an
 * automation with its worker key, a logger whose lines a test can read, and a proxy in front of
 * the hub that counts requests and can answer 503 as the hub does while PostgreSQL is down.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import { createAutomationWithWorker, type AutomationWithWorker, type DispatchingHub } from "@hub/api/testing";

export { createJob, readJob, startHubWithDispatcher, waitFor, type DispatchingHub } from "@hub/api/testing";

/** An automation with a worker; failed attempts are retried without back-off, so tests need not wait. */
export function newAutomation(hub: DispatchingHub, body: Record<string, unknown> = {}): Promise<AutomationWithWorker> {
  return createAutomationWithWorker(hub, { retry_backoff_seconds: 0, ...body });
}

/** A pino logger writing JSON lines into `lines`, to check what a worker logs. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level: "debug" }, sink), lines };
}

export interface RecordedRequest {
  method: string;
  path: string;
  atMs: number;
  /** What the proxy answered itself (503 during an outage), or undefined when forwarded. */
  answeredStatus?: number;
}

export interface FaultProxy {
  url: string;
  requests: RecordedRequest[];
  /**
   * While set, requests whose path matches answer `status` (default 503, as the hub does when
   * PostgreSQL is down; 429 as it does at a stream cap) with this Retry-After (seconds).
   */
  outage: { paths: RegExp; retryAfterSeconds: number; status?: number; detail?: string } | undefined;
  close(): Promise<void>;
}

/** An HTTP proxy to `targetUrl` that records every request and can play an outage. */
export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const proxy: FaultProxy = {
    url: "",
    requests: [],
    outage: undefined,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const recorded: RecordedRequest = { method: req.method ?? "GET", path: req.url ?? "/", atMs: Date.now() };
    proxy.requests.push(recorded);
    const outage = proxy.outage;
    if (outage && outage.paths.test(recorded.path)) {
      recorded.answeredStatus = outage.status ?? 503;
      req.resume();
      res.writeHead(recorded.answeredStatus, { "content-type": "application/json", "retry-after": String(outage.retryAfterSeconds) });
      res.end(JSON.stringify({ detail: outage.detail ?? (recorded.answeredStatus === 429 ? "Too many open streams" : "Service temporarily unavailable") }));
      return;
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/** A promise with its resolve function, for "the handler has started" hand-offs. */
export function signalled<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
