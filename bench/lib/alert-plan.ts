/**
 * The `alerts` mode's rules (CONTRACT §6.19): a mix of every kind over the automations, some for
 * every automation, with thresholds no idle hub reaches — and `firing` rules that must fire, each
 * a `queue_depth` of 1 on an automation of its own where jobs wait unclaimed. Pure, so the mix is
 * unit-tested; bench/alerts runs it.
 */

export const ALERT_RULE_KINDS = ["queue_age", "queue_depth", "failure_rate", "worker_offline", "job_duration"] as const;
export type AlertRuleKind = (typeof ALERT_RULE_KINDS)[number];

/** The body of `POST /alert-rules`. */
export interface AlertRuleBody {
  automation_id: string | null;
  kind: AlertRuleKind;
  threshold: number | null;
  for_seconds: number;
  window_seconds?: number;
  min_jobs?: number;
  description: string;
}

export interface PlannedRule {
  body: AlertRuleBody;
  /** Whether the rule must fire once the jobs are queued (and only it, on its automation). */
  fires: boolean;
}

export interface AlertPlan {
  rules: PlannedRule[];
  /** Automations (indexes) that get queued jobs no worker takes: one per firing rule. */
  queuedOn: number[];
}

/** Jobs queued on each automation of a firing rule: above its `queue_depth` threshold of 1. */
export const QUEUED_PER_FIRING_AUTOMATION = 2;

/** Thresholds an idle hub never reaches (an hour of queueing or running, 100,000 queued jobs, half of the jobs failed). */
function quietThreshold(kind: AlertRuleKind): number | null {
  switch (kind) {
    case "queue_age":
    case "job_duration":
      return 3600;
    case "queue_depth":
      return 100_000;
    case "failure_rate":
      return 0.5;
    case "worker_offline":
      return null;
  }
}

/** Every 20th rule is for every automation (`automation_id: null`), as operators write a few catch-alls. */
const EVERY_AUTOMATION_EACH = 20;
const FOR_SECONDS = [0, 60, 300] as const;

/**
 * `count` rules over `automationIds`, `firing` of them made to fire. A quiet rule on an
 * automation with queued jobs is never `worker_offline` (its worker is not polling, so that one
 * would fire too), nor is a rule for every automation (it covers those automations).
 */
export function planAlertRules(automationIds: readonly string[], count: number, firing: number): AlertPlan {
  if (firing > automationIds.length) throw new Error(`BENCH_ALERTS_FIRING (${firing}) must be at most BENCH_ALERTS_AUTOMATIONS (${automationIds.length})`);
  if (firing > count) throw new Error(`BENCH_ALERTS_FIRING (${firing}) must be at most BENCH_ALERTS_RULES (${count})`);
  const queuedOn = Array.from({ length: firing }, (_, i) => i);
  const rules: PlannedRule[] = queuedOn.map((automation) => ({
    body: {
      automation_id: automationIds[automation]!,
      kind: "queue_depth",
      threshold: 1,
      for_seconds: 0,
      description: `bench: fires (${QUEUED_PER_FIRING_AUTOMATION} jobs queued, no worker polling)`,
    },
    fires: true,
  }));
  for (let k = 0; rules.length < count; k++) {
    const automation = k % automationIds.length;
    const everyAutomation = k % EVERY_AUTOMATION_EACH === EVERY_AUTOMATION_EACH - 1;
    let kind = ALERT_RULE_KINDS[Math.floor(k / automationIds.length + k) % ALERT_RULE_KINDS.length]!;
    if (kind === "worker_offline" && (everyAutomation || automation < firing)) kind = "job_duration";
    const body: AlertRuleBody = {
      automation_id: everyAutomation ? null : automationIds[automation]!,
      kind,
      threshold: quietThreshold(kind),
      for_seconds: FOR_SECONDS[k % FOR_SECONDS.length]!,
      description: `bench: quiet ${kind}`,
    };
    if (kind === "failure_rate") Object.assign(body, { window_seconds: 900, min_jobs: 10 });
    rules.push({ body, fires: false });
  }
  return { rules, queuedOn };
}

/** The idle cost of the rules: CPU ms per second with them less without them (the mean of the windows without, when there are two). */
export function idleDifference(withRules: number, without: readonly number[]): number {
  const baseline = without.reduce((sum, value) => sum + value, 0) / without.length;
  return withRules - baseline;
}

/** The target: idle CPU with 100 rules at most 5 ms per second above none. */
export const ALERTS_IDLE_TARGET_MS_PER_SECOND = 5;
