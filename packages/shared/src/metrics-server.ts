import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/**
 * The small HTTP server of a process that has no API of its own (dispatcher, relay): GET /metrics
 * (Prometheus text), GET /healthz (liveness: 200 while the process runs, with `health()`'s
 * fields) and GET /readyz (readiness, the same answer: the server listens only once the process
 * has checked its schema and started, so answering at all means ready). Port 0 disables the server.
 */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  health: () => Record<string, unknown> = () => ({}),
): Promise<{ port: number; close(): Promise<void> } | undefined> {
  if (port === 0) return undefined;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/metrics") {
      registry.metrics().then(
        (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
        () => res.writeHead(500, { "content-type": "application/json" }).end('{"detail":"Internal Server Error"}'),
      );
      return;
    }
    if (req.method === "GET" && (path === "/healthz" || path === "/readyz")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok", ...health() }));
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Scrapers keep connections alive; nothing here is worth waiting for at shutdown.
        server.closeAllConnections();
      }),
  };
}
