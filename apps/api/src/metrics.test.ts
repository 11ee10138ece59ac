import type { automations } from "@hub/db";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMetrics, QUEUE_DEPTH_CACHE_MS } from "./metrics";

const depth = (slug: string, queued: number): automations.AutomationQueueDepth => ({
  slug,
  queued,
  running: 1,
  scheduled: 2,
  oldestQueuedAgeSeconds: 42.5,
  workerUp: true,
  blocked: 5,
  maxConcurrentJobs: 4,
  maintenanceActive: false,
  awaitingApproval: 3,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("per-automation queue gauges", () => {
  it("when two scrapes come together, then the depths are read once and every gauge shows them", async () => {
    const read = vi.fn(async () => [depth("nightly-report", 3)]);
    const { registry } = createMetrics({ queueDepth: { read } });

    const [first, second] = await Promise.all([registry.metrics(), registry.metrics()]);

    expect(read).toHaveBeenCalledTimes(1);
    expect(second).toMatch(/^hub_jobs_queued\{automation="nightly-report",app="api"\} 3$/m);
    expect(first).toMatch(/^hub_jobs_queued\{automation="nightly-report",app="api"\} 3$/m);
    expect(first).toMatch(/^hub_jobs_running\{automation="nightly-report",app="api"\} 1$/m);
    expect(first).toMatch(/^hub_jobs_scheduled\{automation="nightly-report",app="api"\} 2$/m);
    expect(first).toMatch(/^hub_jobs_blocked\{automation="nightly-report",app="api"\} 5$/m);
    expect(first).toMatch(/^hub_oldest_queued_job_age_seconds\{automation="nightly-report",app="api"\} 42.5$/m);
    expect(first).toMatch(/^hub_worker_up\{automation="nightly-report",app="api"\} 1$/m);
    expect(first).toMatch(/^hub_jobs_concurrency_limit\{automation="nightly-report",app="api"\} 4$/m);
  });

  it("when alerts fire, then hub_alerts_firing shows each kind, 0 included", async () => {
    const { registry } = createMetrics({ alertsFiring: { read: async () => ({ queue_age: 2, worker_offline: 0 }) } });

    const text = await registry.metrics();

    expect(text).toMatch(/^hub_alerts_firing\{kind="queue_age",app="api"\} 2$/m);
    expect(text).toMatch(/^hub_alerts_firing\{kind="worker_offline",app="api"\} 0$/m);
  });

  it("when an automation is gone from a later read, then its series are dropped", async () => {
    let now = 1_000_000;
    vi.spyOn(Date, "now").mockImplementation(() => now);
    const reads = [[depth("a", 1), depth("b", 2)], [depth("b", 5)]];
    const { registry } = createMetrics({ queueDepth: { read: async () => reads.shift() ?? [] } });

    expect(await registry.metrics()).toContain('automation="a"');
    now += QUEUE_DEPTH_CACHE_MS;
    const later = await registry.metrics();

    expect(later).not.toContain('automation="a"');
    expect(later).toMatch(/^hub_jobs_queued\{automation="b",app="api"\} 5$/m);
  });

  it("when the read fails, then the scrape still answers without the gauges' series, and the next scrape reads again", async () => {
    const read = vi
      .fn<() => Promise<automations.AutomationQueueDepth[]>>()
      .mockRejectedValueOnce(new Error("database down"))
      .mockResolvedValue([depth("c", 7)]);
    const { registry } = createMetrics({ queueDepth: { read } });

    expect(await registry.metrics()).not.toContain('automation="c"');
    expect(await registry.metrics()).toMatch(/^hub_jobs_queued\{automation="c",app="api"\} 7$/m);
  });
});
