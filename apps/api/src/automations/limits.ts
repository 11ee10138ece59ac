/**
 * The §6.13 settings of an automation (CONTRACT: `concurrency_key`, `max_concurrent_per_key`,
 * `rate_limit`): as the record shows them, as the table stores them, and the rules a POST or PUT
 * must meet, checked on the record the request would produce (omitted in a PUT: the stored value).
 */
import type { Automation, AutomationParameter, automations } from "@hub/db";
import type { ValidationIssue } from "@hub/shared";
import type { AutomationRecord } from "./automations.schemas";

export type AutomationLimits = Pick<AutomationRecord, "concurrency_key" | "max_concurrent_per_key" | "rate_limit">;

/** The limit fields of a create or update body, each omitted, null or set. */
interface LimitsInput {
  concurrency_key?: string | null | undefined;
  max_concurrent_per_key?: number | null | undefined;
  rate_limit?: { count: number; period_seconds: number; per_key: boolean } | null | undefined;
}

type StoredLimits = Pick<Automation, "concurrencyKey" | "maxConcurrentPerKey" | "rateLimitCount" | "rateLimitPeriodSeconds" | "rateLimitPerKey">;

export function limitsOfAutomation(automation: StoredLimits): AutomationLimits {
  return {
    concurrency_key: automation.concurrencyKey,
    max_concurrent_per_key: automation.maxConcurrentPerKey,
    rate_limit:
      automation.rateLimitCount === null || automation.rateLimitPeriodSeconds === null
        ? null
        : { count: automation.rateLimitCount, period_seconds: automation.rateLimitPeriodSeconds, per_key: automation.rateLimitPerKey },
  };
}

export function storedLimits(limits: AutomationLimits): Required<Pick<automations.NewAutomation, keyof StoredLimits>> {
  return {
    concurrencyKey: limits.concurrency_key,
    maxConcurrentPerKey: limits.max_concurrent_per_key,
    rateLimitCount: limits.rate_limit?.count ?? null,
    rateLimitPeriodSeconds: limits.rate_limit?.period_seconds ?? null,
    rateLimitPerKey: limits.rate_limit?.per_key ?? false,
  };
}

export function sameLimits(a: AutomationLimits, b: AutomationLimits): boolean {
  return (
    a.concurrency_key === b.concurrency_key &&
    a.max_concurrent_per_key === b.max_concurrent_per_key &&
    a.rate_limit?.count === b.rate_limit?.count &&
    a.rate_limit?.period_seconds === b.rate_limit?.period_seconds &&
    a.rate_limit?.per_key === b.rate_limit?.per_key
  );
}

const valueError = (loc: ValidationIssue["loc"], why: string): ValidationIssue => ({ loc, msg: `Value error, ${why}`, type: "value_error" });

/**
 * The limits a POST (`stored` null) or PUT body produces, with every rule of §6.13 it breaks:
 * - `concurrency_key` names one of the resulting `parameters` (at `concurrency_key` when the body
 *   names it, at `parameters` when a PUT keeps the stored key and drops its parameter);
 * - `max_concurrent_per_key` is required while a key is set and becomes null with the key;
 * - a `max_concurrent_per_key` or `rate_limit.per_key: true` without a key is refused at that field
 *   (a stored per-key rate limit that a PUT's `concurrency_key: null` would orphan: at `concurrency_key`).
 */
export function resolveLimits(
  input: LimitsInput,
  parameters: readonly AutomationParameter[],
  stored: StoredLimits | null,
): { resulting: AutomationLimits; issues: ValidationIssue[] } {
  const previous: AutomationLimits = stored ? limitsOfAutomation(stored) : { concurrency_key: null, max_concurrent_per_key: null, rate_limit: null };
  const key = input.concurrency_key === undefined ? previous.concurrency_key : input.concurrency_key;
  const perKeyLimit = input.max_concurrent_per_key === undefined ? (key === null ? null : previous.max_concurrent_per_key) : input.max_concurrent_per_key;
  const rateLimit = input.rate_limit === undefined ? previous.rate_limit : input.rate_limit;
  const issues: ValidationIssue[] = [];

  if (key !== null && !parameters.some(({ name }) => name === key)) {
    issues.push(
      input.concurrency_key === undefined
        ? valueError(["body", "parameters"], `the concurrency_key '${key}' must remain one of the parameters`)
        : valueError(["body", "concurrency_key"], `'${key}' is not one of the parameters`),
    );
  }
  if (key !== null && perKeyLimit === null) {
    issues.push({ loc: ["body", "max_concurrent_per_key"], msg: "Field required", type: "missing" });
  }
  if (key === null && perKeyLimit !== null) {
    issues.push(valueError(["body", "max_concurrent_per_key"], "max_concurrent_per_key needs a concurrency_key"));
  }
  if (key === null && rateLimit?.per_key) {
    issues.push(
      input.rate_limit === undefined
        ? valueError(["body", "concurrency_key"], "the stored rate_limit is per key and needs a concurrency_key")
        : valueError(["body", "rate_limit", "per_key"], "a per-key rate_limit needs a concurrency_key"),
    );
  }
  return { resulting: { concurrency_key: key, max_concurrent_per_key: perKeyLimit, rate_limit: rateLimit }, issues };
}
