import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "@hub/test-services";
import { createMetricsRegistry, metricsOn } from "./metrics";
import { startMetricsServer } from "./metrics-server";

describe("createMetricsRegistry and metricsOn", () => {
  it("when metrics are declared on a process's registry, then every series carries its app label and a gauge is read at scrape time", async () => {
    const registry = createMetricsRegistry("dispatcher", { defaultMetrics: false });
    const metric = metricsOn(registry);
    metric.counter("test_offers_total", "Offers by path", ["path"]).inc({ path: "queue" }, 3);
    let depth = 5;
    metric.gauge("test_depth", "Depth read on scrape", {
      collect() {
        this.set(depth);
      },
    });
    metric.histogram("test_wait_seconds", "Waits", [0.1, 1]).observe(0.5);

    depth = 7;
    const text = await registry.metrics();

    expect(text).toMatch(/^test_offers_total\{path="queue",app="dispatcher"\} 3$/m);
    expect(text).toMatch(/^test_depth\{app="dispatcher"\} 7$/m);
    expect(text).toMatch(/^test_wait_seconds_bucket\{le="1",app="dispatcher"\} 1$/m);
    expect(text).not.toContain("process_cpu_seconds_total");
  });

  it("when default metrics are on, then the process's own figures are exported too", async () => {
    const text = await createMetricsRegistry("api").metrics();

    expect(text).toMatch(/^process_cpu_seconds_total\{app="api"\} /m);
  });
});

describe("startMetricsServer", () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it("when port 0 is asked for, then no server starts", async () => {
    expect(await startMetricsServer(createMetricsRegistry("relay", { defaultMetrics: false }), 0)).toBeUndefined();
  });

  it("when it runs, then /metrics answers Prometheus text, /healthz and /readyz its health fields, anything else 404", async () => {
    const registry = createMetricsRegistry("relay", { defaultMetrics: false });
    metricsOn(registry).counter("test_published_total", "Published").inc(2);
    const server = await startMetricsServer(registry, await freePort(), { health: () => ({ owned_partitions: 32 }) });
    close = server?.close;
    const base = `http://127.0.0.1:${server!.port}`;

    const metrics = await fetch(`${base}/metrics`);
    const health = await fetch(`${base}/healthz?probe=1`);
    const ready = await fetch(`${base}/readyz`);
    const other = await fetch(`${base}/other`);

    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^test_published_total\{app="relay"\} 2$/m);
    expect(await health.json()).toEqual({ status: "ok", owned_partitions: 32 });
    expect([ready.status, await ready.json()]).toEqual([200, { status: "ok", owned_partitions: 32 }]);
    expect([other.status, await other.json()]).toEqual([404, { detail: "Not Found" }]);
  });

  it("when HUB_METRICS_TOKEN is set, then /metrics needs it as a bearer token (401 otherwise) while the health checks stay open", async () => {
    const token = "metrics-token-of-the-test";
    const server = await startMetricsServer(createMetricsRegistry("dispatcher", { defaultMetrics: false }), await freePort(), { token, host: "127.0.0.1" });
    close = server?.close;
    const base = `http://127.0.0.1:${server!.port}`;

    const anonymous = await fetch(`${base}/metrics`);
    const wrong = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer not-the-token" } });
    const right = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    const health = await fetch(`${base}/healthz`);

    expect([anonymous.status, await anonymous.json()]).toEqual([401, { detail: "Not authenticated" }]);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
    expect(wrong.status).toBe(401);
    expect(right.status).toBe(200);
    expect(health.status).toBe(200);
  });
});
