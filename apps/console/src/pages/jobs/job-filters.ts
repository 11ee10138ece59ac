/**
 * The Jobs list's filters (status, automation, created and finished between, created by, context
 * values, error text): their state, GET /jobs's query, the URL query they are shared as, and the
 * pause after typing before the list is read again.
 */
import { useEffect, useState } from "react";
import { isoOfLocal, localOfIso } from "../../format";

export const STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type Status = (typeof STATUSES)[number];
/** Most context filters one request takes (CONTRACT §6.14). */
export const MAX_CONTEXT_FILTERS = 5;
/** How long typing in a text filter waits before the list is read again. */
export const TYPING_PAUSE_MS = 350;

export interface ContextFilter {
  key: number;
  name: string;
  value: string;
}

export interface Filters {
  status: Status | "";
  /** "" = every automation (the Jobs page only). */
  automationId: string;
  /** `datetime-local` values (local time), "" when unset. */
  createdAfter: string;
  createdBefore: string;
  finishedAfter: string;
  finishedBefore: string;
  /** A user id, or "". */
  createdBy: string;
  context: ContextFilter[];
  errorContains: string;
}

export const NO_FILTERS: Filters = {
  status: "",
  automationId: "",
  createdAfter: "",
  createdBefore: "",
  finishedAfter: "",
  finishedBefore: "",
  createdBy: "",
  context: [],
  errorContains: "",
};

/** The filters as GET /jobs's query (a context filter without a name is left out). */
export function jobsQuery(filters: Filters) {
  const context = Object.fromEntries(filters.context.filter((row) => row.name.trim()).map((row) => [row.name.trim(), row.value]));
  return {
    ...(filters.automationId ? { automation_id: filters.automationId } : {}),
    ...(filters.status ? { status: [filters.status] } : {}),
    ...(filters.createdAfter ? { created_after: isoOfLocal(filters.createdAfter) } : {}),
    ...(filters.createdBefore ? { created_before: isoOfLocal(filters.createdBefore) } : {}),
    ...(filters.finishedAfter ? { finished_after: isoOfLocal(filters.finishedAfter) } : {}),
    ...(filters.finishedBefore ? { finished_before: isoOfLocal(filters.finishedBefore) } : {}),
    ...(filters.createdBy ? { created_by: filters.createdBy } : {}),
    ...(filters.errorContains.trim() ? { error_contains: filters.errorContains.trim() } : {}),
    ...(Object.keys(context).length > 0 ? { context } : {}),
  };
}

/** The filters as a URL query (`?status=failed&context.month=2026-10`), so a filtered list can be shared and reloaded. */
export function filtersToSearch(filters: Filters): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(jobsQuery(filters))) {
    if (name === "context") for (const [key, text] of Object.entries(value as Record<string, string>)) query.append(`context.${key}`, text);
    else query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The filters a URL query names (the reverse of {@link filtersToSearch}); anything else is ignored. */
export function filtersFromSearch(search: string): Filters {
  const query = new URLSearchParams(search);
  const local = (name: string) => {
    const value = query.get(name);
    return value && !Number.isNaN(Date.parse(value)) ? localOfIso(value) : "";
  };
  const status = query.get("status") ?? "";
  return {
    status: (STATUSES as readonly string[]).includes(status) ? (status as Status) : "",
    automationId: query.get("automation_id") ?? "",
    createdAfter: local("created_after"),
    createdBefore: local("created_before"),
    finishedAfter: local("finished_after"),
    finishedBefore: local("finished_before"),
    createdBy: query.get("created_by") ?? "",
    errorContains: query.get("error_contains") ?? "",
    context: [...query.entries()]
      .filter(([name]) => name.startsWith("context."))
      .slice(0, MAX_CONTEXT_FILTERS)
      .map(([name, value], index) => ({ key: -(index + 1), name: name.slice("context.".length), value })),
  };
}

/** Whether any filter narrows the list (the automation a page is about does not count). */
export function filtered(filters: Filters, fixedAutomation: boolean): boolean {
  return Object.keys(jobsQuery({ ...filters, automationId: fixedAutomation ? "" : filters.automationId })).length > 0;
}

/** What is typed into the filters (error text, context values), as opposed to what is picked. */
export const typedOf = (filters: Filters) => JSON.stringify([filters.errorContains, filters.context]);

/**
 * The filters the list and the bulk actions use: a pick (status, automation, a time) at once, a
 * change of what is typed once the typing pauses for `ms`.
 */
export function useSettled(filters: Filters, ms: number): Filters {
  const [settled, setSettled] = useState(filters);
  useEffect(() => {
    if (typedOf(filters) === typedOf(settled)) {
      setSettled(filters);
      return;
    }
    const timer = setTimeout(() => setSettled(filters), ms);
    return () => clearTimeout(timer);
    // Only a change of the filters starts a wait; `settled` catching up must not restart it.
  }, [filters, ms]);
  return settled;
}
