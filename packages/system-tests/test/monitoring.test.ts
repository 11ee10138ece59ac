/**
 * CONTRACT §6.19: every metric family deploy/prometheus/alerts.yml and
 * deploy/grafana/automation-hub.json query is one a running hub exports: the API, a dispatcher and
 * a relay are scraped, and their `# TYPE` lines name the families (a labelled series is declared
 * before its first sample). The rules' own checks (promtool) are in deploy/test/monitoring.test.ts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SYSTEM_TEST_TIMEOUT_MS } from "@hub/testing/vitest";
import { useSystemHub } from "./system-hub";

const system = useSystemHub({ dispatchers: 1, relays: 1 });
const DEPLOY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "deploy");

/** The metric names of PromQL text: the hub's, the processes' and Node's families. */
function metricNamesIn(text: string): Set<string> {
  return new Set([...text.matchAll(/\b(?:hub|process|nodejs)_[a-z0-9_]+\b/g)].map(([name]) => name));
}

function queriedNames(): Set<string> {
  const rules = readFileSync(path.join(DEPLOY, "prometheus", "alerts.yml"), "utf8")
    .split("\n")
    .filter((line) => /^\s*expr:|^\s{12,}\S/.test(line) && !line.trim().startsWith("#"))
    .join("\n");
  const board = JSON.parse(readFileSync(path.join(DEPLOY, "grafana", "automation-hub.json"), "utf8")) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ definition?: string }> };
  };
  const queries = [
    ...board.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
    ...board.templating.list.map((v) => v.definition ?? ""),
  ];
  return new Set([...metricNamesIn(rules), ...metricNamesIn(queries.join("\n"))]);
}

describe("the monitoring files against a running hub", () => {
  it(
    "when the API, a dispatcher and a relay are scraped, then every metric the rules and the dashboard query is exported",
    async () => {
      const hub = system();
      const declared = new Set<string>();
      const scraped = [hub.processes.apis[0]!, ...hub.processes.dispatchers, ...hub.processes.relays];
      for (const child of scraped) {
        const url = hub.processes.metricsUrl(child);
        expect(url, "every process serves /metrics").toBeDefined();
        const text = await (await fetch(url!)).text();
        for (const [, name] of text.matchAll(/^# TYPE (\S+) /gm)) declared.add(name!);
      }

      const queried = [...queriedNames()];
      expect(queried.length).toBeGreaterThan(10);
      const missing = queried.filter((name) => !declared.has(name) && !declared.has(name.replace(/_(bucket|count|sum)$/, "")));
      expect(missing).toEqual([]);
    },
    SYSTEM_TEST_TIMEOUT_MS,
  );
});
