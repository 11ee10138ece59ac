import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

/**
 * Whether a request to GET /metrics may read it (CONTRACT §6.1): always when no `metricsToken` is
 * configured, else only with `Authorization: Bearer <that token>` ("missing" without one,
 * "wrong" with another). Both sides are hashed first so the constant-time comparison also hides
 * the token's length.
 */
export function metricsAuthorization(authorization: string | undefined, metricsToken: string | undefined): "ok" | "missing" | "wrong" {
  if (metricsToken === undefined) return "ok";
  const presented = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (presented === undefined) return "missing";
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(presented), digest(metricsToken)) ? "ok" : "wrong";
}

export interface MetricsServerOptions {
  /** `HUB_METRICS_TOKEN`: when set, GET /metrics needs it as a bearer token (else 401), as on the API. */
  token?: string | undefined;
  /** `HOST`: the interface to listen on; unset, every interface (Node's default). */
  host?: string | undefined;
  /** The fields of /healthz and /readyz. */
  health?: () => Record<string, unknown>;
}

/**
 * The small HTTP server of a process that has no API of its own (dispatcher, relay): GET /metrics
 * (Prometheus text; with `token`, only for `Authorization: Bearer <token>`), GET /healthz
 * (liveness: 200 while the process runs, with `health()`'s fields) and GET /readyz (readiness, the
 * same answer: the server listens only once the process has checked its schema and started, so
 * answering at all means ready). Port 0 disables the server.
 */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  options: MetricsServerOptions = {},
): Promise<{ port: number; close(): Promise<void> } | undefined> {
  if (port === 0) return undefined;
  const health = options.health ?? (() => ({}));
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (req.method === "GET" && path === "/metrics") {
      const verdict = metricsAuthorization(req.headers.authorization, options.token);
      if (verdict !== "ok") {
        const detail = verdict === "missing" ? "Not authenticated" : "Could not validate credentials";
        res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }).end(JSON.stringify({ detail }));
        return;
      }
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
    if (options.host === undefined) server.listen(port, resolve);
    else server.listen(port, options.host, resolve);
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
