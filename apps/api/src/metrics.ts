import { createHash, timingSafeEqual } from "node:crypto";
import client from "prom-client";
import { UnauthorizedError } from "@hub/shared";
import { createJobMetrics } from "./jobs/jobs.metrics";

/** The API's Prometheus registry (GET /metrics). Other modules add their own metrics to it. */
export function createMetrics() {
  const registry = new client.Registry();
  registry.setDefaultLabels({ app: "api" });
  client.collectDefaultMetrics({ register: registry });
  const httpRequestDuration = new client.Histogram({
    name: "hub_http_request_duration_seconds",
    help: "HTTP request latency by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return { registry, httpRequestDuration, jobs: createJobMetrics(registry) };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Guards GET /metrics with `HUB_METRICS_TOKEN` when one is configured (CONTRACT §6.1): throws a
 * 401 unless `authorization` is `Bearer <token>`. Both sides are hashed first so the constant-time
 * comparison also hides the token's length.
 */
export function assertMetricsAuthorized(authorization: string | undefined, metricsToken: string | undefined): void {
  if (metricsToken === undefined) return;
  const presented = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (presented === undefined) throw new UnauthorizedError("Not authenticated");
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  if (!timingSafeEqual(digest(presented), digest(metricsToken))) throw new UnauthorizedError("Could not validate credentials");
}
