import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";

/** A tiny HTTP server for /metrics and /healthz of a non-HTTP app. */
export async function startMetricsServer(registry: Registry, port: number): Promise<Server | undefined> {
  if (port === 0) return undefined;
  const server = createServer((req, res) => {
    if (req.url === "/metrics") {
      registry.metrics().then(
        (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
      return;
    }
    if (req.url === "/healthz") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, resolve);
  });
  return server;
}
