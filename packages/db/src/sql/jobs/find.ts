/**
 * The filters of GET /jobs that find jobs across automations (CONTRACT §6.14): by creator, finish
 * time, error text and context values. {@link jobFilterConditions} (read.ts) and-s them with
 * the others.
 */
import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { jobs, type Job } from "../../schema";
import { fromRow } from "./row";
import { keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "../pagination";
import { queryBuilder, type Executor } from "../../executor";

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
 * `context @> '{"<name>": "<value>"}'`: containment of a one-key object whose value is a JSON
 * string holds only for a top-level key with that very string (a number, boolean or object, or an
 * array holding the string, does not contain it). The object is sent whole as one jsonb parameter.
 * {@link listByContext} finds the candidates through `job_context_values`; this is the exact
 * test of each (a hash collision there fails it).
 */
export function contextMatches(filter: ContextFilter): SQL {
  return sql`${jobs.context} @> ${JSON.stringify({ [filter.name]: filter.value })}::jsonb`;
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

/**
 * One page of GET /jobs with context filters, newest first, in one statement: the first filter's
 * pair (its `hub_job_context_pair_hash`, packages/db/functions/hub_job_context_pair_hash.sql) names one range of
 * `job_context_values_pair_created_idx`, already in the list's order, which the statement walks
 * newest first (from the cursor), joining each entry to its job by primary key and keeping the jobs
 * that pass every filter (`conditions`, the context ones included), until the page is full. So a
 * page costs its own rows whatever the number of matches; with an `automationId`, entries of other
 * automations are skipped in the index (it carries `automation_id`), without reading their jobs.
 * Only other filters that few of the first filter's jobs pass make it read further.
 */
export async function listByContext(
  executor: Executor,
  order: KeysetOrder,
  conditions: SQL[],
  filter: { automationId?: string | undefined; context: readonly [ContextFilter, ...ContextFilter[]] },
  page: KeysetPageRequest,
): Promise<KeysetPage<Job>> {
  const db = queryBuilder(executor);
  const [first] = filter.context;
  const comparison = order.direction === "oldest first" ? sql`>` : sql`<`;
  const after = page.after
    ? sql`and (entry.created_at, entry.job_id) ${comparison} (${page.after.createdAt.toISOString()}::timestamptz, ${page.after.id}::uuid)`
    : sql``;
  const ofAutomation = filter.automationId ? sql`and entry.automation_id = ${filter.automationId}::uuid` : sql``;
  const direction = order.direction === "oldest first" ? sql`asc` : sql`desc`;
  return keysetPage(
    order,
    page,
    async ({ limit }) => {
      const { rows } = await db.execute<Record<string, unknown>>(sql`
        select ${jobs}.* from job_context_values as entry
        join ${jobs} on ${jobs.id} = entry.job_id
        where entry.pair_hash = hub_job_context_pair_hash(${first.name}::text, to_jsonb(${first.value}::text)) ${ofAutomation} ${after}
          and ${and(...conditions)}
        order by entry.created_at ${direction}, entry.job_id ${direction}
        limit ${limit}`);
      return rows.map(fromRow);
    },
    (job) => job,
  );
}
