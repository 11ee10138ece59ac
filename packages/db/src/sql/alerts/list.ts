/**
 * GET /alerts (CONTRACT §6.19): the alerts firing now, oldest first, and the history of resolved
 * ones, newest first, each within the caller's reach (the automation the alert is about, §6.22);
 * and the counts behind the gauge `hub_alerts_firing{kind}`.
 */
import { and, isNotNull, sql } from "drizzle-orm";
import { ALERT_KINDS, type AlertKind } from "@hub/shared";
import { alertHistory, alertRules, alertStates } from "../../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { automationIdReached, type Reach } from "../../reach";

export interface AlertNow {
  ruleId: string;
  automationId: string;
  kind: AlertKind;
  value: number;
  threshold: number | null;
  message: string;
  since: Date;
  resolvedAt: Date | null;
}

const FIRING_ORDER: KeysetOrder = { createdAt: alertStates.firingSince, id: alertStates.id, direction: "oldest first" };
const HISTORY_ORDER: KeysetOrder = { createdAt: alertHistory.resolvedAt, id: alertHistory.id, direction: "newest first" };

/** The alerts firing now, oldest first; `automationId` filters. */
export async function listFiring(
  executor: Executor,
  reach: Reach,
  filter: { automationId?: string | undefined },
  page: KeysetPageRequest,
): Promise<KeysetPage<AlertNow>> {
  const db = queryBuilder(executor);
  return keysetPage(
    FIRING_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select({
          id: alertStates.id,
          ruleId: alertStates.ruleId,
          automationId: alertStates.automationId,
          kind: alertRules.kind,
          value: alertStates.value,
          threshold: alertRules.threshold,
          message: alertStates.message,
          since: alertStates.firingSince,
        })
        .from(alertStates)
        .innerJoin(alertRules, sql`${alertRules.id} = ${alertStates.ruleId}`)
        .where(
          and(
            isNotNull(alertStates.firingSince),
            automationIdReached(reach, alertStates.automationId),
            filter.automationId !== undefined ? sql`${alertStates.automationId} = ${filter.automationId}` : undefined,
            after,
          ),
        )
        .orderBy(...orderBy)
        .limit(limit),
    (row) => ({ createdAt: row.since!, id: row.id }),
  ).then(({ items, next }) => ({ items: items.map((row) => ({ ...row, since: row.since!, resolvedAt: null })), next }));
}

/** The resolved alerts, newest first; `automationId` filters. */
export async function listResolved(
  executor: Executor,
  reach: Reach,
  filter: { automationId?: string | undefined },
  page: KeysetPageRequest,
): Promise<KeysetPage<AlertNow>> {
  const db = queryBuilder(executor);
  const result = await keysetPage(
    HISTORY_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(alertHistory)
        .where(
          and(
            automationIdReached(reach, alertHistory.automationId),
            filter.automationId !== undefined ? sql`${alertHistory.automationId} = ${filter.automationId}` : undefined,
            after,
          ),
        )
        .orderBy(...orderBy)
        .limit(limit),
    (row) => ({ createdAt: row.resolvedAt, id: row.id }),
  );
  return {
    items: result.items.map((row) => ({
      ruleId: row.ruleId,
      automationId: row.automationId,
      kind: row.kind,
      value: row.value,
      threshold: row.threshold,
      message: row.message,
      since: row.since,
      resolvedAt: row.resolvedAt,
    })),
    next: result.next,
  };
}

/** The alerts firing now, per kind (every kind, 0 included): the gauge `hub_alerts_firing{kind}`. */
export async function countFiring(executor: Executor): Promise<Record<AlertKind, number>> {
  const { rows } = await executor.query<{ kind: AlertKind; firing: number }>({
    name: "alerts_count_firing_v1",
    text: `select r.kind, count(*)::int as firing from alert_states s join alert_rules r on r.id = s.rule_id
      where s.firing_since is not null group by r.kind`,
  });
  const counts = Object.fromEntries(ALERT_KINDS.map((kind) => [kind, 0])) as Record<AlertKind, number>;
  for (const row of rows) counts[row.kind] = row.firing;
  return counts;
}
