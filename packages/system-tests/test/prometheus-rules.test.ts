/**
 * deploy/prometheus/alerts.yml against a real Prometheus server (Debian's `prometheus` package,
 * which CI installs for promtool) scraping a running hub: with the rules' `for:` delays taken out,
 * HubWorkerDown fires for the automation whose jobs wait with no worker seen, and for no other.
 * $PROMETHEUS names the server binary (default `prometheus` on PATH).
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "@hub/testing";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub } from "./system-hub";

const system = useSystemHub({ dispatchers: 1, relays: 1 });
const RULES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "deploy", "prometheus", "alerts.yml");
const PROMETHEUS = process.env.PROMETHEUS ?? "prometheus";

function prometheusInstalled(): boolean {
  try {
    execFileSync(PROMETHEUS, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

let server: ChildProcess | undefined;
let directory: string | undefined;
afterAll(() => {
  if (server?.pid !== undefined && server.exitCode === null) server.kill("SIGTERM");
  if (directory) rmSync(directory, { recursive: true, force: true });
});

describe.runIf(prometheusInstalled())("the Prometheus rules on a Prometheus server", () => {
  it(
    "when Prometheus scrapes a hub where one automation's jobs wait with its worker never seen, then HubWorkerDown fires for that automation only",
    async () => {
      const hub = system();
      const waiting = await hub.createAutomationWithWorker();
      const idle = await hub.createAutomationWithWorker();
      await hub.createJob(waiting.automationId);
      const slugOf = async (id: string) => (await hub.client.get<{ slug: string }>(`/automations/${id}`, { token: hub.adminToken })).body.slug;
      const [waitingSlug, idleSlug] = [await slugOf(waiting.automationId), await slugOf(idle.automationId)];

      directory = mkdtempSync(path.join(tmpdir(), "hub-prometheus-"));
      writeFileSync(path.join(directory, "alerts.yml"), readFileSync(RULES, "utf8").replace(/^\s+for: .*$/gm, ""));
      const targets = [hub.processes.apis[0]!, ...hub.processes.dispatchers, ...hub.processes.relays].map(
        (child) => new URL(hub.processes.metricsUrl(child)!).host,
      );
      writeFileSync(
        path.join(directory, "prometheus.yml"),
        [
          "global: { scrape_interval: 1s, evaluation_interval: 1s }",
          "rule_files: [alerts.yml]",
          "scrape_configs:",
          "  - job_name: automation-hub",
          `    static_configs: [{ targets: ${JSON.stringify(targets)} }]`,
        ].join("\n"),
      );
      const port = await freePort();
      server = spawn(
        PROMETHEUS,
        [
          `--config.file=${path.join(directory, "prometheus.yml")}`,
          `--storage.tsdb.path=${path.join(directory, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: "ignore" },
      );

      const firing = await eventually(
        "HubWorkerDown firing",
        async () => {
          const answer = await fetch(`http://127.0.0.1:${port}/api/v1/alerts`).catch(() => undefined);
          if (!answer?.ok) return [];
          const body = (await answer.json()) as { data: { alerts: Array<{ labels: Record<string, string>; state: string }> } };
          return body.data.alerts.filter((alert) => alert.labels.alertname === "HubWorkerDown" && alert.state === "firing");
        },
        (alerts) => alerts.length > 0,
        60_000,
      );
      expect(firing.map((alert) => alert.labels.automation)).toEqual([waitingSlug]);
      expect(firing.map((alert) => alert.labels.automation)).not.toContain(idleSlug);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
