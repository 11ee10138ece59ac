import type { Registry } from "prom-client";
import type { automations } from "@hub/db";
import { createMetricsRegistry, metricsAuthorization, metricsOn, type Logger } from "@hub/shared";
import { UnauthorizedError } from "./http/http-errors";
import { createJobMetrics } from "./jobs/jobs.metrics";

/** Where the per-automation gauges come from: one aggregate read of every active automation. */
export interface QueueDepthSource {
  read(): Promise<automations.AutomationQueueDepth[]>;
  /** Told when a scrape could not read the depths (the gauges are then left out of that scrape). */
  logger?: Logger;
}

/**
 * How long one aggregate read serves scrapes: two Prometheus replicas scraping together (or a
 * scrape per gauge) cost one query, and the figures are at most this stale.
 */
export const QUEUE_DEPTH_CACHE_MS = 2000;

/** Where the §6.13 gauges come from: one aggregate read of the active automations with a key or a rate limit. */
export interface LimitDepthSource {
  read(): Promise<automations.AutomationLimitDepth[]>;
  logger?: Logger;
}

/**
 * Reads the depths at most once per {@link QUEUE_DEPTH_CACHE_MS}; concurrent callers share the read
 * in flight. A failed read is not cached.
 */
function cachedQueueDepths<Depth>(source: { read(): Promise<Depth[]> }): () => Promise<Depth[]> {
  let cached: { at: number; depths: Promise<Depth[]> } | undefined;
  return () => {
    const now = Date.now();
    if (cached && now - cached.at < QUEUE_DEPTH_CACHE_MS) return cached.depths;
    const depths = source.read();
    const entry = { at: now, depths };
    cached = entry;
    depths.catch(() => {
      if (cached === entry) cached = undefined;
    });
    return depths;
  };
}

/**
 * The per-automation gauges of CONTRACT §6.3 (label `automation` = slug), filled at scrape time
 * from one aggregate read shared by all five. Each scrape resets them first, so a deactivated (or
 * renamed-away) automation's series disappear instead of freezing at their last value.
 */
function registerQueueDepthGauges(registry: Registry, source: QueueDepthSource): void {
  const readDepths = cachedQueueDepths(source);
  const metric = metricsOn(registry);
  const gauge = (name: string, help: string, valueOf: (depth: automations.AutomationQueueDepth) => number) =>
    metric.gauge(name, help, {
      labelNames: ["automation"],
      async collect() {
        this.reset();
        let depths: automations.AutomationQueueDepth[];
        try {
          depths = await readDepths();
        } catch (error) {
          source.logger?.warn({ err: error, metric: name }, "queue depth gauges not read");
          return;
        }
        for (const depth of depths) this.set({ automation: depth.slug }, valueOf(depth));
      },
    });
  gauge("hub_jobs_queued", "Queued jobs whose available_at has come, per active automation", (depth) => depth.queued);
  gauge("hub_jobs_running", "Running jobs per active automation", (depth) => depth.running);
  gauge(
    "hub_jobs_concurrency_limit",
    "The automation's max_concurrent_jobs, per active automation (running jobs never exceed it)",
    (depth) => depth.maxConcurrentJobs,
  );
  gauge("hub_jobs_scheduled", "Queued jobs whose available_at is still ahead (delayed or in back-off), per active automation", (depth) => depth.scheduled);
  gauge("hub_jobs_blocked", "Queued jobs waiting for their dependencies (not in hub_jobs_queued), per active automation", (depth) => depth.blocked);
  gauge("hub_jobs_awaiting_approval", "Queued jobs awaiting an approval (not in hub_jobs_queued), per active automation", (depth) => depth.awaitingApproval);
  gauge(
    "hub_oldest_queued_job_age_seconds",
    "Seconds since the earliest available_at among the due queued jobs, per active automation (0 when none waits)",
    (depth) => depth.oldestQueuedAgeSeconds,
  );
  gauge("hub_worker_up", "1 when the automation's worker is registered and running (seen within HUB_WORKER_TTL_SECONDS), else 0", (depth) =>
    depth.workerUp ? 1 : 0,
  );
  // §6.18.
  gauge("hub_maintenance_active", "1 while a maintenance window holds the automation's jobs (in effect, or draining before it begins), else 0", (depth) =>
    depth.maintenanceActive ? 1 : 0,
  );
}

/**
 * The gauges of CONTRACT §6.13, filled at scrape time from one aggregate read shared by the three:
 * per automation `hub_jobs_rate_limited` and `hub_jobs_key_limited`, and `hub_key_jobs_queued` for
 * at most GAUGED_KEYS_MAX key values per automation (those with the most due queued jobs; the jobs
 * whose context lacks the key under `key=""`), so no other key value ever becomes a label.
 */
