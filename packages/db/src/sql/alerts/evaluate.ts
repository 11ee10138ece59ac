/**
 * One evaluation round of every alert rule (CONTRACT §6.19), exactly once whatever the number of
 * dispatchers: a round claims the single `alert_evaluator` row `FOR UPDATE SKIP LOCKED` and runs
 * only when the last round is at least `intervalMs` old; it measures (./observe.ts), decides each
 * alert's transition ({@link planTransitions}, pure), and writes the new states, the history and
 * each transition's event in that one transaction, then stamps the row. A dispatcher killed
 * mid-round rolls back and releases the row: the next round, in any dispatcher, does the same
 * work again, so a transition is neither lost nor doubled.
 *
 * With no rule and no alert state, a round is one probe of two empty tables and nothing is locked.
 */
import { alertFiringMessage, alertResolvedMessage, type AlertKind } from "@hub/shared";
import { withTransaction, type Executor } from "../../executor";
import { leadingWaitingReasons, measure, type AlertMeasurement } from "./observe";
import { recordFired, recordResolved, type AlertFired, type AlertResolved } from "./resolve";

/** An alert's stored state, with what its rule and automation are now (null when gone). */
export interface AlertStateNow {
  ruleId: string;
  automationId: string;
  pendingSince: Date;
  firingSince: Date | null;
  value: number;
  message: string;
  kind: AlertKind | null;
  threshold: number | null;
  automationName: string | null;
  automationActive: boolean;
}

export interface AlertStateWrite {
  ruleId: string;
  automationId: string;
  pendingSince: Date;
  firingSince: Date | null;
  value: number;
  message: string;
}

export interface AlertTransitions {
  upserts: AlertStateWrite[];
  deletes: Array<{ ruleId: string; automationId: string }>;
  fired: AlertFired[];
  resolved: AlertResolved[];
}

const QUEUE_KINDS: ReadonlySet<AlertKind> = new Set(["queue_age", "queue_depth", "worker_offline"]);
const keyOf = (ruleId: string, automationId: string) => `${ruleId}/${automationId}`;

/**
 * What a round at `now` changes, from the stored states and what it measured: a condition found
 * for the first time is pending from now; one that held for the rule's `for_seconds` since then
 * fires (`for_seconds` 0: at once); a state whose condition no longer holds goes, and a firing one
 * resolves; a state whose rule or automation no longer pairs them (automation deactivated, rule
 * moved to another automation) goes the same way.
 */
export function planTransitions(
  now: Date,
  states: readonly AlertStateNow[],
  measured: readonly AlertMeasurement[],
  reasons: ReadonlyMap<string, string | null>,
): AlertTransitions {
  const stored = new Map(states.map((state) => [keyOf(state.ruleId, state.automationId), state]));
  const plan: AlertTransitions = { upserts: [], deletes: [], fired: [], resolved: [] };
  const seen = new Set<string>();
  for (const m of measured) {
    const key = keyOf(m.ruleId, m.automationId);
    seen.add(key);
    const state = stored.get(key);
    const observation = {
      kind: m.kind,
      automationName: m.automationName,
      value: m.value,
      threshold: m.threshold,
      finishedJobs: m.finishedJobs,
      windowSeconds: m.windowSeconds,
      workerRegistered: m.workerRegistered,
      dueJobs: m.dueJobs,
      waitingReason: QUEUE_KINDS.has(m.kind) ? (reasons.get(m.automationId) ?? null) : null,
    };
    if (!m.holds) {
      if (!state) continue;
      plan.deletes.push({ ruleId: m.ruleId, automationId: m.automationId });
      if (state.firingSince)
        plan.resolved.push(resolvedOf(state, m.kind, m.threshold, m.value, alertResolvedMessage(m.kind, m.automationName, "cleared", observation)));
      continue;
    }
    const message = alertFiringMessage(observation);
    const pendingSince = state?.pendingSince ?? now;
    let firingSince = state?.firingSince ?? null;
    if (!firingSince && now.getTime() - pendingSince.getTime() >= m.forSeconds * 1000) {
      firingSince = now;
      plan.fired.push({ ruleId: m.ruleId, automationId: m.automationId, kind: m.kind, threshold: m.threshold, value: m.value, message });
    }
    plan.upserts.push({ ruleId: m.ruleId, automationId: m.automationId, pendingSince, firingSince, value: m.value, message });
  }
  for (const state of states) {
    if (seen.has(keyOf(state.ruleId, state.automationId))) continue;
    plan.deletes.push({ ruleId: state.ruleId, automationId: state.automationId });
    if (state.firingSince && state.kind) {
      const name = state.automationName ?? "An automation";
      const why = state.automationActive ? "rule_changed" : "automation_deactivated";
      plan.resolved.push(resolvedOf(state, state.kind, state.threshold, state.value, alertResolvedMessage(state.kind, name, why)));
    }
  }
  return plan;
}

