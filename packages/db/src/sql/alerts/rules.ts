/**
 * Alert rules, the records people set up (CONTRACT §6.19): create, read, list, replace, delete.
 * A rule for one automation is within a caller's reach when that automation is; a rule for every
 * automation is within everyone's (§6.22). Replacing or deleting a rule resolves its alerts
 * (./resolve.ts) in the same transaction.
 */
import { and, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import { alertRules, type AlertRule } from "../../schema";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";
import { automationIdReached, type Reach } from "../../reach";

/** What a client sets on a rule (POST and PUT replace all of it). */
export type AlertRuleSettings = Pick<AlertRule, "automationId" | "kind" | "threshold" | "forSeconds" | "windowSeconds" | "minJobs" | "description">;

/** For every automation, or for one within `reach`. */
function ruleReached(reach: Reach): SQL | undefined {
  const reached = automationIdReached(reach, alertRules.automationId);
  return reached ? or(isNull(alertRules.automationId), reached) : undefined;
}

export async function insert(executor: Executor, values: AlertRuleSettings & { createdBy: string | null }): Promise<AlertRule> {
  const [rule] = await queryBuilder(executor).insert(alertRules).values(values).returning();
  if (!rule) throw new Error("insert returned no row");
  return rule;
}

export async function find(executor: Executor, reach: Reach, id: string): Promise<AlertRule | undefined> {
  const [rule] = await queryBuilder(executor)
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.id, id), ruleReached(reach)));
  return rule;
}

/** The rule, locked for the rest of the transaction (a PUT or DELETE). */
export async function lock(executor: Executor, reach: Reach, id: string): Promise<AlertRule | undefined> {
  const [rule] = await queryBuilder(executor)
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.id, id), ruleReached(reach)))
    .for("update");
  return rule;
}

export async function update(executor: Executor, id: string, settings: AlertRuleSettings): Promise<AlertRule> {
  const [rule] = await queryBuilder(executor)
    .update(alertRules)
    .set({ ...settings, updatedAt: sql`now()` })
    .where(eq(alertRules.id, id))
    .returning();
  if (!rule) throw new Error("update returned no row");
  return rule;
}

export async function remove(executor: Executor, id: string): Promise<void> {
  await queryBuilder(executor).delete(alertRules).where(eq(alertRules.id, id));
}

export interface AlertRuleFilter {
  automationId?: string | undefined;
  kind?: string | undefined;
}

export const ALERT_RULES_LIST_ORDER: KeysetOrder = { createdAt: alertRules.createdAt, id: alertRules.id, direction: "oldest first" };

/** One page of GET /alert-rules, oldest first. */
export async function list(executor: Executor, reach: Reach, filter: AlertRuleFilter, page: KeysetPageRequest): Promise<KeysetPage<AlertRule>> {
  const db = queryBuilder(executor);
  const conditions: Array<SQL | undefined> = [ruleReached(reach)];
  if (filter.automationId !== undefined) conditions.push(eq(alertRules.automationId, filter.automationId));
  if (filter.kind !== undefined) conditions.push(sql`${alertRules.kind} = ${filter.kind}`);
  return keysetPage(
    ALERT_RULES_LIST_ORDER,
    page,
    ({ after, orderBy, limit }) =>
      db
        .select()
        .from(alertRules)
        .where(and(...conditions, after))
        .orderBy(...orderBy)
        .limit(limit),
    (rule) => rule,
  );
}
