import client from "prom-client";

/**
 * The relay's Prometheus metrics. One registry per relay instance, so several relays in one test
 * process keep separate figures. `readBacklog` is called on each scrape (not on a timer): the
 * backlog costs a query only when someone looks at it.
 */
export function createRelayMetrics(options: {
  readBacklog: () => Promise<{ undispatched: number; oldestAgeSeconds: number }>;
  defaultMetrics?: boolean;
}) {
  const registry = new client.Registry();
  registry.setDefaultLabels({ app: "event-relay" });
  if (options.defaultMetrics) client.collectDefaultMetrics({ register: registry });

  // One scrape reads the backlog once for both gauges (their collect() calls start together).
  let backlogRead: Promise<{ undispatched: number; oldestAgeSeconds: number } | undefined> | undefined;
  const readBacklogOnce = () => {
    backlogRead ??= options
      .readBacklog()
      .catch(() => undefined)
      .finally(() => {
        backlogRead = undefined;
      });
    return backlogRead;
  };

  return {
    registry,
    lag: new client.Histogram({
      name: "hub_relay_lag_seconds",
      help: "Relay lag per event: created_at (its transaction's start) to dispatched_at (stamped right after the publish)",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    published: new client.Counter({
      name: "hub_relay_events_published_total",
      help: "Events added to the Redis stream (a republished event counts again)",
      registers: [registry],
    }),
    dispatched: new client.Counter({
      name: "hub_relay_events_dispatched_total",
      help: "Events this relay stamped dispatched_at on (each event is stamped once)",
      registers: [registry],
    }),
    failures: new client.Counter({
      name: "hub_relay_failures_total",
      help: "Batches that failed and were retried after a back-off, by dependency (redis or database)",
      labelNames: ["dependency"] as const,
      registers: [registry],
    }),
    ownedPartitions: new client.Gauge({
      name: "hub_relay_owned_partitions",
      help: "Outbox partitions this relay currently publishes",
      registers: [registry],
    }),
    scanFloor: new client.Gauge({
      name: "hub_relay_scan_floor_position",
      help: "Position below which no event is undispatched or can still appear; the relay reads from here",
      registers: [registry],
    }),
    backlog: new client.Gauge({
      name: "hub_relay_outbox_backlog",
      help: "Events not yet dispatched (all partitions), read at scrape time",
      registers: [registry],
      async collect() {
        const backlog = await readBacklogOnce();
        if (backlog) this.set(backlog.undispatched);
      },
    }),
    oldestUndispatchedAge: new client.Gauge({
      name: "hub_relay_oldest_undispatched_age_seconds",
      help: "Age of the oldest event not yet dispatched (0 when none): rises when relays are stuck",
      registers: [registry],
      async collect() {
        const backlog = await readBacklogOnce();
        if (backlog) this.set(backlog.oldestAgeSeconds);
      },
    }),
  };
}

export type RelayMetrics = ReturnType<typeof createRelayMetrics>;