function resolvedOf(state: AlertStateNow, kind: AlertKind, threshold: number | null, value: number, message: string): AlertResolved {
  return {
    ruleId: state.ruleId,
    automationId: state.automationId,
    kind,
    threshold,
    since: state.firingSince!,
    firedValue: state.value,
    firedMessage: state.message,
    value,
    message,
  };
}

interface StateRow {
  rule_id: string;
  automation_id: string;
  pending_since: Date;
  firing_since: Date | null;
  value: number;
  message: string;
  kind: AlertKind | null;
  threshold: number | null;
  name: string | null;
  is_active: boolean | null;
}

async function readStates(executor: Executor): Promise<AlertStateNow[]> {
  const { rows } = await executor.query<StateRow>({
    name: "alerts_read_states_v1",
    text: `select s.rule_id, s.automation_id, s.pending_since, s.firing_since, s.value, s.message, r.kind, r.threshold, a.name, a.is_active
      from alert_states s left join alert_rules r on r.id = s.rule_id left join automations a on a.id = s.automation_id`,
  });
  return rows.map((row) => ({
    ruleId: row.rule_id,
    automationId: row.automation_id,
    pendingSince: new Date(row.pending_since),
    firingSince: row.firing_since ? new Date(row.firing_since) : null,
    value: Number(row.value),
    message: row.message,
    kind: row.kind,
    threshold: row.threshold,
    automationName: row.name,
    automationActive: row.is_active === true,
  }));
}

async function writeStates(executor: Executor, plan: AlertTransitions): Promise<void> {
  if (plan.deletes.length > 0) {
    await executor.query({
      text: `delete from alert_states s using jsonb_to_recordset($1::jsonb) as u(rule_id uuid, automation_id uuid)
        where s.rule_id = u.rule_id and s.automation_id = u.automation_id`,
      values: [JSON.stringify(plan.deletes.map((d) => ({ rule_id: d.ruleId, automation_id: d.automationId })))],
    });
  }
  if (plan.upserts.length > 0) {
    await executor.query({
      text: `insert into alert_states (rule_id, automation_id, pending_since, firing_since, value, message)
        select u.rule_id, u.automation_id, u.pending_since, u.firing_since, u.value, u.message
        from jsonb_to_recordset($1::jsonb) as u(rule_id uuid, automation_id uuid, pending_since timestamptz, firing_since timestamptz, value float8, message text)
        on conflict (rule_id, automation_id) do update
          set firing_since = excluded.firing_since, value = excluded.value, message = excluded.message`,
      values: [
        JSON.stringify(
          plan.upserts.map((u) => ({
            rule_id: u.ruleId,
            automation_id: u.automationId,
            pending_since: u.pendingSince.toISOString(),
            firing_since: u.firingSince?.toISOString() ?? null,
            value: u.value,
            message: u.message,
          })),
        ),
      ],
    });
  }
}

export interface EvaluationOutcome {
  /** False when another dispatcher holds the round, the last one is too recent, or there is nothing to evaluate. */
  evaluated: boolean;
  fired: number;
  resolved: number;
}

const NOT_EVALUATED: EvaluationOutcome = { evaluated: false, fired: 0, resolved: 0 };

/**
 * Runs one round if one is due (the last at least `intervalMs` ago) and no other dispatcher runs
 * one; see the module comment.
 */
export async function evaluateRound(pool: Executor, intervalMs: number): Promise<EvaluationOutcome> {
  const { rows: probe } = await pool.query<{ any: boolean }>({
    name: "alerts_probe_v1",
    text: "select exists (select 1 from alert_rules) or exists (select 1 from alert_states) as any",
  });
  if (!probe[0]?.any) return NOT_EVALUATED;
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ now: Date; due: boolean }>({
      name: "alerts_claim_round_v1",
      text: `select now()::timestamptz(3) as now, last_evaluated_at <= now() - make_interval(secs => $1::float8 / 1000) as due
        from alert_evaluator where id for update skip locked`,
      values: [intervalMs],
    });
    const claim = rows[0];
    if (!claim?.due) return NOT_EVALUATED;
    const now = new Date(claim.now);
    // A round is a few cheap statements; JIT compiling them costs far more than running them.
    await tx.query({ text: "set local jit = off" });
    const states = await readStates(tx);
    const measured = await measure(tx);
    const queued = [...new Set(measured.filter((m) => m.holds && QUEUE_KINDS.has(m.kind) && m.dueJobs > 0).map((m) => m.automationId))];
    const reasons = await leadingWaitingReasons(tx, queued);
    const plan = planTransitions(now, states, measured, reasons);
    await writeStates(tx, plan);
    await recordResolved(tx, plan.resolved);
    await recordFired(tx, plan.fired);
    await tx.query({ name: "alerts_stamp_round_v1", text: "update alert_evaluator set last_evaluated_at = now() where id" });
    return { evaluated: true, fired: plan.fired.length, resolved: plan.resolved.length };
  });
}
