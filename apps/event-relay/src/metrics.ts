import { createMetricsRegistry, metricsOn } from "@hub/shared";

/**
 * Shares one read among the gauges a scrape collects together (their `collect()` calls start at
 * once), so several gauges fed by one query cost one query per scrape. A failed read gives
 * undefined: the gauges keep their last values.
 */
export function oncePerScrape<T>(read: () => Promise<T>): () => Promise<T | undefined> {
  let inFlight: Promise<T | undefined> | undefined;
  return () =>
    (inFlight ??= read()
      .catch(() => undefined)
      .finally(() => {
        inFlight = undefined;
      }));
}

/**
 * The relay's Prometheus metrics. One registry per relay instance, so several relays in one test
 * process keep separate figures. `readBacklog` is called on each scrape (not on a timer): the
 * backlog costs a query only when someone looks at it.
 */
export function createRelayMetrics(options: { readBacklog: () => Promise<{ undispatched: number; oldestAgeSeconds: number }>; defaultMetrics?: boolean }) {
  const registry = createMetricsRegistry("event-relay", { defaultMetrics: options.defaultMetrics ?? false });
  const metric = metricsOn(registry);

  // One scrape reads the backlog once for both gauges.
  const readBacklogOnce = oncePerScrape(options.readBacklog);

  return {
    registry,
    lag: metric.histogram(
      "hub_relay_lag_seconds",
      "Relay lag per event: created_at (its transaction's start) to dispatched_at (stamped right after the publish)",
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    ),
    published: metric.counter("hub_relay_events_published_total", "Events added to the Redis stream (a republished event counts again)"),
    dispatched: metric.counter("hub_relay_events_dispatched_total", "Events this relay stamped dispatched_at on (each event is stamped once)"),
    failures: metric.counter("hub_relay_failures_total", "Batches that failed and were retried after a back-off, by dependency (redis or database)", [
      "dependency",
    ]),
    ownedPartitions: metric.gauge("hub_relay_owned_partitions", "Outbox partitions this relay currently publishes"),
    scanFloor: metric.gauge("hub_relay_scan_floor_position", "Position below which no event is undispatched or can still appear; the relay reads from here"),
    backlog: metric.gauge("hub_relay_outbox_backlog", "Events not yet dispatched (all partitions), read at scrape time", {
      async collect() {
        const backlog = await readBacklogOnce();
        if (backlog) this.set(backlog.undispatched);
      },
    }),
    oldestUndispatchedAge: metric.gauge(
      "hub_relay_oldest_undispatched_age_seconds",
      "Age of the oldest event not yet dispatched (0 when none): rises when relays are stuck",
      {
        async collect() {
          const backlog = await readBacklogOnce();
          if (backlog) this.set(backlog.oldestAgeSeconds);
        },
      },
    ),
  };
}

export type RelayMetrics = ReturnType<typeof createRelayMetrics>;
