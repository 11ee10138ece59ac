import client from "prom-client";
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
