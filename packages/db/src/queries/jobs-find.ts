/**
 * The filters of GET /jobs that find jobs across automations (CONTRACT §6.14): by creator, finish
 * time, error text and context values. {@link jobFilterConditions} (jobs-read.ts) and-s them with
 * the others.
 */
import { and, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../client";
import { jobs, type Job } from "../schema";
import { jobFromRow } from "./jobs-row";
import { keysetAfter, keysetPage, type KeysetOrder, type KeysetPage, type KeysetPageRequest } from "./pagination";

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
 * array holding the string, does not contain it), and it is what the GIN index `jobs_context_idx`
 * (jsonb_path_ops) answers. The object is sent whole as one jsonb parameter, a constant to the
 * planner: built in SQL (jsonb_build_object, which is only stable), it would be built again for
 * every row the bitmap heap scan rechecks.
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
 * How many of the newest jobs (of the automation, when one is named) a context-filtered page first
 * reads in order, filtering as it goes: a value common among recent jobs fills its page from them.
 */
export const CONTEXT_PROBE_ROWS = 1000;

/**
 * One page of GET /jobs with context filters, newest first, in at most two statements:
 *
 * 1. The probe: the {@link CONTEXT_PROBE_ROWS} newest jobs after the cursor (of `automationId`,
 *    through its index), filtered. A full page there is the page: no job outside them is newer.
 * 2. Otherwise every match, found through `jobs_context_idx` in a MATERIALIZED CTE, sorted, the
 *    page joined back by primary key. The CTE is planned for all its rows, so the planner cannot
 *    walk `jobs_created_idx` newest first hoping to meet matches early: for a value that a few jobs
 *    hold (the contract's 1 to 10,000 of 5 million), or whose jobs are old, that walk reads the
 *    whole table. Its cost grows with the matches instead, which the probe spares common values.
 *
 * `conditions` are every filter's (context included); `automationId` is the one the probe narrows by.
 */
export async function listJobsByContext(
  db: DbOrTx,
  order: KeysetOrder,
  conditions: SQL[],
  automationId: string | undefined,
  page: KeysetPageRequest,
): Promise<KeysetPage<Job>> {
  const after = keysetAfter(order, page.after);
  const probe = await db.execute<Record<string, unknown>>(sql`
    select * from (
      select * from ${jobs} where ${and(automationId ? eq(jobs.automationId, automationId) : undefined, after) ?? sql`true`}
      order by ${jobs.createdAt} desc, ${jobs.id} desc limit ${CONTEXT_PROBE_ROWS}
    ) as jobs
    where ${and(...conditions)}
    order by created_at desc, id desc limit ${page.limit + 1}`);
  const full = probe.rows.length > page.limit;
  return keysetPage(
    order,
    page,
    async ({ limit }) => {
      if (full) return probe.rows.map(jobFromRow);
      const matched = await db.execute<Record<string, unknown>>(sql`
        with matched as materialized (
          select ${jobs.id} as id, ${jobs.createdAt} as created_at from ${jobs} where ${and(...conditions, after)}
        )
        select jobs.* from (select id, created_at from matched order by created_at desc, id desc limit ${limit}) as page
        join ${jobs} on jobs.id = page.id
        order by page.created_at desc, page.id desc`);
      return matched.rows.map(jobFromRow);
    },
    (job) => job,
  );
}
