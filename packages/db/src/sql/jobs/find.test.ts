/**
 * GET /jobs's context filters find their jobs through job_context_values, which the triggers on jobs
 * (packages/db/functions/hub_record_job_context_values.sql and its forget and rewrite siblings) keep in step with every insert, delete and (should one happen) change of a job.
 */
import { EVERYWHERE } from "../../reach";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { stageAutomation, useTestDatabase, type StagedAutomation } from "../../test-kit";
import type { ContextFilter } from "./find";
import { list, type JobFilter } from "./read";
import type { KeysetPosition } from "../pagination";

const hub = useTestDatabase();
const JOBS = 1300;
let first: StagedAutomation;
let second: StagedAutomation;
/** Every job, newest first, with what the filters read. */
let all: Array<{ id: string; automationId: string; context: Record<string, unknown> }>;

beforeAll(async () => {
  first = await stageAutomation(hub());
  second = await stageAutomation(hub());
  // Job i (1 = oldest): kind alternates, the 50 oldest are tagged "old", every third belongs to the second automation.
  const { rows } = await hub().db.execute<{ id: string; automation_id: string; context: Record<string, unknown> }>(sql`
    insert into jobs (automation_id, context, created_at, available_at)
    select case when i % 3 = 0 then ${second.automationId}::uuid else ${first.automationId}::uuid end,
           jsonb_build_object('kind', case when i % 2 = 0 then 'even' else 'odd' end, 'tag', case when i <= 50 then 'old' else 'new' end, 'n', i),
           t, t
    from generate_series(1, ${JOBS}) as i, lateral (select now() - interval '1 day' + i * interval '1 second' as t) as at
    returning id, automation_id, context`);
  all = rows.map((row) => ({ id: row.id, automationId: row.automation_id, context: row.context })).reverse();
});

/** Every page of the list, `limit` at a time: the ids in the order served. */
async function walk(filter: JobFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: KeysetPosition | undefined;
  do {
    const page = await list(hub().pool, EVERYWHERE, filter, { limit, after });
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((job) => job.id));
    after = page.next;
  } while (after);
  return ids;
}

const expected = (filters: ContextFilter[], automationId?: string) =>
  all
    .filter((job) => (!automationId || job.automationId === automationId) && filters.every((filter) => job.context[filter.name] === filter.value))
    .map((job) => job.id);

describe("jobs.list with context filters", () => {
  it.each([
    ["a common value", [{ name: "kind", value: "even" }], undefined],
    ["a value only old jobs hold", [{ name: "tag", value: "old" }], undefined],
    [
      "two values and an automation",
      [
        { name: "kind", value: "odd" },
        { name: "tag", value: "new" },
      ],
      "second",
    ],
    ["a rare value of an automation", [{ name: "tag", value: "old" }], "first"],
  ] as const)("when %s is filtered, then every match is served once, newest first", async (_, filters, automation) => {
    const automationId = automation === undefined ? undefined : (automation === "first" ? first : second).automationId;
    const want = expected([...filters], automationId);
    expect(want.length).toBeGreaterThan(0);
    expect(await walk({ context: [...filters], automationId }, 100)).toEqual(want);
  });

  it("when a number is asked for as text, then it does not match: only string values do", async () => {
    expect((await list(hub().pool, EVERYWHERE, { context: [{ name: "n", value: "7" }] }, { limit: 10 })).items).toEqual([]);
  });

  it("when jobs are deleted (retention), then their entries go with them; when a job's context or creation time changes, the filter follows", async () => {
    const entries = async () => Number((await hub().db.execute<{ n: string }>(sql`select count(*) as n from job_context_values`)).rows[0]!.n);
    const before = await entries();
    const [oldest, next] = [all.at(-1)!, all.at(-2)!];

    await hub().db.execute(sql`delete from jobs where id = ${oldest.id}::uuid`);
    // kind and tag are strings, n a number: two entries per job.
    expect(await entries()).toBe(before - 2);
    await hub().db.execute(sql`update jobs set context = context || '{"tag": "moved"}', created_at = now() where id = ${next.id}::uuid`);

    const moved = await list(hub().pool, EVERYWHERE, { context: [{ name: "tag", value: "moved" }] }, { limit: 10 });
    expect(moved.items.map((job) => job.id)).toEqual([next.id]);
    expect((await list(hub().pool, EVERYWHERE, { context: [{ name: "kind", value: String(next.context.kind) }] }, { limit: 1 })).items[0]!.id).toBe(next.id);
    expect(await walk({ context: [{ name: "tag", value: "old" }] }, 100)).not.toContain(oldest.id);
    all = all.filter((job) => job.id !== oldest.id && job.id !== next.id);
  });
});
