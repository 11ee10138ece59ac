/**
 * The monitoring files (CONTRACT §6.19): deploy/prometheus/alerts.yml and
 * deploy/grafana/automation-hub.json, read as data, and the metric names their queries name.
 * packages/system-tests/test/monitoring.test.ts scrapes a running hub for those names.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const DEPLOY_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ALERT_RULES_FILE = path.join(DEPLOY_ROOT, "prometheus", "alerts.yml");
export const ALERT_RULES_TEST_FILE = path.join(DEPLOY_ROOT, "prometheus", "alerts.test.yml");
export const DASHBOARD_FILE = path.join(DEPLOY_ROOT, "grafana", "automation-hub.json");

/** The promtool to check with: $PROMTOOL, else `promtool` on PATH (scripts/ensure-services.sh --test-tools installs Debian's prometheus for CI). */
export function promtool(): string {
  const candidate = process.env.PROMTOOL ?? "promtool";
  try {
    execFileSync(candidate, ["--version"], { stdio: "ignore" });
    return candidate;
  } catch {
    throw new Error(`no promtool (${candidate}) to check the alerting rules with: apt-get install prometheus (which ships it), or set PROMTOOL`);
  }
}

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ alert?: string; expr: string; for?: string; labels?: Record<string, string> }> }>;
}

export function alertRules(): RuleFile["groups"][number]["rules"] {
  return (parse(readFileSync(ALERT_RULES_FILE, "utf8")) as RuleFile).groups.flatMap((group) => group.rules);
}

interface Panel {
  title: string;
  targets?: Array<{ expr: string }>;
  panels?: Panel[];
}

export function dashboard(): {
  title: string;
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; query?: unknown; definition?: string }> };
} {
  return JSON.parse(readFileSync(DASHBOARD_FILE, "utf8"));
}

/** Every PromQL expression of the dashboard: panels' targets and query variables. */
export function dashboardQueries(): string[] {
  const board = dashboard();
  const walk = (panels: Panel[]): string[] => panels.flatMap((panel) => [...(panel.targets ?? []).map((target) => target.expr), ...walk(panel.panels ?? [])]);
  const variables = board.templating.list.flatMap((variable) => (variable.definition ? [variable.definition] : []));
  return [...walk(board.panels), ...variables];
}

/**
 * The metric names `expressions` read: identifiers of the hub's (`hub_…`) and the processes'
 * (`process_…`, `nodejs_…`) families, as written (a histogram's `_bucket`, `_count`, `_sum`).
 */
export function metricNamesOf(expressions: readonly string[]): string[] {
  const names = new Set<string>();
  for (const expression of expressions) {
    for (const [name] of expression.matchAll(/\b(?:hub|process|nodejs)_[a-z0-9_]+\b/g)) names.add(name);
  }
  return [...names].sort();
}
