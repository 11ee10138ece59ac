/**
 * A graph of 1,002 jobs (CONTRACT §6.16) — a root, ten fan-outs of 99 jobs each with its fan-in,
 * and a last job waiting for the ten fan-ins — submitted in three batches and run by three claim
 * loops of the automation's worker: every job starts only after each of its dependencies finished,
 * and the automation's max_concurrent_jobs and max_concurrent_per_key hold throughout.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createAutomationWithWorker, useHubWithDispatcher } from "./job-fixtures";

const hub = useHubWithDispatcher();
const MAX_CONCURRENT = 4;
const GROUPS = 10;
const FAN_OUT = 99;
const COUNTRIES = ["fr", "de", "it", "es", "nl"];

type Item = { automation_id: string; context: Record<string, string>; depends_on?: Array<string | number> };

describe("a 1,002-job graph", () => {
  it("when a fan-out/fan-in graph runs, then every job starts after its dependencies finished and every limit holds", { timeout: 180_000 }, async () => {
    const worker = await createAutomationWithWorker(hub, {
      max_concurrent_jobs: MAX_CONCURRENT,
      parameters: [{ name: "country" }],
      concurrency_key: "country",
      max_concurrent_per_key: 1,
    });
    const item = (n: number, dependsOn: Array<string | number>): Item => ({
      automation_id: worker.automationId,
      context: { country: COUNTRIES[n % COUNTRIES.length]!, n: String(n) },
      depends_on: dependsOn,
    });
    const submit = async (items: Item[]): Promise<string[]> => {
      const created = await hub.client.post<{ ids: string[] }>("/jobs/batch", { jobs: items }, { token: hub.adminToken });
      if (created.status !== 201) throw new Error(`batch refused: ${created.status} ${JSON.stringify(created.body)}`);
      return created.body.ids;
    };
    /** The items of groups `from`..`to`-1 after `offset` items, their mids depending on `root` (an id or index). */
    const groups = (from: number, to: number, offset: number, root: string | number): { items: Item[]; fanIns: number[] } => {
      const items: Item[] = [];
      const fanIns: number[] = [];
      for (let group = from; group < to; group += 1) {
        const first = offset + items.length;
        for (let mid = 0; mid < FAN_OUT; mid += 1) items.push(item(group * 100 + mid, [root]));
        fanIns.push(offset + items.length);
        items.push(
          item(
            group * 100 + 99,
            Array.from({ length: FAN_OUT }, (_, mid) => first + mid),
          ),
        );
      }
      return { items, fanIns };
    };
    const first = groups(0, 4, 1, 0);
    const idsA = await submit([item(1000, []), ...first.items]);
    const second = groups(4, 8, 0, idsA[0]!);
    const idsB = await submit(second.items);
    const third = groups(8, GROUPS, 0, idsA[0]!);
    const fanInIds = [...first.fanIns.map((index) => idsA[index]!), ...second.fanIns.map((index) => idsB[index]!)];
    const idsC = await submit([...third.items, item(9999, [...fanInIds, ...third.fanIns])]);
    const total = idsA.length + idsB.length + idsC.length;
    expect(total).toBe(1002);

    // Checked as the loops go, so nothing is read off clocks: a job counts as running from its claim's answer until just
    // before its complete is sent, a subset of what the hub counts; a dependency counts as finished once its complete is
    // sent (the hub cannot release a dependent before that complete commits).
    const finishing = new Set<string>();
    const running = new Map<string, number>();
    const problems: string[] = [];
    let most = 0;
    const loop = async () => {
      while (finishing.size < total) {
        const claimed = await hub.client.post<{ jobs: Array<{ id: string; context: { country: string }; depends_on: string[] }> }>(
          "/jobs/claim-batch",
          { max_jobs: MAX_CONCURRENT, wait_seconds: 1 },
          { workerKey: worker.workerKey },
        );
        if (claimed.status !== 200) continue;
        for (const job of claimed.body.jobs) {
          const early = job.depends_on.filter((dependency) => !finishing.has(dependency));
          if (early.length > 0) problems.push(`${job.id} started before ${early.join(", ")}`);
          const country = job.context.country;
          running.set(country, (running.get(country) ?? 0) + 1);
          if (running.get(country)! > 1) problems.push(`two ${country} jobs at once`);
        }
        most = Math.max(
          most,
          [...running.values()].reduce((sum, value) => sum + value, 0),
        );
        for (const job of claimed.body.jobs) {
          running.set(job.context.country, running.get(job.context.country)! - 1);
          finishing.add(job.id);
          const done = await hub.client.post(`/jobs/${job.id}/complete`, { result: { ok: true } }, { workerKey: worker.workerKey });
          if (done.status !== 200) throw new Error(`complete refused: ${done.status}`);
        }
      }
    };
    await Promise.all([loop(), loop(), loop()]);

    expect(problems).toEqual([]);
    expect(most).toBeLessThanOrEqual(MAX_CONCURRENT);
    const { rows } = await hub.api.ctx.database.db.execute<{ status: string; count: number }>(
      sql`select status, count(*)::int as count from jobs where automation_id = ${worker.automationId} group by status`,
    );
    expect(rows).toEqual([{ status: "completed", count: total }]);
  });
});
