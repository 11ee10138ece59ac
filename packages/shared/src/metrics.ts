import { activeTracing } from "@hub/tracing";
import client from "prom-client";

/**
 * The Prometheus registry of one hub process: every series carries `app` (api, dispatcher,
 * event-relay), and the process's default metrics (CPU, memory, event loop) are collected unless
 * `defaultMetrics` is false (several relays in one test process keep separate figures). One
 * registry per instance, never prom-client's global one.
 */
export function createMetricsRegistry(app: string, options: { defaultMetrics?: boolean } = {}): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ app });
  if (options.defaultMetrics ?? true) client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  registerTraceMetrics(registry);
  return registry;
}

/**
 * `hub_trace_spans_dropped_total` (CONTRACT §6.20): spans the process could not export — the
 * queue was full, or the collector failed or did not answer in time. Always present (0 while
 * tracing is off), so an alert on it needs no second rule for "tracing not configured".
 */
function registerTraceMetrics(registry: client.Registry): void {
  new client.Counter({
    name: "hub_trace_spans_dropped_total",
    help: "Trace spans dropped without being exported: export queue full, or the collector failed or did not answer in time",
    registers: [registry],
    collect() {
      const dropped = activeTracing()?.droppedSpans() ?? 0;
      this.reset();
      if (dropped > 0) this.inc(dropped);
    },
  });
}

/**
 * How often the event-loop lag (`nodejs_eventloop_lag_*` percentiles) is sampled: each sample is a
 * timer that wakes the process. prom-client's default, 10 ms, woke an idle process 100 times a
 * second (about 5 ms of CPU a second); every 100 ms still cost 0.7 ms a second per process, a
 * tenth of the idle hub's target for three processes. Every 500 ms costs a fifth of
 * that; a stall still shows in the percentiles in proportion to its length (a 100 ms stall in one
 * sample of five), and `nodejs_eventloop_lag_seconds`, measured at each scrape, is unaffected.
 */
export const EVENT_LOOP_SAMPLE_MS = 500;

/** Gauge options beyond name and help. */
export interface GaugeOptions<L extends string> {
  labelNames?: readonly L[];
  /** Called on each scrape to set the gauge (read-at-scrape gauges). */
  collect?: (this: client.Gauge<L>) => void | Promise<void>;
}

/** Metrics registered on `registry`, declared in one line each: `metric.counter(name, help, labels)`. */
export function metricsOn(registry: client.Registry) {
  const registers = [registry];
  return {
    counter: <L extends string = string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new client.Counter<L>({ name, help, labelNames, registers }),
    histogram: <L extends string = string>(name: string, help: string, buckets: readonly number[], labelNames: readonly L[] = []) =>
      new client.Histogram<L>({ name, help, buckets: [...buckets], labelNames, registers }),
    gauge: <L extends string = string>(name: string, help: string, options: GaugeOptions<L> = {}) =>
      new client.Gauge<L>({ name, help, labelNames: options.labelNames ?? [], registers, ...(options.collect ? { collect: options.collect } : {}) }),
  };
}

/** Seconds, from a fast claim to the longest long-poll (30 s) and jobs that wait or run for an hour. */
export const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600] as const;
