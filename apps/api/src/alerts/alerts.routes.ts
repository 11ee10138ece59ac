import { z } from "zod";
import { createdIdResponse } from "../http/common-schemas";
import { LINK_HEADER_DESCRIPTION } from "../http/pagination";
import { defineRoute } from "../http/route";
import { alertRecord, alertRuleBody, alertRuleIdParams, alertRuleRecord, listAlertRulesQuery, listAlertsQuery } from "./alerts.schemas";
import { createAlertRule, deleteAlertRule, getAlertRule, listAlertRules, listAlerts, replaceAlertRule } from "./alerts.service";

const EVALUATION =
  "The dispatchers evaluate every rule at least every 10 s, each evaluation exactly once whatever their number. An alert (a rule and one automation) fires once " +
  "its condition held at every evaluation for for_seconds since the first that found it (alert.firing), and resolves at the first evaluation that no longer " +
  "finds it, when its rule is changed or deleted, or its automation deactivated (alert.resolved). Jobs held by dependencies, approvals and maintenance windows " +
  "are not due queued: a planned window pages nobody.";

const example = {
  automation_id: "9b2e6c1d-7a4f-4e0b-8c3d-2f1a5e6b7c8d",
  kind: "queue_age" as const,
  threshold: 600,
  for_seconds: 60,
  description: "Invoices wait",
};

/** Alert rules and alerts (CONTRACT §6.19): admins set rules up; admins and employees read rules and alerts within their reach. */
export const alertRoutes = [
  defineRoute({
    method: "post",
    path: "/alert-rules",
    operationId: "createAlertRule",
    summary: "Create an alert rule (admins)",
    description: `${EVALUATION} The threshold is required, in the kind's unit and range (null for worker_offline), else 422 at ["body","threshold"]; an unknown automation_id is 422 at ["body","automation_id"].`,
    tag: "alerts",
    auth: "admin",
    body: alertRuleBody,
    example,
    responses: { 201: { description: "Created; evaluated from the next round", schema: createdIdResponse } },
    handler: async ({ body, caller, ctx }) => ({ status: 201, body: { id: await createAlertRule(ctx.database.pool, caller.reach, body, caller.user.id) } }),
  }),
  defineRoute({
    method: "get",
    path: "/alert-rules",
    operationId: "listAlertRules",
    summary: "List alert rules",
    description:
      "Every rule, oldest first, a page at a time; `automation_id=` and `kind=` filter. An employee sees the rules for every automation and those of automations it reaches.",
    tag: "alerts",
    auth: "user",
    query: listAlertRulesQuery,
    paginated: true,
    responses: { 200: { description: `Rules, oldest first by (created_at, id). ${LINK_HEADER_DESCRIPTION}`, schema: z.array(alertRuleRecord) } },
    handler: async ({ query, after, caller, ctx }) => {
      const page = await listAlertRules(ctx.database.pool, caller.reach, query, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
  defineRoute({
    method: "get",
    path: "/alert-rules/{rule_id}",
    operationId: "getAlertRule",
    summary: "Get an alert rule",
    description: "One rule.",
    tag: "alerts",
    auth: "user",
    params: alertRuleIdParams,
    responses: { 200: { description: "The rule", schema: alertRuleRecord }, 404: { description: "Unknown rule" } },
    handler: async ({ params, caller, ctx }) => ({ status: 200, body: await getAlertRule(ctx.database.pool, caller.reach, params.rule_id) }),
  }),
  defineRoute({
    method: "put",
    path: "/alert-rules/{rule_id}",
    operationId: "replaceAlertRule",
    summary: "Replace an alert rule's settings (admins; an omitted optional field takes its default)",
    description:
      "A change resolves the rule's firing alerts (alert.resolved each); they fire again when the changed rule finds them. A PUT that changes nothing changes nothing.",
    tag: "alerts",
    auth: "admin",
    params: alertRuleIdParams,
    body: alertRuleBody,
    example,
    responses: { 200: { description: "The rule after the change", schema: alertRuleRecord }, 404: { description: "Unknown rule" } },
    handler: async ({ params, body, caller, ctx }) => ({ status: 200, body: await replaceAlertRule(ctx.database.pool, caller.reach, params.rule_id, body) }),
  }),
  defineRoute({
    method: "delete",
    path: "/alert-rules/{rule_id}",
    operationId: "deleteAlertRule",
    summary: "Delete an alert rule (admins)",
    description: "Its firing alerts resolve (alert.resolved each); their history stays in GET /alerts?state=resolved.",
    tag: "alerts",
    auth: "admin",
    params: alertRuleIdParams,
    responses: { 204: { description: "Deleted" }, 404: { description: "Unknown rule" } },
    handler: async ({ params, caller, ctx }) => {
      await deleteAlertRule(ctx.database.pool, caller.reach, params.rule_id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "get",
    path: "/alerts",
    operationId: "listAlerts",
    summary: "The alerts firing now, or their history",
    description:
      "state=firing (the default): the alerts firing now, oldest first by when they fired, each with the latest evaluation's value and message; state=resolved: the resolved ones, newest first, with resolved_at. Within the caller's reach (the automation the alert is about).",
    tag: "alerts",
    auth: "user",
    query: listAlertsQuery,
    paginated: true,
    responses: { 200: { description: `Alerts. ${LINK_HEADER_DESCRIPTION}`, schema: z.array(alertRecord) } },
    handler: async ({ query, after, caller, ctx }) => {
      const page = await listAlerts(ctx.database.pool, caller.reach, query, { limit: query.limit, after });
      return { status: 200, body: page.items, next: page.next };
    },
  }),
];
