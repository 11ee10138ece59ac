/**
 * The delivery loop's metrics, on the relay's registry (its `/metrics`). The pending gauge and the
 * failure streaks are read from PostgreSQL at scrape time (one query for both), so every relay
 * reports the same figures for them whichever relay sent what; the counters and the histogram are
 * this relay's own.
 */
import client from "prom-client";
import type { webhookDeliveries } from "@hub/db";
import { oncePerScrape } from "../metrics";

export function createWebhookMetrics(options: { registry: client.Registry; readHealth: () => Promise<webhookDeliveries.WebhookDeliveryHealth> }) {
  const { registry } = options;
  const readHealthOnce = oncePerScrape(options.readHealth);

  return {
    deliveries: new client.Counter({
      name: "hub_webhook_deliveries_total",
      help: "Webhook attempts by outcome: delivered (2xx), retrying (failed, another attempt is scheduled) or failed (the last attempt failed)",
      labelNames: ["outcome"] as const,
      registers: [registry],
    }),
    attempts: new client.Counter({
      name: "hub_webhook_attempts_total",
      help: "Webhook attempts by result: 2xx, http_error (any other status, redirects included), network_error, timeout, refused (SSRF check)",
      labelNames: ["result"] as const,
      registers: [registry],
    }),
    latency: new client.Histogram({
      name: "hub_webhook_delivery_duration_seconds",
      help: "Duration of webhook attempts that reached the endpoint: request sent to answer (or timeout)",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    pending: new client.Gauge({
      name: "hub_webhook_deliveries_pending",
      help: "Webhook deliveries of active subscriptions not yet delivered or failed (due, waiting for a retry, or in flight), read at scrape time",
      registers: [registry],
      async collect() {
        const health = await readHealthOnce();
        if (health) this.set(health.pending);
      },
    }),
    failureStreak: new client.Gauge({
      name: "hub_webhook_failure_streak",
      help: "Failed attempts in a row per active subscription (0 after a delivered one), read at scrape time",
      labelNames: ["webhook_id"] as const,
      registers: [registry],
      async collect() {
        const health = await readHealthOnce();
        if (!health) return;
        this.reset();
        for (const streak of health.failureStreaks) this.set({ webhook_id: streak.webhookId }, streak.consecutiveFailures);
      },
    }),
  };
}

export type WebhookMetrics = ReturnType<typeof createWebhookMetrics>;
