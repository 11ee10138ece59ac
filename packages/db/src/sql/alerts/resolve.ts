/**
 * Writing an alert's transitions (CONTRACT §6.19): the state rows, the history of resolved alerts,
 * and each transition's `alert.firing` / `alert.resolved` event, always in the caller's
 * transaction, so a transition and its event commit together or not at all.
 *
 * Every writer first holds the evaluator row (./evaluate.ts): an evaluation round, a rule's PUT or
 * DELETE and a deactivation never interleave their reads and writes of the same alerts.
 */
import { alertResolvedMessage, type AlertKind, type AlertResolution } from "@hub/shared";
import type { Executor } from "../../executor";
import * as events from "../events/crud";

/** Waits for the evaluation round in progress, if any, and keeps the next one out until commit. */
export async function lockEvaluator(executor: Executor): Promise<void> {
  await executor.query({ text: "select 1 from alert_evaluator where id for update" });
}

/** One alert that stops: what history keeps (what fired) and what the event says (why it stopped). */
export interface AlertResolved {
  ruleId: string;
  automationId: string;
  kind: AlertKind;
  threshold: number | null;
  /** When it started firing. */
  since: Date;
  /** The value and message it last fired with (history). */
  firedValue: number;
  firedMessage: string;
  /** The value now (the event), and the sentence that says it resolved. */
  value: number;
  message: string;
}

export interface AlertFired {
  ruleId: string;
  automationId: string;
  kind: AlertKind;
  threshold: number | null;
  value: number;
  message: string;
}

/** The history rows and `alert.resolved` events of `resolved`, stamped with the transaction's `now()`. */
export async function recordResolved(executor: Executor, resolved: readonly AlertResolved[]): Promise<void> {
  if (resolved.length === 0) return;
  await executor.query({
    text: `insert into alert_history (rule_id, automation_id, kind, value, threshold, message, since, resolved_at)
     select u.rule_id, u.automation_id, u.kind, u.value, u.threshold, u.message, u.since, now()
     from jsonb_to_recordset($1::jsonb) as u(rule_id uuid, automation_id uuid, kind text, value float8, threshold float8, message text, since timestamptz)`,
    values: [
      JSON.stringify(
        resolved.map((r) => ({
          rule_id: r.ruleId,
          automation_id: r.automationId,
          kind: r.kind,
          value: r.firedValue,
          threshold: r.threshold,
          message: r.firedMessage,
          since: r.since.toISOString(),
        })),
      ),
    ],
  });
  await events.recordMany(
    executor,
    resolved.map((r) => ({
      eventType: "alert.resolved",
      aggregateId: r.ruleId,
      actorId: null,
      payload: { rule_id: r.ruleId, automation_id: r.automationId, kind: r.kind, value: r.value, threshold: r.threshold, message: r.message },
    })),
  );
}

/** The `alert.firing` events of `fired`. */
export async function recordFired(executor: Executor, fired: readonly AlertFired[]): Promise<void> {
  await events.recordMany(
    executor,
    fired.map((f) => ({
      eventType: "alert.firing",
      aggregateId: f.ruleId,
      actorId: null,
      payload: { rule_id: f.ruleId, automation_id: f.automationId, kind: f.kind, value: f.value, threshold: f.threshold, message: f.message },
    })),
  );
}

interface GoneStateRow {
  rule_id: string;
  automation_id: string;
  kind: AlertKind;
  threshold: number | null;
  firing_since: Date | null;
  value: number;
  message: string;
  name: string;
}

/**
 * Ends the alerts of a rule (its PUT or DELETE) or of an automation (its deactivation): their
 * states go, and each firing one is resolved, with `resolution` saying why. Call with the rule or
 * automation locked, in the transaction that changes it; takes the evaluator row first.
 */
export async function resolveAlertsOf(executor: Executor, of: { ruleId: string } | { automationId: string }, resolution: AlertResolution): Promise<number> {
  const byRule = "ruleId" in of;
  if (!byRule) {
    // A deactivation of an automation without alerts takes no lock at all.
    const { rows } = await executor.query({ text: "select 1 from alert_states where automation_id = $1 limit 1", values: [of.automationId] });
    if (rows.length === 0) return 0;
  }
  await lockEvaluator(executor);
  const { rows } = await executor.query<GoneStateRow>({
    text: `with gone as (delete from alert_states s where ${byRule ? "s.rule_id" : "s.automation_id"} = $1 returning s.*)
     select g.rule_id, g.automation_id, r.kind, r.threshold, g.firing_since, g.value, g.message, a.name
     from gone g join alert_rules r on r.id = g.rule_id join automations a on a.id = g.automation_id
     where g.firing_since is not null`,
    values: [byRule ? of.ruleId : of.automationId],
  });
  await recordResolved(
    executor,
    rows.map((row) => ({
      ruleId: row.rule_id,
      automationId: row.automation_id,
      kind: row.kind,
      threshold: row.threshold,
      since: new Date(row.firing_since!),
      firedValue: row.value,
      firedMessage: row.message,
      value: row.value,
      message: alertResolvedMessage(row.kind, row.name, resolution),
    })),
  );
  return rows.length;
}
