/**
 * Alert rules and alerts (CONTRACT §6.19). The dispatchers evaluate the rules
 * (apps/dispatcher/src/tasks/alerts.ts); here rules are checked, stored and changed, and alerts
 * read. A PUT that changes a rule, and a DELETE, resolve its firing alerts (one `alert.resolved`
 * each) in the transaction that changes it; a PUT that changes nothing changes nothing.
 */
import { alerts, automations, withTransaction, type AlertRule, type Executor, type KeysetPage, type KeysetPageRequest, type Reach } from "@hub/db";
import { ALERT_THRESHOLDS } from "@hub/shared";
import { NotFoundError, RequestValidationError } from "../http/http-errors";
import type { AlertRecord, AlertRuleBody, AlertRuleRecord, ListAlertRulesQuery, ListAlertsQuery } from "./alerts.schemas";

export function toAlertRuleRecord(rule: AlertRule): AlertRuleRecord {
  return {
    id: rule.id,
    automation_id: rule.automationId,
    kind: rule.kind,
    threshold: rule.threshold,
    for_seconds: rule.forSeconds,
    window_seconds: rule.windowSeconds,
    min_jobs: rule.minJobs,
    description: rule.description,
    created_at: rule.createdAt.toISOString(),
    updated_at: rule.updatedAt.toISOString(),
  };
}

/** The body as stored: `threshold` null for worker_offline. */
function settingsOf(body: AlertRuleBody): alerts.AlertRuleSettings {
  return {
    automationId: body.automation_id,
    kind: body.kind,
    threshold: ALERT_THRESHOLDS[body.kind] === null ? null : (body.threshold ?? null),
    forSeconds: body.for_seconds,
    windowSeconds: body.window_seconds,
    minJobs: body.min_jobs,
    description: body.description,
  };
}

/** The automation the body names must exist within the caller's reach, else 422 at ["body","automation_id"]. */
async function assertAutomationKnown(db: Executor, reach: Reach, automationId: string | null): Promise<void> {
  if (automationId === null || (await automations.findView(db, reach, automationId))) return;
  throw new RequestValidationError([{ loc: ["body", "automation_id"], msg: "Value error, no automation has this id", type: "value_error" }]);
}

export async function createAlertRule(db: Executor, reach: Reach, body: AlertRuleBody, actorId: string): Promise<string> {
  await assertAutomationKnown(db, reach, body.automation_id);
  const rule = await alerts.insert(db, { ...settingsOf(body), createdBy: actorId });
  return rule.id;
}

export async function getAlertRule(db: Executor, reach: Reach, id: string): Promise<AlertRuleRecord> {
  const rule = await alerts.find(db, reach, id);
  if (!rule) throw new NotFoundError("Alert rule not found");
  return toAlertRuleRecord(rule);
}

export async function listAlertRules(db: Executor, reach: Reach, query: ListAlertRulesQuery, page: KeysetPageRequest): Promise<KeysetPage<AlertRuleRecord>> {
  const { items, next } = await alerts.list(db, reach, { automationId: query.automation_id, kind: query.kind }, page);
  return { items: items.map(toAlertRuleRecord), next };
}

const SETTING_FIELDS = ["automationId", "kind", "threshold", "forSeconds", "windowSeconds", "minJobs", "description"] as const;

/** PUT /alert-rules/{id}: replaces every setting; a change resolves the rule's alerts (they start over). */
export async function replaceAlertRule(db: Executor, reach: Reach, id: string, body: AlertRuleBody): Promise<AlertRuleRecord> {
  await assertAutomationKnown(db, reach, body.automation_id);
  const settings = settingsOf(body);
  return withTransaction(db, async (tx) => {
    const current = await alerts.lock(tx, reach, id);
    if (!current) throw new NotFoundError("Alert rule not found");
    if (SETTING_FIELDS.every((field) => current[field] === settings[field])) return toAlertRuleRecord(current);
    await alerts.resolveAlertsOf(tx, { ruleId: id }, "rule_changed");
    return toAlertRuleRecord(await alerts.update(tx, id, settings));
  });
}

/** DELETE /alert-rules/{id}: its firing alerts resolve, its history stays. */
export async function deleteAlertRule(db: Executor, reach: Reach, id: string): Promise<void> {
  await withTransaction(db, async (tx) => {
    const current = await alerts.lock(tx, reach, id);
    if (!current) throw new NotFoundError("Alert rule not found");
    await alerts.resolveAlertsOf(tx, { ruleId: id }, "rule_deleted");
    await alerts.remove(tx, id);
  });
}

export async function listAlerts(db: Executor, reach: Reach, query: ListAlertsQuery, page: KeysetPageRequest): Promise<KeysetPage<AlertRecord>> {
  const filter = { automationId: query.automation_id };
  const { items, next } = query.state === "firing" ? await alerts.listFiring(db, reach, filter, page) : await alerts.listResolved(db, reach, filter, page);
  return {
    items: items.map((alert) => ({
      rule_id: alert.ruleId,
      automation_id: alert.automationId,
      kind: alert.kind,
      value: alert.value,
      threshold: alert.threshold,
      message: alert.message,
      since: alert.since.toISOString(),
      ...(alert.resolvedAt ? { resolved_at: alert.resolvedAt.toISOString() } : {}),
    })),
    next,
  };
}