function registerLimitDepthGauges(registry: Registry, source: LimitDepthSource): void {
  const readDepths = cachedQueueDepths(source);
  const metric = metricsOn(registry);
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (set: (labels: Record<string, string>, value: number) => void, depth: automations.AutomationLimitDepth) => void,
  ) =>
    metric.gauge(name, help, {
      labelNames,
      async collect() {
        this.reset();
        let depths: automations.AutomationLimitDepth[];
        try {
          depths = await readDepths();
        } catch (error) {
          source.logger?.warn({ err: error, metric: name }, "limit gauges not read");
          return;
        }
        for (const depth of depths) fill((labels, value) => this.set(labels, value), depth);
      },
    });
  gauge(
    "hub_jobs_rate_limited",
    "Due queued jobs held back by a full rate-limit window, per active automation with a key or a rate limit",
    ["automation"],
    (set, depth) => set({ automation: depth.slug }, depth.rateLimited),
  );
  gauge(
    "hub_jobs_key_limited",
    "Due queued jobs whose concurrency_key value runs max_concurrent_per_key jobs, per active automation with a key or a rate limit",
    ["automation"],
    (set, depth) => set({ automation: depth.slug }, depth.keyLimited),
  );
  gauge(
    "hub_key_jobs_queued",
    "Due queued jobs per concurrency_key value, for the 20 values with the most per automation",
    ["automation", "key"],
    (set, depth) => {
      for (const { key, queued } of depth.topKeys) set({ automation: depth.slug, key: key ?? "" }, queued);
    },
  );
}

/** Where `hub_alerts_firing{kind}` comes from (CONTRACT §6.19): one grouped count of the firing alerts. */
export interface AlertsFiringSource {
  read(): Promise<Record<string, number>>;
  logger?: Logger;
}

/** `hub_alerts_firing{kind}`: every kind, 0 included, read at scrape time (cached as the queue gauges). */
function registerAlertsFiringGauge(registry: Registry, source: AlertsFiringSource): void {
  const read = cachedQueueDepths({ read: async () => [await source.read()] });
  metricsOn(registry).gauge("hub_alerts_firing", "Alerts firing now (a rule and one automation each), by the rule's kind", {
    labelNames: ["kind"],
    async collect() {
      this.reset();
      try {
        const [counts] = await read();
        for (const [kind, firing] of Object.entries(counts ?? {})) this.set({ kind }, firing);
      } catch (error) {
        source.logger?.warn({ err: error, metric: "hub_alerts_firing" }, "alert gauge not read");
      }
    },
  });
}

/**
 * The API's Prometheus registry (GET /metrics). Other modules add their own metrics to it.
 * `queueDepth`, when given, adds the per-automation queue gauges; `limitDepth` the §6.13 gauges;
 * `alertsFiring` the §6.19 gauge.
 */
export function createMetrics(options: { queueDepth?: QueueDepthSource; limitDepth?: LimitDepthSource; alertsFiring?: AlertsFiringSource } = {}) {
  const registry = createMetricsRegistry("api");
  const httpRequestDuration = metricsOn(registry).histogram(
    "hub_http_request_duration_seconds",
    "HTTP request latency by method, route and status",
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    ["method", "route", "status"],
  );
  if (options.queueDepth) registerQueueDepthGauges(registry, options.queueDepth);
  if (options.limitDepth) registerLimitDepthGauges(registry, options.limitDepth);
  if (options.alertsFiring) registerAlertsFiringGauge(registry, options.alertsFiring);
  const eventStreamClients = metricsOn(registry).gauge("hub_event_stream_clients", "Clients connected to GET /events/stream in this API process");
  const loginThrottled = metricsOn(registry).counter(
    "hub_login_throttled_total",
    "Logins refused with 429, by the limit that refused them: address (requests per address per minute), email_address (failures of one e-mail from one address), email (failures of one e-mail)",
    ["limit"],
  );
  const loginOverloaded = metricsOn(registry).counter(
    "hub_login_overloaded_total",
    "Logins answered 503 because they waited more than 2 s for a password hashing slot",
  );
  const streamsOpen = metricsOn(registry).gauge(
    "hub_streams_open",
    "Server-sent event streams open in this API process, by stream (events, job_logs, worker_signals)",
    {
      labelNames: ["stream"],
    },
  );
  const streamsRefused = metricsOn(registry).counter(
    "hub_streams_refused_total",
    "Streams refused with 429 because their user or worker key had as many open as allowed, by stream",
    ["stream"],
  );
  return { registry, httpRequestDuration, eventStreamClients, loginThrottled, loginOverloaded, streamsOpen, streamsRefused, jobs: createJobMetrics(registry) };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Guards GET /metrics with `HUB_METRICS_TOKEN` when one is configured (CONTRACT §6.1): throws a
 * 401 unless `authorization` is `Bearer <token>` (@hub/shared `metricsAuthorization`, which the
 * dispatcher's and relay's metrics servers use too).
 */
export function assertMetricsAuthorized(authorization: string | undefined, metricsToken: string | undefined): void {
  const verdict = metricsAuthorization(authorization, metricsToken);
  if (verdict === "missing") throw new UnauthorizedError("Not authenticated");
  if (verdict === "wrong") throw new UnauthorizedError("Could not validate credentials");
}
