/**
 * CONTRACT §6.19: the Prometheus rules pass `promtool check rules` and their unit tests
 * (`promtool test rules` on the sample series of alerts.test.yml), cover what the hub's operators
 * page on, and the Grafana dashboard is well-formed and queries only the hub's metric families.
 * That every family named here is one a running hub exports: packages/system-tests/test/monitoring.test.ts.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ALERT_RULES_FILE, ALERT_RULES_TEST_FILE, alertRules, dashboard, dashboardQueries, metricNamesOf, promtool } from "./monitoring";

function run(args: string[]): string {
  try {
    return execFileSync(promtool(), args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    throw new Error(`promtool ${args.join(" ")} failed:\n${failed.stdout ?? ""}${failed.stderr ?? ""}`);
  }
}

describe("deploy/prometheus/alerts.yml", () => {
  it("when promtool checks the rules, then they are valid", () => {
    expect(run(["check", "rules", ALERT_RULES_FILE])).toMatch(/SUCCESS: 6 rules found/);
  });

  it("when promtool runs the rules' unit tests on sample series, then each rule fires where it should and stays quiet where it should not", () => {
    expect(run(["test", "rules", ALERT_RULES_TEST_FILE])).toMatch(/SUCCESS/);
  });

  it("when the rules are read, then they cover queue age, worker down, failure rate, relay lag, login throttling and no dispatcher, each with a severity", () => {
    const rules = alertRules();
    expect(rules.map((rule) => rule.alert)).toEqual(["HubQueueAge", "HubWorkerDown", "HubFailureRate", "HubRelayLag", "HubLoginThrottling", "HubNoDispatcher"]);
    expect(rules.every((rule) => ["warning", "critical"].includes(rule.labels?.severity ?? ""))).toBe(true);
  });
});

describe("deploy/grafana/automation-hub.json", () => {
  it("when the dashboard is read, then its panels query throughput, queues, running vs limit, failures, relay lag and latency", () => {
    const board = dashboard();
    expect(board.uid).toBe("automation-hub");
    const titles = board.panels.map((panel) => panel.title);
    for (const title of ["Throughput", "Queue depth by automation", "Queue age by automation", "Running vs limit", "Failures", "Relay lag (p99)", "Latency"]) {
      expect(titles).toContain(title);
    }
    expect(board.panels.every((panel) => (panel.targets ?? []).length > 0)).toBe(true);
    expect(metricNamesOf(dashboardQueries())).toEqual(
      expect.arrayContaining(["hub_jobs_concurrency_limit", "hub_jobs_running", "hub_relay_lag_seconds_bucket"]),
    );
  });
});
