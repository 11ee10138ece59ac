/**
 * The filters of GET /jobs that find jobs across automations (CONTRACT §6.14): by creator, finish
 * time, error text and context values. {@link jobFilterConditions} (jobs-read.ts) and-s them with
 * the others.
 */
import { eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { jobs } from "../schema";

/** `context.<name>=<value>`: the context's top-level `name` is the string `value`. */
export interface ContextFilter {
  name: string;
  value: string;
}

export interface JobFindFilter {
  createdBy?: string | undefined;
  /** Inclusive lower bound on finished_at. */
  finishedAfter?: Date | undefined;
  /** Exclusive upper bound on finished_at. */
  finishedBefore?: Date | undefined;
  /** A case-insensitive substring of `error`. */
  errorContains?: string | undefined;
  /** Every one must hold. */
  context?: readonly ContextFilter[] | undefined;
}

/**
 * `context @> {"<name>": "<value>"}`: containment of a one-key object whose value is a JSON string
 * holds only for a top-level key with that very string (a number, boolean, object or an array
 * holding the string does not contain it), and it is what the GIN index `jobs_context_idx`
 * (jsonb_path_ops) answers.
 */
export function contextMatches(filter: ContextFilter): SQL {
  return sql`${jobs.context} @> jsonb_build_object(${filter.name}::text, ${filter.value}::text)`;
}

export function jobFindConditions(filter: JobFindFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.createdBy) conditions.push(eq(jobs.createdBy, filter.createdBy));
  if (filter.finishedAfter) conditions.push(gte(jobs.finishedAt, filter.finishedAfter));
  if (filter.finishedBefore) conditions.push(lt(jobs.finishedAt, filter.finishedBefore));
  // strpos, not ILIKE: the text is matched as given, with no wildcard to escape.
  if (filter.errorContains) conditions.push(sql`strpos(lower(${jobs.error}), lower(${filter.errorContains}::text)) > 0`);
  for (const context of filter.context ?? []) conditions.push(contextMatches(context));
  return conditions;
}
